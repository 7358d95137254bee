package requirement

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"creator/internal/document"
)

// Normalized is text prepared for comparing quotes: page marker lines
// removed, whitespace collapsed to single spaces, a hyphen between two
// letters dropped together with a line break after it (so "Aufbewah-\nrung"
// and "Aufbewahrung" compare equal, as do "multi-factor" and "multifactor"),
// ligatures spelled out, typographic quotes and dashes made plain, soft
// hyphens dropped. Offsets maps each byte of Text to a byte of the original.
type Normalized struct {
	Text    string
	Offsets []int
}

// Normalize prepares text for quote matching.
func Normalize(s string) Normalized {
	// The text without page markers, as runes with their offsets.
	var src []rune
	var at []int
	pos := 0
	for _, line := range strings.SplitAfter(s, "\n") {
		start := pos
		pos += len(line)
		if _, ok := document.ParsePageMarker(strings.TrimSpace(line)); ok {
			src, at = append(src, ' '), append(at, start)
			continue
		}
		for i, r := range line {
			src, at = append(src, r), append(at, start+i)
		}
	}
	var b strings.Builder
	var offs []int
	emit := func(r rune, off int) {
		b.WriteRune(r)
		for range utf8.RuneLen(r) {
			offs = append(offs, off)
		}
	}
	var last rune
	space := false
	for i := 0; i < len(src); i++ {
		r := src[i]
		switch {
		case r == '\u00ad':
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case isHyphen(r) && !space && unicode.IsLetter(last):
			j := i + 1
			for j < len(src) && unicode.IsSpace(src[j]) {
				j++
			}
			if j < len(src) && unicode.IsLetter(src[j]) {
				i = j - 1 // drop the hyphen and the break after it
				continue
			}
		}
		if space {
			emit(' ', at[i])
			space = false
		}
		if rep, ok := replacements[r]; ok {
			for _, rr := range rep {
				emit(rr, at[i])
			}
		} else {
			emit(r, at[i])
		}
		last = r
	}
	return Normalized{Text: b.String(), Offsets: offs}
}

func isHyphen(r rune) bool { return r == '-' || r == '\u2010' || r == '\u2011' }

var replacements = map[rune]string{
	'\ufb00': "ff", '\ufb01': "fi", '\ufb02': "fl", '\ufb03': "ffi", '\ufb04': "ffl", '\ufb05': "st", '\ufb06': "st",
	'“': `"`, '”': `"`, '„': `"`, '‟': `"`, '«': `"`, '»': `"`, '‘': "'", '’': "'", '‚': "'", '‛': "'",
	'–': "-", '—': "-", '\u2212': "-", '…': "...", '\u00a0': " ",
}

// Clean is source text as a stored quote: page marker lines left out,
// whitespace collapsed.
func Clean(s string) string {
	var words []string
	for _, line := range strings.Split(s, "\n") {
		if _, ok := document.ParsePageMarker(strings.TrimSpace(line)); ok {
			continue
		}
		words = append(words, strings.Fields(line)...)
	}
	return strings.Join(words, " ")
}

// Find looks for quote in text as Normalize compares them and returns the
// byte range of the match in text.
func Find(text, quote string) (start, end int, ok bool) {
	q := Normalize(quote).Text
	if q == "" {
		return 0, 0, false
	}
	n := Normalize(text)
	i := strings.Index(n.Text, q)
	if i < 0 {
		return 0, 0, false
	}
	last := i + len(q) - 1
	_, size := utf8.DecodeRuneInString(text[n.Offsets[last]:])
	return n.Offsets[i], n.Offsets[last] + size, true
}

// PageAt is the page of byte offset off in a chunk's text: the nearest page
// marker before it, else first (the chunk's first page; 0 when unpaged).
func PageAt(text string, off, first int) int {
	page := first
	pos := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		if pos > off {
			break
		}
		if n, ok := document.ParsePageMarker(strings.TrimSpace(line)); ok {
			page = n
		}
		pos += len(line)
	}
	return page
}

// Closest returns the passage of text most like quote: the run of words
// of the quote's length sharing the most words with it. It helps the model
// correct a quote that was not copied exactly.
func Closest(text, quote string) string {
	words := strings.Fields(text)
	want := strings.Fields(quote)
	if len(words) == 0 || len(want) == 0 {
		return ""
	}
	bag := map[string]int{}
	for _, w := range want {
		bag[strings.ToLower(w)]++
	}
	n := min(len(want), len(words))
	best, bestAt := -1, 0
	for i := 0; i+n <= len(words); i++ {
		seen := map[string]int{}
		score := 0
		for _, w := range words[i : i+n] {
			k := strings.ToLower(w)
			if seen[k] < bag[k] {
				score++
			}
			seen[k]++
		}
		if score > best {
			best, bestAt = score, i
		}
	}
	out := strings.Join(words[bestAt:bestAt+n], " ")
	if r := []rune(out); len(r) > 400 {
		out = string(r[:400]) + "…"
	}
	return out
}
