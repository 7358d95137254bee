package document

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// runningZone is how many lines at the top and at the bottom of a page are
// looked at for running headers, footers and page numbers.
const runningZone = 4

var pageNumberRE = regexp.MustCompile(`(?i)^[-–—\s]*((page|seite|p\.|s\.)\s*)?(([a-z]-)?\d{1,4}|[ivxlcdm]{1,7})(\s*(of|von|/|\|)\s*\d{1,4})?[-–—\s]*$`)

// isPageNumber reports whether a line is a bare page number ("12", "- 3 -",
// "Seite 4 von 9", "xii"). Most lines are turned down before the regular
// expression: a page number has at most 15 letters (page, a roman numeral
// or a letter prefix, of) and no characters other than letters, digits,
// white space and - – — . / |.
func isPageNumber(l string) bool {
	letters := 0
	for _, r := range l {
		switch {
		case r >= '0' && r <= '9', r == ' ', r == '\t', r == '\n', r == '\f', r == '\r',
			r == '-', r == '–', r == '—', r == '.', r == '/', r == '|':
		case unicode.IsLetter(r):
			if letters++; letters > 15 {
				return false
			}
		default:
			return false
		}
	}
	return pageNumberRE.MatchString(l)
}

// runningKey is the form in which running lines are compared: numbers and
// case do not count. Each run of digits becomes #, letters lower case,
// white space one blank.
func runningKey(s string) string {
	b := make([]byte, 0, len(s))
	ascii := true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			if i == 0 || s[i-1] < '0' || s[i-1] > '9' {
				b = append(b, '#')
			}
		case c >= utf8.RuneSelf:
			ascii = false
			b = append(b, c)
		default:
			b = append(b, c)
		}
	}
	if !ascii {
		return strings.Join(strings.Fields(strings.ToLower(string(b))), " ")
	}
	// Lower case and single blanks, in place: the write position never
	// passes the read position.
	out := b[:0]
	blank := false
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\v', '\f', '\r':
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, ' ')
			blank = false
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out = append(out, c)
	}
	return string(out)
}

// pageLines are the lines of one page with what removeRunningLines asks of
// them more than once: which are page numbers, and their running keys.
type pageLines struct {
	lines  []string
	number []bool // a bare page number
	text   []int  // the lines with text
	idx    []int  // the lines with text that are not page numbers
	keys   []string
	keyed  []bool
}

func newPageLines(lines []string) *pageLines {
	pl := &pageLines{lines: lines, number: make([]bool, len(lines)), text: nonEmpty(lines), keys: make([]string, len(lines)), keyed: make([]bool, len(lines))}
	for _, i := range pl.text {
		if pl.number[i] = isPageNumber(lines[i]); !pl.number[i] {
			pl.idx = append(pl.idx, i)
		}
	}
	return pl
}

func (pl *pageLines) key(i int) string {
	if !pl.keyed[i] {
		pl.keys[i], pl.keyed[i] = runningKey(pl.lines[i]), true
	}
	return pl.keys[i]
}

// removeRunningLines drops running headers and footers and bare page
// numbers. A line runs when, with numbers and case ignored, it stands in
// the top (or bottom) lines of at least 40% of the pages, or is the very
// first (or last) line of at least three pages — a chapter's footer on that
// chapter's pages. It is removed only where it runs: a footer's text at
// the top of the chapter's first page is the chapter's heading and stays.
// It returns the running lines, by runningKey, and how many lines it dropped.
func removeRunningLines(pages [][]string) (running map[string]bool, removed int) {
	return removeRunningLinesOf(pages, nil)
}

// removeRunningLinesOf is removeRunningLines that also drops the lines
// known to run, by page and index, wherever they stand: a PDF's running
// lines found by their place, which reading order may put within the text.
func removeRunningLinesOf(pages [][]string, known [][]int) (running map[string]bool, removed int) {
	running = map[string]bool{}
	// zones calls f for the lines in the top and bottom zones of a page;
	// page numbers do not count when looking for the page's edges.
	zones := func(pl *pageLines, f func(i int, z zoned, edge bool)) {
		idx := pl.idx
		// On a short page, only its first and last few lines can run.
		zone := min(runningZone, max(1, len(idx)/3))
		for k, i := range idx {
			back := len(idx) - 1 - k
			if k >= zone && back >= zone {
				continue
			}
			key := pl.key(i)
			if k < zone {
				f(i, zoned{true, k, key}, k == 0 && len(idx) > 2)
			}
			if back < zone {
				f(i, zoned{false, back, key}, back == 0 && len(idx) > 2)
			}
		}
	}
	all := make([]*pageLines, len(pages))
	zoneCount, edgeCount := map[zoned]int{}, map[zoned]int{}
	for p, lines := range pages {
		all[p] = newPageLines(lines)
		seen := map[zoned]bool{}
		zones(all[p], func(i int, z zoned, edge bool) {
			if !seen[z] {
				seen[z] = true
				zoneCount[z]++
			}
			if edge && utf8.RuneCountInString(lines[i]) <= 60 {
				edgeCount[z]++ // short lines only: a page's first sentence is no header
			}
		})
	}
	if len(pages) < 2 {
		return running, 0
	}
	threshold := max(2, (len(pages)*2+4)/5) // 40% of the pages, at least 2
	edges := min(3, len(pages))
	runs := func(z zoned) bool {
		if utf8.RuneCountInString(z.key) > 60 && zoneCount[z] < 5 {
			return false // a long line is body text unless many pages show it
		}
		return zoneCount[z] >= threshold || edgeCount[z] >= edges
	}
	for p, lines := range pages {
		pl := all[p]
		drop := map[int]bool{}
		if p < len(known) {
			for _, i := range known[p] {
				drop[i] = true
				running[pl.key(i)] = true
			}
		}
		for i := range lines {
			if pl.number[i] && pl.inZone(i) {
				drop[i] = true
				running[pl.key(i)] = true
			}
		}
		zones(pl, func(i int, z zoned, _ bool) {
			if z.key != "" && runs(z) && edgeOrRun(pl, i, z, runs) {
				drop[i] = true
				running[z.key] = true
			}
		})
		if len(drop) == 0 {
			continue
		}
		kept := lines[:0:0]
		for i, l := range lines {
			if !drop[i] {
				kept = append(kept, l)
			}
		}
		removed += len(drop)
		pages[p] = trimBlank(kept)
	}
	return running, removed
}

// zoned is a line's running key in the top or the bottom zone of a page,
// with its distance from the page's edge in lines: running headers and
// footers keep their place, body text does not.
type zoned struct {
	top bool
	pos int
	key string
}

// inZone reports whether line i is among the first or last lines of a page.
func (pl *pageLines) inZone(i int) bool {
	k, found := slices.BinarySearch(pl.text, i)
	return found && (k < runningZone || k >= len(pl.text)-runningZone)
}

func runsAnywhere(top bool, key string, runs func(zoned) bool) bool {
	for pos := range runningZone {
		if runs(zoned{top, pos, key}) {
			return true
		}
	}
	return false
}

// edgeOrRun keeps a running line's removal to where it runs: between it and
// the page's edge there may only be other running lines and page numbers.
func edgeOrRun(pl *pageLines, i int, z zoned, runs func(zoned) bool) bool {
	step := 1
	if z.top {
		step = -1
	}
	for j := i + step; j >= 0 && j < len(pl.lines); j += step {
		if pl.number[j] || strings.TrimSpace(pl.lines[j]) == "" {
			continue
		}
		if !runsAnywhere(z.top, pl.key(j), runs) {
			return false
		}
	}
	return true
}

func nonEmpty(lines []string) []int {
	var idx []int
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			idx = append(idx, i)
		}
	}
	return idx
}

// trimBlank removes blank lines at both ends and runs of blank lines.
func trimBlank(lines []string) []string {
	out := lines[:0:0]
	for _, l := range lines {
		if strings.TrimSpace(l) == "" && (len(out) == 0 || out[len(out)-1] == "") {
			continue
		}
		if strings.TrimSpace(l) == "" {
			l = ""
		}
		out = append(out, l)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// ellipsisWords follow a hyphen that stands for a shared word part
// ("Buchführungs- und Aufzeichnungspflichten"): the hyphen stays.
var ellipsisWords = map[string]bool{"und": true, "oder": true, "bzw.": true, "sowie": true, "bis": true, "als": true, "and": true, "or": true, "to": true, "nor": true}

// dehyphenate joins words divided at line ends, across pages too. A hyphen
// is removed when the word is hyphenated only for the line break, and kept
// in compounds (DV-System), in shared word parts (Buchführungs- und …) and
// where the document writes the word with a hyphen elsewhere.
func dehyphenate(pages [][]string) int {
	vocab := vocabulary(pages)
	keep := keepsHyphens(pages, vocab)
	type pos struct{ p, i int }
	var all []pos
	for p, lines := range pages {
		for i := range lines {
			all = append(all, pos{p, i})
		}
	}
	joined := 0
	emptied := map[int]map[int]bool{} // by page, continuation lines that held only a word's end
	for k := 0; k+1 < len(all); k++ {
		a := all[k]
		cur := pages[a.p][a.i]
		if !strings.HasSuffix(cur, "-") || strings.HasSuffix(cur, "--") {
			continue
		}
		// The continuation is the next line with text; a blank line ends the paragraph.
		n := k + 1
		if pages[all[n].p][all[n].i] == "" {
			continue
		}
		b := all[n]
		next := pages[b.p][b.i]
		head := lastWord(cur)
		tail, rest := firstWord(next)
		if head == "" || tail == "" || len([]rune(head)) < 2 {
			continue
		}
		before, _ := utf8.DecodeLastRuneInString(strings.TrimSuffix(head, "-"))
		after, _ := utf8.DecodeRuneInString(tail)
		if !unicode.IsLetter(before) && !unicode.IsDigit(before) || !unicode.IsLetter(after) {
			continue
		}
		var word string
		switch {
		case ellipsisWords[strings.ToLower(tail)]:
			continue // "Buchführungs- und": leave both lines as they are
		case unicode.IsUpper(after) || unicode.IsUpper(before) || unicode.IsDigit(before):
			word = head + tail // DV-System, BFH-Urteil
		default:
			plain := strings.TrimSuffix(head, "-") + tail
			hyph := head + tail
			switch p, h := vocab[fold(plain)], vocab[fold(hyph)]; {
			case h > p, h == p && keep:
				word = hyph
			default:
				word = plain
			}
		}
		pages[a.p][a.i] = strings.TrimSuffix(cur, head) + word
		pages[b.p][b.i] = strings.TrimLeft(rest, " ")
		if pages[b.p][b.i] == "" && b.p == a.p {
			// Removed below. No line has it as its continuation: only
			// line a, done with, came before it.
			if emptied[b.p] == nil {
				emptied[b.p] = map[int]bool{}
			}
			emptied[b.p][b.i] = true
		}
		joined++
	}
	for p, lines := range emptied {
		kept := pages[p][:0]
		for i, l := range pages[p] {
			if !lines[i] {
				kept = append(kept, l)
			}
		}
		pages[p] = kept
	}
	return joined
}

// keepsHyphens decides, for words divided at line ends that the document
// never writes whole, whether to keep the hyphen. It looks at the divided
// words the document does write elsewhere: if most of those carry a hyphen
// (multi-factor), the document does not hyphenate for line breaks and the
// hyphen is real; if most are written without one (Aufzeichnungen), it does.
func keepsHyphens(pages [][]string, vocab map[string]int) bool {
	plain, hyph := 0, 0
	for _, lines := range pages {
		for i := 0; i+1 < len(lines); i++ {
			if !strings.HasSuffix(lines[i], "-") {
				continue
			}
			head := lastWord(lines[i])
			tail, _ := firstWord(lines[i+1])
			if head == "" || tail == "" {
				continue
			}
			if vocab[fold(strings.TrimSuffix(head, "-")+tail)] > 0 {
				plain++
			}
			if vocab[fold(head+tail)] > 0 {
				hyph++
			}
		}
	}
	return hyph > plain
}

// vocabulary counts the words of the text that are not divided at a line end.
func vocabulary(pages [][]string) map[string]int {
	v := map[string]int{}
	for _, lines := range pages {
		for _, l := range lines {
			fields := strings.Fields(l)
			for i, w := range fields {
				if i == len(fields)-1 && strings.HasSuffix(w, "-") {
					continue
				}
				v[fold(w)]++
			}
		}
	}
	return v
}

func fold(w string) string {
	return strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' }))
}

func lastWord(s string) string {
	if i := strings.LastIndexAny(s, " \t"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// firstWord splits the first word off s, without trailing punctuation;
// rest keeps that punctuation.
func firstWord(s string) (word, rest string) {
	s = strings.TrimLeft(s, " \t")
	end := strings.IndexAny(s, " \t")
	if end < 0 {
		end = len(s)
	}
	w := s[:end]
	core := strings.TrimRightFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' })
	return core, s[len(core):]
}

// removeSoftHyphens drops U+00AD, which marks where a word may be divided
// and is invisible unless it is.
func removeSoftHyphens(lines []string) []string {
	for i, l := range lines {
		lines[i] = strings.ReplaceAll(l, "\u00ad", "")
	}
	return lines
}
