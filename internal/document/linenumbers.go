package document

import (
	"regexp"
	"strconv"
	"strings"
)

// Standards drafts, OASIS specifications and legal bills are typeset with
// numbered lines: a number in the margin before every line, counting up
// through the page or the whole document. Extraction puts it at the start
// of the line ("1113 Network Connection [MQTT-3.2.0-2]."), where it would
// end up inside quotes and hide headings. Such numbers are told by their
// place and their sequence, never by their values: a page whose lines
// mostly begin with numbers that count up one by one, line after line.

// lineNumberRE is a number at the start of a line, alone or before text.
var lineNumberRE = regexp.MustCompile(`^[ \t]*(\d{1,6})(?:[ \t]+|$)`)

const (
	// minNumberedRun is the shortest chain of counting lines that makes a
	// page line-numbered on its own (a table of contents or a numbered
	// table is shorter); minNumberedShare is the share of the page's
	// lines it must number; minNumberedPages the share of the pages that
	// must be, so that one page of a numbered table does not make a
	// document line-numbered.
	minNumberedRun   = 10
	minNumberedShare = 0.4
	minNumberedPages = 0.25
)

// marginNumbered returns, for each page, the indexes of its lines that
// begin with a margin line number. A page is line-numbered when its
// longest chain of counting numbers (each the one before plus one, lines
// without a number between them allowed) is long and numbers a good
// share of its lines, and a document when a quarter of its pages are (two
// at least, unless it has one); in a document where most pages are, a
// page's shorter chain counts too (a page that is mostly a figure).
func marginNumbered(pages [][]string) [][]int {
	chains := make([][]int, len(pages))
	numbered := 0
	for i, lines := range pages {
		chains[i] = countingChain(lines)
		nonBlank := 0
		for _, l := range lines {
			if strings.TrimSpace(l) != "" {
				nonBlank++
			}
		}
		if len(chains[i]) >= minNumberedRun && float64(len(chains[i])) >= minNumberedShare*float64(nonBlank) {
			numbered++
		} else {
			chains[i] = nil
		}
	}
	if numbered == 0 || numbered == 1 && len(pages) > 1 || float64(numbered) < minNumberedPages*float64(len(pages)) {
		return make([][]int, len(pages))
	}
	if 2*numbered >= len(pages) {
		for i, lines := range pages {
			if c := countingChain(lines); len(chains[i]) == 0 && len(c) >= 3 {
				chains[i] = c
			}
		}
	}
	return chains
}

// stripLineNumber is a line without its margin number.
func stripLineNumber(l string) string {
	if m := lineNumberRE.FindStringIndex(l); m != nil {
		return l[m[1]:]
	}
	return l
}

// removeLineNumbers removes margin line numbers from the pages of a text
// and returns how many lines lost one. On a line-numbered page the text
// is numbered and the inside of figures and tables is not: where one kind
// of line meets the other, a blank line parts them, so that a figure's
// last row does not start the paragraph after it.
func removeLineNumbers(pages [][]string) int {
	removed := 0
	for i, chain := range marginNumbered(pages) {
		if len(chain) == 0 {
			continue
		}
		lines := pages[i]
		numberedLine := make([]bool, len(lines))
		for _, at := range chain {
			lines[at] = stripLineNumber(lines[at])
			numberedLine[at] = true
			removed++
		}
		out := make([]string, 0, len(lines))
		for j, l := range lines {
			if j > 0 && numberedLine[j] != numberedLine[j-1] && strings.TrimSpace(l) != "" && strings.TrimSpace(lines[j-1]) != "" &&
				!isMarker(l) && !isMarker(lines[j-1]) {
				out = append(out, "")
			}
			out = append(out, l)
		}
		pages[i] = out
	}
	return removed
}

// removeLaidLineNumbers removes margin line numbers from the laid-out
// lines of a PDF's pages, before paragraphs and headings are told from
// their geometry and text, and marks the lines that had one.
func removeLaidLineNumbers(laid [][][]line) {
	texts := make([][]string, len(laid))
	for i, runs := range laid {
		for _, run := range runs {
			for _, l := range run {
				texts[i] = append(texts[i], l.text)
			}
		}
	}
	for i, chain := range marginNumbered(texts) {
		if len(chain) == 0 {
			continue
		}
		numberedLine := make([]bool, len(texts[i]))
		for _, at := range chain {
			numberedLine[at] = true
		}
		k := 0
		for _, run := range laid[i] {
			for j := range run {
				if numberedLine[k] {
					run[j].text = stripLineNumber(run[j].text)
					run[j].numbered = true
				}
				k++
			}
		}
	}
}

// countingChain returns the lines of the longest chain of line numbers in
// which each is the one before plus one, in the order of the lines.
func countingChain(lines []string) []int {
	type link struct{ length, prev int }
	links := make([]link, len(lines))
	last := map[int]int{} // number → the latest line that begins with it
	best := -1
	for i, l := range lines {
		m := lineNumberRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		links[i] = link{1, -1}
		if j, ok := last[n-1]; ok {
			links[i] = link{links[j].length + 1, j}
		}
		last[n] = i
		if best < 0 || links[i].length > links[best].length {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	chain := make([]int, links[best].length)
	for k, i := len(chain)-1, best; k >= 0; k, i = k-1, links[i].prev {
		chain[k] = i
	}
	return chain
}
