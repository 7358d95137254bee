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
// ligatures spelled out, every dash made a hyphen and every quotation mark
// and apostrophe one and the same, soft hyphens and zero-width characters
// dropped. Offsets maps each byte of Text to a byte of the original.
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
			if invisible(r) {
				continue
			}
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
		if isHyphen(r) {
			emit('-', at[i])
		} else if rep, ok := replacements[r]; ok {
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

// invisible is true for the soft hyphen and the zero-width characters,
// which a copy may gain or lose without anyone seeing it.
func invisible(r rune) bool {
	switch r {
	case '\u00ad', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff':
		return true
	}
	return false
}

// isHyphen is true for the hyphen and every dash a typesetter or a model
// may put in its place: hyphen, non-breaking hyphen, figure dash, en and em
// dash, minus, small and full-width hyphen-minus. Treating them alike makes
// "e–mails" and "e-mails" equal.
func isHyphen(r rune) bool {
	switch r {
	case '-', '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212', '\ufe58', '\ufe63', '\uff0d':
		return true
	}
	return false
}

var replacements = map[rune]string{
	'\ufb00': "ff", '\ufb01': "fi", '\ufb02': "fl", '\ufb03': "ffi", '\ufb04': "ffl", '\ufb05': "st", '\ufb06': "st",
	// Every quotation mark and apostrophe compares equal: a model writing
	// JSON often swaps double quotes for single ones, and typesetters
	// choose freely among them.
	'"': "'", '“': "'", '”': "'", '„': "'", '‟': "'", '«': "'", '»': "'", '‹': "'", '›': "'",
	'‘': "'", '’': "'", '‚': "'", '‛': "'", '`': "'", '´': "'", '\u2032': "'", '\u2033': "'",
	'…': "...",
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
	return FindIn(Normalize(text), text, quote)
}

// FindIn is Find with text already normalised as n, for looking for
// several quotes in one text.
func FindIn(n Normalized, text, quote string) (start, end int, ok bool) {
	q := Normalize(quote).Text
	if q == "" {
		return 0, 0, false
	}
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

// resemblance is the share of words a passage must have in common with a
// quote (as an F1 score over the words of both) before it is offered as
// the passage the quote was meant to copy. Below it the passage is some
// other sentence that happens to share common words, and offering it
// leads the model to cite the wrong text.
const resemblance = 0.6

// Closest returns the passage of text most like quote, as it stands in the
// text (whitespace collapsed), and whether it resembles the whole quote:
// at least resemblance of the words of both in common. It helps the model
// correct a quote that was not copied exactly; a quote that is a
// translation, a paraphrase or a fragment of another sentence has no
// closest passage.
func Closest(text, quote string) (string, bool) {
	want := words(Normalize(quote).Text)
	if len(want) == 0 {
		return "", false
	}
	n := Normalize(text)
	have := words(n.Text)
	if len(have) == 0 {
		return "", false
	}
	bag := map[string]int{}
	for _, w := range want {
		bag[w.key]++
	}
	best, bestAt, bestLen := -1.0, 0, 0
	lo, hi := max(1, len(want)-len(want)/4), min(len(have), len(want)+len(want)/4)
	for size := lo; size <= hi; size++ {
		seen := map[string]int{}
		common := 0
		for i, w := range have {
			if seen[w.key] < bag[w.key] {
				common++
			}
			seen[w.key]++
			if i >= size {
				old := have[i-size].key
				seen[old]--
				if seen[old] < bag[old] {
					common--
				}
			}
			if i >= size-1 {
				if f1 := 2 * float64(common) / float64(size+len(want)); f1 > best {
					best, bestAt, bestLen = f1, i-size+1, size
				}
			}
		}
	}
	if best < resemblance {
		return "", false
	}
	first, last := have[bestAt], have[bestAt+bestLen-1]
	_, size := utf8.DecodeRuneInString(text[n.Offsets[last.end-1]:])
	out := Clean(text[n.Offsets[first.start] : n.Offsets[last.end-1]+size])
	if r := []rune(out); len(r) > 400 {
		out = string(r[:400]) + "…"
	}
	return out, true
}

// word is one word of a normalised text: its comparison key (lower case,
// without surrounding punctuation) and its byte span.
type word struct {
	key        string
	start, end int
}

func words(s string) []word {
	var out []word
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		if key := WordKey(s[start:end]); key != "" {
			out = append(out, word{key: key, start: start, end: end})
		}
		start = -1
	}
	for i, r := range s {
		if r == ' ' {
			flush(i)
		} else if start < 0 {
			start = i
		}
	}
	flush(len(s))
	return out
}

// WordKey is a word as compared: lower case, without the punctuation
// around it; empty for a word of punctuation only.
func WordKey(w string) string {
	return strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
}

// Ellipsis reports whether a quote leaves words out with an ellipsis
// ("…", "...", "[…]"), which a verbatim quote cannot do unless the source
// itself has one there.
func Ellipsis(quote string) bool {
	return strings.Contains(Normalize(quote).Text, "...")
}
