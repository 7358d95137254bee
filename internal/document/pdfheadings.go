package document

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// headingSizeRatio is how much larger than the text after it a heading's
// type is.
const headingSizeRatio = 1.15

// endsHeading reports whether a paragraph break belongs between lines a
// and b, b set close below a, because a is a heading: set in larger type
// than b, or a numbered title ("4.3.3 Reauthentication") much shorter
// than a full line (full, in points); it does not end like a sentence, and
// b, text of some words below a, starts with a capital. Without the break the
// heading would be read as the start of the sentence after it.
func endsHeading(a, b line, full float64) bool {
	t := strings.TrimSpace(a.text)
	if t == "" || endsSentence(t) || utf8.RuneCountInString(t) > 120 {
		return false
	}
	next, _ := utf8.DecodeRuneInString(strings.TrimSpace(b.text))
	if !unicode.IsUpper(next) {
		return false // the heading's title goes on, or a sentence, or a footnote mark
	}
	if b.x0 >= a.x1 || len(strings.Fields(b.text)) < 3 {
		return false // b stands beside a, or is short: cells of a table
	}
	m := numberedRE.FindStringSubmatch(t)
	numbered := m != nil && !(isLetterPart(m[1]) && m[2] == "") && titleLike(m[3], m[2] == "") && !statesDuty(m[3])
	width := a.x1 - a.x0
	if a.size >= headingSizeRatio*b.size {
		// A full line in larger type that is no numbered title starts with
		// a drop capital.
		return numbered || width < 0.8*full
	}
	// Numbered titles one under the other are a list or a table of them.
	return numbered && width < 0.6*full && !numberedRE.MatchString(strings.TrimSpace(b.text))
}

// startsHeading reports whether a paragraph break belongs between lines
// a and b because b is a heading in larger type than a, short and not
// ending like a sentence: set with no more space above it than between
// lines, it would go on a's paragraph and not start a section.
func startsHeading(a, b line, full float64) bool {
	t := strings.TrimSpace(b.text)
	first, _ := utf8.DecodeRuneInString(t)
	// Both start at the margin: cells of a table's heading row do not.
	return b.size >= headingSizeRatio*a.size && b.x1-b.x0 < 0.8*full && !endsSentence(t) &&
		(unicode.IsUpper(first) || unicode.IsDigit(first)) && math.Abs(a.x0-b.x0) <= a.size
}

// fullWidth is the width of a full line of the page's text: lines of
// paragraphs fill it, headings and the last lines of paragraphs do not.
func fullWidth(lines []line) float64 {
	widths := make([]float64, len(lines))
	for i, l := range lines {
		widths[i] = l.x1 - l.x0
	}
	return percentile(widths, 0.9)
}
