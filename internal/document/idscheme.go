package document

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// Roles an identifier scheme is found in.
const (
	RoleHeading = "heading" // a heading's title starts with it: "#### MS.AAD.1.1v1"
	RolePrefix  = "prefix"  // a line or list item starts with it: "R1.1: Users …"
	RoleTag     = "tag"     // it ends a statement in brackets: "… the connection [MQTT-3.1.2-1]."
	RoleColumn  = "column"  // a table row's first cell: "| FR-3 | The system …"
)

// IDScheme is a pattern of identifiers that a document repeats in one
// role: the document's own ids for its requirements, whatever they look
// like. Pattern is a regular expression that matches an id of the scheme
// whole, made from the ids seen (letters all ids share stay literal).
type IDScheme struct {
	Role     string   `json:"role"`
	Pattern  string   `json:"pattern"`
	Count    int      `json:"count"`
	Distinct int      `json:"distinct"`
	Examples []string `json:"examples"`
}

// Match reports whether id belongs to the scheme.
func (s IDScheme) Match(id string) bool {
	re, err := regexp.Compile(`^(?:` + s.Pattern + `)$`)
	return err == nil && re.MatchString(id)
}

// Prefix is the literal text every id of the scheme starts with ("MQTT-",
// "MS.AAD."), "" when the ids start with a class of characters.
func (s IDScheme) Prefix() string {
	var b strings.Builder
	for i := 0; i < len(s.Pattern); i++ {
		c := s.Pattern[i]
		switch {
		case c == '\\' && i+1 < len(s.Pattern) && !isClassEscape(s.Pattern[i+1]):
			b.WriteByte(s.Pattern[i+1])
			i++
		case c == '\\' || strings.IndexByte("[](){}|*+?^$", c) >= 0:
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isClassEscape(c byte) bool { return strings.IndexByte("dDwWsSbB", c) >= 0 }

const (
	// minSchemeIDs is how many different ids make a scheme: a pattern
	// seen once or twice is a coincidence (SHA-1, UTF-8).
	minSchemeIDs = 3
	// minTagCueShare is the share of a tag's occurrences that must close
	// a statement with a normative keyword: bracketed citations of
	// references ([RFC5246]) close other sentences too.
	minTagCueShare = 0.6
	maxSchemes     = 8
)

var (
	// idTokenRE is a candidate id: letters and digits in groups joined
	// by - . _ , an enhancement's number in brackets after it.
	idTokenRE = regexp.MustCompile(`^[A-Za-z0-9]+(?:[-._][A-Za-z0-9]+)*(?:\(\d{1,3}\))?`)
	// A list marker before a prefix: "- ", "* ", "• ", "1. ", "a) ".
	prefixMarkerRE = regexp.MustCompile(`^(?:[-*+•]\s+|\d{1,3}[.)]\s+|[a-z][.)]\s+)?`)
	// What follows a prefix id: a separator, or a tab.
	prefixSepRE = regexp.MustCompile(`^(?:\s*[:–—)]|\s+[-–—]\s|\.\s|\t)`)
	// A tag: ids in brackets at the end of a sentence or a line.
	tagRE        = regexp.MustCompile(`[\[(]([A-Za-z0-9][A-Za-z0-9._-]*[0-9][A-Za-z0-9._-]*)[\])]`)
	tagCueRE     = regexp.MustCompile(`(?i)\b(?:must|shall|should|may|required|recommended|optional)\b`)
	hexRE        = regexp.MustCompile(`^0[xX][0-9A-Fa-f]+$`)
	dateLikeRE   = regexp.MustCompile(`^\d{4}[-.]\d{1,2}(?:[-.]\d{1,2})?$|^\d{1,2}[-.]\d{1,2}[-.]\d{2,4}$`)
	tableRowRE   = regexp.MustCompile(`^\|.*\|$`)
	tableSepRE   = regexp.MustCompile(`^\|[\s:|-]+\|$`)
	wordsRE      = regexp.MustCompile(`\p{L}+`)
	lowerWordsRE = regexp.MustCompile(`\b\p{Ll}{2,}\b`)
)

// idLike reports whether a token can be an id of a requirement in role:
// a digit in it, not a number, a hex value or a date; a section number
// (digits and dots) only where a heading's outline does not already
// give it (list prefixes, table cells).
func idLike(tok, role string) bool {
	if len(tok) < 2 || len(tok) > 32 || strings.IndexFunc(tok, unicode.IsDigit) < 0 || hexRE.MatchString(tok) || dateLikeRE.MatchString(tok) {
		return false
	}
	if strings.IndexFunc(tok, unicode.IsLetter) >= 0 {
		return true
	}
	// Digits only: a dotted number of two groups or more, not in headings.
	return role != RoleHeading && role != RoleTag && strings.Count(tok, ".") >= 1 && !strings.ContainsAny(tok, "-_")
}

type idSeen struct {
	id  string
	cue bool // a tag: the statement it closes has a normative keyword
}

// sectionNumberRE is a section's number: digits, or an appendix letter,
// with dots ("4.1.2", "A.3").
var sectionNumberRE = regexp.MustCompile(`^(?:\d+|[A-Z])(?:\.\d+)+\.?$`)

// surveyIDSchemes finds the id schemes of a text's lines; the headings of
// its outline are no list items, and their numbers no ids.
func surveyIDSchemes(lines []string, outline []outlined) []IDScheme {
	headingLine, headingTitle := map[int]bool{}, map[string]bool{}
	for _, h := range outline {
		headingLine[h.line] = true
		headingTitle[HeadingTitle(h.title)] = true
	}
	seen := map[string][]idSeen{} // role + "\x00" + shape → ids
	add := func(role, id string, cue bool) {
		if idLike(id, role) {
			k := role + "\x00" + idShape(id)
			seen[k] = append(seen[k], idSeen{id, cue})
		}
	}
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		if line == "" || isMarker(line) || leaderRE.MatchString(line) {
			continue
		}
		switch {
		case tableRowRE.MatchString(line):
			if tableSepRE.MatchString(line) || i+1 < len(lines) && tableSepRE.MatchString(strings.TrimSpace(lines[i+1])) {
				continue // a rule, or the header over it
			}
			cells := strings.Split(strings.Trim(line, "|"), "|")
			if len(cells) < 2 {
				continue
			}
			first := strings.TrimSpace(cells[0])
			if tok := idTokenRE.FindString(first); tok == first && hasStatement(cells[1:]) {
				add(RoleColumn, tok, false)
			}
			continue
		case markdownRE.MatchString(line) || headingLine[i]:
			title := strings.TrimSpace(strings.TrimLeft(line, "#"))
			if tok := idTokenRE.FindString(title); tok != "" && endsToken(title[len(tok):]) && !sectionNumberRE.MatchString(tok) {
				add(RoleHeading, tok, false)
			}
			continue
		}
		body := line[len(prefixMarkerRE.FindString(line)):]
		if tok := idTokenRE.FindString(body); tok != "" && !headingTitle[HeadingTitle(line)] {
			// (A line that is a heading's title stands in a table of
			// contents.)
			rest := body[len(tok):]
			digitsOnly := strings.IndexFunc(tok, unicode.IsLetter) < 0
			if prefixSepRE.MatchString(rest) && len(strings.Fields(rest)) >= 2 || digitsOnly && strings.Count(tok, ".") >= 2 && len(strings.Fields(rest)) >= 3 {
				add(RolePrefix, tok, false)
			}
		}
		for _, m := range tagRE.FindAllStringSubmatchIndex(line, -1) {
			if !ClosesStatement(line[m[1]:]) {
				continue // in the middle of a sentence: a citation
			}
			before := strings.Join(lines[max(0, i-3):i], " ") + " " + line[:m[0]]
			if len(before) > 400 {
				before = before[len(before)-400:]
			}
			add(RoleTag, line[m[2]:m[3]], tagCueRE.MatchString(before))
		}
	}
	var out []IDScheme
	for k, ids := range seen {
		role, _, _ := strings.Cut(k, "\x00")
		distinct := map[string]bool{}
		cues := 0
		for _, s := range ids {
			distinct[s.id] = true
			if s.cue {
				cues++
			}
		}
		if len(distinct) < minSchemeIDs {
			continue
		}
		if role == RoleTag && float64(cues) < minTagCueShare*float64(len(ids)) {
			continue
		}
		var list []string
		for _, s := range ids {
			list = append(list, s.id)
		}
		var ex []string
		for _, s := range ids {
			if len(ex) < 3 && !contains(ex, s.id) {
				ex = append(ex, s.id)
			}
		}
		out = append(out, IDScheme{Role: role, Pattern: idPattern(list), Count: len(ids), Distinct: len(distinct), Examples: ex})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Role+out[i].Pattern < out[j].Role+out[j].Pattern
	})
	if len(out) > maxSchemes {
		out = out[:maxSchemes]
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ClosesStatement reports whether the text after a bracketed id shows it
// at the end of a statement: the line ends, a full stop or a semicolon
// follows, another tag, or the next sentence; in the middle of a
// sentence it is a citation ("The same conditions apply …").
func ClosesStatement(after string) bool {
	after = strings.TrimLeft(after, " \t,")
	after = strings.TrimPrefix(after, "and ")
	if after == "" || strings.ContainsAny(after[:1], ".;:[(\n") {
		return true
	}
	r := []rune(after)[0]
	return unicode.IsUpper(r)
}

// endsToken reports whether what follows an id in a heading ends it: the
// end, a space, or a separator.
func endsToken(rest string) bool {
	return rest == "" || strings.IndexAny(rest[:1], " \t:–—-.)") == 0
}

// hasStatement reports whether some cell holds a sentence: four words,
// lower-case ones among them.
func hasStatement(cells []string) bool {
	for _, c := range cells {
		if len(wordsRE.FindAllString(c, -1)) >= 4 && lowerWordsRE.MatchString(c) {
			return true
		}
	}
	return false
}

// idSegments cuts an id into runs of capitals, small letters, digits and
// single other characters.
func idSegments(id string) []string {
	var out []string
	kind := func(r rune) int {
		switch {
		case unicode.IsUpper(r):
			return 1
		case unicode.IsLower(r):
			return 2
		case unicode.IsDigit(r):
			return 3
		}
		return 0
	}
	start, prev := 0, -1
	for i, r := range id {
		k := kind(r)
		if i > 0 && (k != prev || k == 0) {
			out = append(out, id[start:i])
			start = i
		}
		prev = k
	}
	return append(out, id[start:])
}

// idShape is an id's shape: capitals A, small letters a, digits 9, other
// characters as they are ("MQTT-3.1.0-1" → "A-9.9.9-9").
func idShape(id string) string {
	var b strings.Builder
	for _, s := range idSegments(id) {
		b.WriteString(segmentClass(s))
	}
	return b.String()
}

func segmentClass(s string) string {
	r := []rune(s)[0]
	switch {
	case unicode.IsUpper(r):
		return "A"
	case unicode.IsLower(r):
		return "a"
	case unicode.IsDigit(r):
		return "9"
	}
	return s
}

// idPattern is a regular expression for ids of one shape: the letters
// every id has at a place stay as they are ("MS", "AAD"), other letters
// and every number become classes.
func idPattern(ids []string) string {
	segs := make([][]string, len(ids))
	for i, id := range ids {
		segs[i] = idSegments(id)
	}
	var b strings.Builder
	for p, s := range segs[0] {
		same := true
		for _, other := range segs[1:] {
			same = same && p < len(other) && other[p] == s
		}
		switch segmentClass(s) {
		case "9":
			b.WriteString(`\d+`)
		case "A", "a":
			if same {
				b.WriteString(regexp.QuoteMeta(s))
			} else if segmentClass(s) == "A" {
				b.WriteString(`[A-Z]+`)
			} else {
				b.WriteString(`[a-z]+`)
			}
		default:
			b.WriteString(regexp.QuoteMeta(s))
		}
	}
	return b.String()
}
