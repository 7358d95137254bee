package document

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// heading is a section title found in the text.
type heading struct {
	line   int // index in the text's lines
	level  int
	title  string
	number []string // 3.2.1 → [3 2 1]; nil for named headings and unnumbered Markdown ones
}

var (
	markdownRE = regexp.MustCompile(`^(#{1,6})\s+(\S.*)$`)
	// 3.2.1 Title, 4. Title, A.1. Title (RFC appendices)
	numberedRE = regexp.MustCompile(`^((?:\d{1,3}|[A-Z])(?:\.\d{1,3})*)(\.?)\s+(\S.*)$`)
	namedRE    = regexp.MustCompile(`^(?i:(part|teil|chapter|kapitel|section|abschnitt|unterabschnitt|article|artikel|art\.|annex|anhang|anlage|appendix)\s+([0-9]{1,3}(?:\.[0-9]{1,3})*[a-z]?|[IVXLC]{1,6}|[A-Z]|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b)|^§\s*\d{1,4}[a-z]?\b`)
	// AC-2 ACCOUNT MANAGEMENT: a control of a catalogue (NIST, CIS …)
	controlRE  = regexp.MustCompile(`^[A-Z]{2,4}-\d{1,3}\s+[A-Z][A-Z0-9 ,/()—–-]{3,}$`)
	appendixRE = regexp.MustCompile(`(?i)^(annex|anhang|anlage|appendix)\b`)
	leaderRE   = regexp.MustCompile(`(\.\s?){4,}|…{2,}|\s{2,}\d{1,4}\s*$`)
	months     = map[string]bool{
		"januar": true, "jänner": true, "februar": true, "märz": true, "april": true, "mai": true, "juni": true, "juli": true,
		"august": true, "september": true, "oktober": true, "november": true, "dezember": true,
		"january": true, "february": true, "march": true, "may": true, "june": true, "july": true, "october": true, "december": true,
	}
)

// Levels of named divisions; numbered headings take the depth of their number.
var namedLevel = map[string]int{
	"part": 1, "teil": 1, "chapter": 1, "kapitel": 1, "annex": 1, "anhang": 1, "anlage": 1, "appendix": 1,
	"section": 2, "abschnitt": 2, "unterabschnitt": 3,
	"article": 3, "artikel": 3, "art.": 3, "§": 3,
}

// findHeadings finds section titles: Markdown headings, numbered headings
// (1, 3.2, 3.2.1, A.1) and named divisions (Article 5, § 146, Abschnitt 3,
// Appendix A) that stand on a line of their own. Tables of contents (dot
// leaders, page numbers) are skipped. Of the numbered candidates, the
// longest sequence in which each number follows on from the one before is
// taken, which leaves out numbered list items and dates.
func findHeadings(lines []string) []heading {
	return findHeadingsAfter(lines, nil, slices.ContainsFunc(lines, isMarker))
}

// findHeadingsAfter is findHeadings for a part of a text that stands in
// the section numbered after: its numbering goes on from there (4.2
// follows 4.1) rather than starting anew. Markdown headings belong to
// unpaged text (Markdown, HTML, DOCX): in a paged text, a PDF's,
// "# Description" is a table's heading row ("#" the column of numbers).
func findHeadingsAfter(lines []string, after []string, paged bool) []heading {
	var out, numbered []heading
	var numbers [][]string
	markdown := !paged
	for i, raw := range lines {
		if raw == "" || raw[0] == ' ' || raw[0] == '\t' {
			continue // body text of indented formats (RFCs) and blank lines
		}
		line := strings.TrimSpace(raw)
		if _, ok := ParsePageMarker(line); ok || utf8.RuneCountInString(line) > 160 {
			continue
		}
		prevBlank := i == 0 || strings.TrimSpace(lines[i-1]) == "" || isMarker(lines[i-1])
		if m := markdownRE.FindStringSubmatch(line); m != nil && markdown {
			// A numbered title keeps its number, so that "## 3. Groups"
			// is the sibling of "2. Members", whatever level a section
			// path gives that.
			h := heading{line: i, level: len(m[1]), title: line}
			if n := numberedRE.FindStringSubmatch(m[2]); n != nil && !(isLetterPart(n[1]) && n[2] == "") {
				h.number = strings.Split(n[1], ".")
			}
			out = append(out, h)
			continue
		}
		if leaderRE.MatchString(line) {
			continue
		}
		if controlRE.MatchString(line) && prevBlank {
			out = append(out, heading{line: i, level: 2, title: line})
			continue
		}
		if m := numberedRE.FindStringSubmatch(line); m != nil {
			parts := strings.Split(m[1], ".")
			bare := len(parts) == 1 && m[2] == ""
			switch {
			case isLetterPart(parts[0]) && len(parts) == 1:
				// "A Title": a sentence, not a section
			case !titleLike(m[3], bare), statesDuty(m[3]):
			case bare && !prevBlank:
				// "12 Die Buchungen …": a numbered paragraph
			default:
				numbered = append(numbered, heading{line: i, level: len(parts), title: line, number: parts})
				numbers = append(numbers, parts)
				continue
			}
		}
		if m := namedRE.FindStringSubmatch(line); m != nil && prevBlank && utf8.RuneCountInString(line) <= 100 && !endsSentence(line) {
			rest := strings.TrimLeft(line[len(m[0]):], " .:-–—")
			if r, _ := utf8.DecodeRuneInString(rest); rest != "" && unicode.IsLower(r) {
				continue // "Appendix D provides …": a sentence
			}
			kind := strings.ToLower(m[1])
			if kind == "" {
				kind = "§"
			}
			out = append(out, heading{line: i, level: namedLevel[kind], title: line})
		}
	}
	var appendices []int
	for _, h := range out {
		if h.level == 1 && appendixRE.MatchString(h.title) {
			appendices = append(appendices, h.line)
		}
	}
	for _, k := range longestChain(after, numbers, numbered, appendices) {
		out = append(out, numbered[k])
	}
	slices.SortFunc(out, func(a, b heading) int { return a.line - b.line })
	return dropContentsEntry(lines, out)
}

// dropContentsEntry leaves out the headings that follow the entries of a
// table of contents and whose title stands again as a heading further
// on: the table's last entry, whose page number stood apart ("Appendix E
// - Contributors" at its end), not the section, which the first heading
// after a table of contents usually is.
func dropContentsEntry(lines []string, heads []heading) []heading {
	var out []heading
	for i, h := range heads {
		if afterContents(lines, h.line) && slices.ContainsFunc(heads[i+1:], func(later heading) bool {
			return HeadingTitle(later.title) == HeadingTitle(h.title)
		}) {
			continue
		}
		out = append(out, h)
	}
	return out
}

// afterContents reports whether line i follows entries of a table of
// contents (dot leaders, page numbers) with at most blank lines and a
// page number between: the last entry of a table whose page number stood
// apart ("Appendix E - Contributors" at its end) is no heading either.
func afterContents(lines []string, i int) bool {
	for j, seen := i-1, 0; j >= 0 && seen < 3; j-- {
		t := strings.TrimSpace(lines[j])
		switch {
		case t == "" || isMarker(t):
			continue
		case leaderRE.MatchString(t):
			return true
		case bareNumberRE.MatchString(t):
			seen++
			continue
		}
		return false
	}
	return false
}

var bareNumberRE = regexp.MustCompile(`^\d{1,4}$`)

// minSectionGap is how many lines apart two headings of the same level
// must be: list items and tables of contents are closer.
const minSectionGap = 3

// longestChain returns the indexes of the heaviest sequence of section
// numbers in which each follows the one before; among equally heavy ones,
// the one that ends latest (a body after an unmarked table of contents).
// A chain starts where a numbering starts, or, given after, goes on from
// there: in a part of a text, numbered lists start anew, sections do not.
func longestChain(after []string, numbers [][]string, heads []heading, appendices []int) []int {
	// The numbering of the body does not go on inside an appendix; only
	// appendix numbers (A.1) do.
	crosses := func(a, b int, next []string) bool {
		if isLetterPart(next[0]) {
			return false
		}
		for _, l := range appendices {
			if a < l && l < b {
				return true
			}
		}
		return false
	}
	// Multi-level numbers (3.2) are strong evidence of a heading; a single
	// number before a long title is often a list entry or a reference.
	weight := func(i int) int {
		switch {
		case len(numbers[i]) > 1:
			return 4
		case utf8.RuneCountInString(heads[i].title) <= 60:
			return 2
		}
		return 1
	}
	n := len(numbers)
	best := make([]int, n)
	prev := make([]int, n)
	end := -1
	for i := range n {
		best[i], prev[i] = 0, -1
		if follows(after, numbers[i]) {
			best[i] = weight(i)
		}
		// Only a window of earlier candidates: sections are not far apart
		// in the candidate list, and this keeps the search linear.
		for j := i - 1; j >= 0 && j >= i-400; j-- {
			if len(numbers[j]) == len(numbers[i]) && heads[i].line-heads[j].line < minSectionGap {
				continue // a list item, not a section
			}
			if best[j] > 0 && best[j]+weight(i) > best[i] && follows(numbers[j], numbers[i]) && !crosses(heads[j].line, heads[i].line, numbers[i]) {
				best[i], prev[i] = best[j]+weight(i), j
			}
		}
		if best[i] > 0 && (end < 0 || best[i] >= best[end]) {
			end = i
		}
	}
	var chain []int
	for i := end; i >= 0; i = prev[i] {
		chain = append(chain, i)
	}
	slices.Reverse(chain)
	return chain
}

func isMarker(s string) bool {
	_, ok := ParsePageMarker(s)
	return ok
}

func isLetterPart(p string) bool { return len(p) == 1 && p[0] >= 'A' && p[0] <= 'Z' }

// titleLike reports whether the text after a section number reads like a
// title: it starts with a capital (or §, a quote, a bracket), is not a date,
// and is not a long sentence.
func titleLike(title string, bare bool) bool {
	first, _ := utf8.DecodeRuneInString(title)
	if !(unicode.IsUpper(first) || strings.ContainsRune("§\"'(„“", first)) {
		return false
	}
	word := strings.ToLower(strings.TrimRight(strings.Fields(title)[0], ".,"))
	if months[word] {
		return false
	}
	n := utf8.RuneCountInString(title)
	if bare && n > 80 {
		return false
	}
	// Titles do not end like sentences or list entries.
	t := strings.TrimSpace(title)
	return !strings.HasSuffix(t, ".") && !strings.HasSuffix(t, ",") && !strings.HasSuffix(t, ";") && !(n > 60 && endsSentence(t))
}

// dutyWordRE matches the modal verbs that make a numbered line a
// requirement ("3.1 The finance department must retain …"), not a title.
var dutyWordRE = regexp.MustCompile(`\b(must|shall|should|may|muss|müssen|soll|sollen|darf|dürfen)\b|\b(is|are) (required|prohibited|not permitted) to\b`)

// keywordDutyRE matches a list item that begins with an upper-case
// requirement keyword ("8. SHALL NOT be available to …"): no title does.
var keywordDutyRE = regexp.MustCompile(`^(MUST|SHALL|SHOULD|MAY|REQUIRED)(\s+NOT)?\s+\p{Ll}`)

// statesDuty reports whether the text after a number is a sentence that
// states a duty: a modal verb (in lower case — "May" may be a month)
// after a few words of subject. Titles name a topic ("3.1 Retention
// periods", "4 What operators must know" is rare and has its verb late).
func statesDuty(text string) bool {
	if keywordDutyRE.MatchString(text) {
		return true
	}
	if w := strings.Fields(text); len(w) >= 4 && w[1] == "that" {
		return true // "1.1.1 Verify that input is decoded …": a sentence
	}
	loc := dutyWordRE.FindStringIndex(text)
	if loc == nil {
		return false
	}
	before := strings.Fields(text[:loc[0]])
	return len(before) >= 1 && len(before) <= 8 && len(strings.Fields(text)) >= 5
}

func endsSentence(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasSuffix(s, ".") || strings.HasSuffix(s, ";") || strings.HasSuffix(s, ",") || strings.HasSuffix(s, ":")
}

// follows reports whether section number next can come after last: after
// their common beginning, next goes up by one (or two, when a heading was
// not recognised) and any deeper parts start at 1 — 4.1.5 → 4.2 or 4.2.1
// or 5 — or next goes deeper than last, starting at 1: 4 → 4.1 → 4.1.1.
// Levels may be skipped: some documents do not print every heading number.
func follows(last, next []string) bool {
	val := func(p string) int {
		if isLetterPart(p) {
			return int(p[0]-'A') + 1
		}
		n, _ := strconv.Atoi(p)
		return n
	}
	p := 0
	for p < len(last) && p < len(next) && last[p] == next[p] {
		p++
	}
	switch {
	case len(last) == 0 || p == 0 && isLetterPart(next[0]) != isLetterPart(last[0]):
		// a numbering starts; appendices A, B … may follow numbered sections
		return val(next[0]) <= 3 && allSmall(next[1:])
	case p == len(next):
		return false // the same number, or a parent of last
	case p == len(last):
		return allSmall(next[p:]) // deeper
	}
	d := val(next[p]) - val(last[p])
	// Skipping a number is allowed below the top level only: at the top,
	// it lets numbered lists in.
	return (d == 1 || d == 2 && p > 0) && allSmall(next[p+1:])
}

func allSmall(parts []string) bool {
	for _, p := range parts {
		if n, _ := strconv.Atoi(p); n > 1 {
			return false
		}
	}
	return true
}

func prefixEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// SectionIn returns the section path at byte offset at of a chunk's body,
// given path, the path of the section the chunk starts in (its
// Heading): that path continued by the headings that stand in the body
// before at. It names the section a quote stands in, found from the
// chunk's own text; paged tells a chunk of a paged document (one whose
// chunks name their pages).
func SectionIn(path, body string, at int, paged bool) string {
	var stack []heading
	var after []string // the number the body's numbering goes on from
	for i, t := range strings.Split(path, SectionSeparator) {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		h := parseTitle(t, i+1)
		if h.number != nil {
			after = h.number
		}
		stack = append(stack, h)
	}
	lines := strings.Split(body[:min(max(at, 0), len(body))], "\n")
	// The line at holds the quote, not a heading above it.
	lines = lines[:len(lines)-1]
	for _, h := range findHeadingsAfter(lines, after, paged || slices.ContainsFunc(lines, isMarker)) {
		if len(h.number) == 1 && after == nil && !strings.HasPrefix(h.title, "#") && listLike(h.title) {
			// Within a part of a text that a numbering does not reach (an
			// appendix), "3. Service Providers: Organizations that …" is
			// an entry of a list, as the whole text's headings tell.
			continue
		}
		title := HeadingTitle(h.title)
		// The heading the path already names (the chunk's first line),
		// with its level as the text shows it.
		if k := slices.IndexFunc(stack, func(s heading) bool { return HeadingTitle(s.title) == title }); k >= 0 {
			stack = stack[:k]
		}
		for len(stack) > 0 && !ancestor(stack[len(stack)-1], h) {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, h)
	}
	titles := make([]string, len(stack))
	for i, h := range stack {
		titles[i] = HeadingTitle(h.title)
	}
	return strings.Join(titles, SectionSeparator)
}

// listLike reports whether a numbered line reads as a list entry rather
// than a title: long, or a term and its definition after a colon.
func listLike(title string) bool {
	_, rest, colon := strings.Cut(title, ": ")
	return utf8.RuneCountInString(title) > 60 || colon && len(strings.Fields(rest)) >= 4
}

// parseTitle reads a title of a section path as a heading: numbered and
// named titles have the level of their kind; others, whose Markdown
// level the path does not keep, the level of their place in the path.
func parseTitle(title string, depth int) heading {
	h := heading{level: depth, title: title}
	switch m := numberedRE.FindStringSubmatch(title); {
	case m != nil && !(isLetterPart(m[1]) && m[2] == ""):
		h.number = strings.Split(m[1], ".")
		h.level = len(h.number)
	case controlRE.MatchString(title):
		h.level = 2
	default:
		if m := namedRE.FindStringSubmatch(title); m != nil {
			kind := strings.ToLower(m[1])
			if kind == "" {
				kind = "§"
			}
			h.level = namedLevel[kind]
		}
	}
	return h
}
