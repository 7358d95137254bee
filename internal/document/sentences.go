package document

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is a byte range of a text: from Start up to, not including, End.
type Span struct{ Start, End int }

// SentenceOptions are the rules in which cutting a text into pieces and
// quoting its sentences differ. The zero value cuts only where a sentence
// surely ends.
type SentenceOptions struct {
	// PageBreakEnds lets a page marker line after a full stop start the
	// next sentence, so that a piece starts on its page. Otherwise the
	// sentence may go on after the page break, as a quote does.
	PageBreakEnds bool
	// ListsEnd ends a sentence before a line that starts a list item, and
	// at a colon that ends a line before a list item or a capital: each
	// item is read as a statement of its own.
	ListsEnd bool
	// NumbersEnd lets a full stop after a number end a sentence ("… by
	// 2019. The …", "see Section 5.2.8."), unless the number opens a line
	// ("1. Scope") or is an ordinal before a month ("1. Oktober").
	// Otherwise a full stop after a number never ends one.
	NumbersEnd bool
}

var (
	// A list item or clause number at the start of a line: "• ", "- ",
	// "a) ", "(iv) ", "(3) ", "3) ", "3.1 ", "1. ".
	listMarkerRE = regexp.MustCompile(`^(?:[•◦▪·*–\-]|\(?[a-z]\)|\(?[ivx]{1,4}\)|\(\d{1,2}\)|\d{1,2}\)|(?:\d{1,3}\.){1,4}\d{0,3})\s+`)
	// "o " (a second-level bullet) or a margin number ("41 ") before a
	// capital: the capital begins the sentence.
	capMarkerRE = regexp.MustCompile(`^(?:o|\d{1,3})\s+\p{Lu}`)
)

// ListMarkerLen is the length of the list marker or clause number that s
// starts with, with the space after it ("• ", "a) ", "3.1 ", and "o " or a
// margin number "41 " before a capital); 0 if s starts with none.
func ListMarkerLen(s string) int {
	if m := listMarkerRE.FindStringIndex(s); m != nil {
		return m[1]
	}
	if m := capMarkerRE.FindStringIndex(s); m != nil {
		_, size := utf8.DecodeLastRuneInString(s[:m[1]])
		return m[1] - size // the capital is not part of the marker
	}
	return 0
}

// Sentences splits text into sentences. The spans cover the text exactly,
// in order: each sentence takes the white space after it, the first also
// the white space before it. A sentence ends
//   - at . ! or ? and the closing brackets and quotes after it, followed by
//     white space and a capital, a digit, an opening quote or bracket, § or
//     a bullet, unless the full stop ends an abbreviation or an initial
//     ("z. B.", "Nr.", "§§ 238 ff. HGB") or follows a number (see
//     SentenceOptions.NumbersEnd);
//   - at a blank line;
//   - at the list items opts.ListsEnd names.
func Sentences(text string, opts SentenceOptions) []Span {
	if text == "" {
		return nil
	}
	var out []Span
	from := 0
	// cut ends a sentence at the first non-blank byte from at, if there is
	// text on both sides.
	cut := func(at int) {
		for at < len(text) && isBlank(text[at]) {
			at++
		}
		if strings.TrimLeft(text[from:at], " \t\n") != "" && strings.IndexFunc(text[at:], notSpace) >= 0 {
			out = append(out, Span{from, at})
			from = at
		}
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			if lineEnds(text[i+1:], opts) {
				cut(i + 1)
			}
		case '.', '!', '?', ':':
			if at, ok := sentenceEnd(text, i, opts); ok {
				cut(at)
			}
		}
	}
	return append(out, Span{from, len(text)})
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

func notSpace(r rune) bool { return !unicode.IsSpace(r) }

// lineEnds reports whether a sentence ends before the line that rest
// begins with: a blank line, or one that starts a list item.
func lineEnds(rest string, opts SentenceOptions) bool {
	next := strings.TrimLeft(rest, " \t")
	switch {
	case strings.HasPrefix(next, "\n"):
		return true
	case !opts.ListsEnd || markerLine(next):
		return false
	}
	return listMarkerRE.MatchString(next) || strings.HasPrefix(next, "o") && capMarkerRE.MatchString(next)
}

// sentenceEnd reports whether the punctuation at text[i] ends a sentence,
// and where the white space after it begins.
func sentenceEnd(text string, i int, opts SentenceOptions) (int, bool) {
	c := text[i]
	if c == ':' && !opts.ListsEnd {
		return 0, false
	}
	j := i + 1
	for j < len(text) {
		r, size := utf8.DecodeRuneInString(text[j:])
		if !strings.ContainsRune(`)"'”’`, r) {
			break
		}
		j += size
	}
	k := j
	for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
		k++
	}
	lineEnd := k < len(text) && text[k] == '\n'
	for k < len(text) && isBlank(text[k]) {
		k++
	}
	if k == j || k >= len(text) {
		return 0, false
	}
	pageBreak := markerLine(text[k:])
	after := k // where the text goes on, past a page break
	if pageBreak && !opts.PageBreakEnds {
		// The sentence ends where the next page starts as a sentence
		// does; it goes on when the page starts in lower case.
		nl := strings.IndexByte(text[k:], '\n')
		if nl < 0 {
			return 0, false
		}
		after = k + nl
		for after < len(text) && isBlank(text[after]) {
			after++
		}
		if after >= len(text) || markerLine(text[after:]) {
			return 0, false
		}
		pageBreak = false
	}
	next, _ := utf8.DecodeRuneInString(text[after:])
	if c == ':' {
		return j, lineEnd && (listMarkerRE.MatchString(text[k:]) || unicode.IsUpper(next))
	}
	if !pageBreak && !unicode.IsUpper(next) && !unicode.IsDigit(next) && !strings.ContainsRune(`"'“„(•[§`, next) {
		return 0, false
	}
	if c == '.' && abbreviation(text[:i], text[after:], opts.NumbersEnd) {
		return 0, false
	}
	return j, true
}

// markerLine reports whether the first line of s is a page marker. Only a
// line that starts with "---" is read to its end, so that testing each full
// stop of a long line does not read the rest of it.
func markerLine(s string) bool {
	return strings.HasPrefix(strings.TrimLeftFunc(s, unicode.IsSpace), "---") && isMarker(firstLine(s))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return strings.TrimSpace(s)
}

var abbreviations = map[string]bool{
	"z": true, "b": true, "d": true, "h": true, "u": true, "a": true, "v": true, "vgl": true, "bzw": true, "ca": true,
	"nr": true, "abs": true, "art": true, "s": true, "rz": true, "tz": true, "ggf": true, "evtl": true, "usw": true,
	"etc": true, "e": true, "g": true, "i": true, "dr": true, "mr": true, "ms": true, "no": true, "vol": true,
	"fig": true, "sec": true, "cf": true, "vs": true, "st": true, "inkl": true, "bspw": true, "sog": true, "gem": true,
	"bzgl": true, "insb": true, "lit": true, "ff": true, "f": true, "al": true, "approx": true, "resp": true, "min": true,
}

// abbreviation reports whether the full stop between before and next ends
// an abbreviation ("z. B.", "Nr.", "e.g.") or a number that does not end a
// sentence (see SentenceOptions.NumbersEnd).
func abbreviation(before, next string, numbersEnd bool) bool {
	i := len(before)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(before[:i])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		i -= size
	}
	word := before[i:]
	if word == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(word)
	if unicode.IsDigit(r) {
		switch {
		case !numbersEnd || i == 0 || before[i-1] == '\n':
			return true
		case before[i-1] == '.':
			return false // a dotted number ends the sentence: "Section 5.2.8."
		}
		// The word after the full stop, read no further than its end.
		w := strings.TrimLeftFunc(next, unicode.IsSpace)
		if j := strings.IndexFunc(w, unicode.IsSpace); j >= 0 {
			w = w[:j]
		}
		nw := strings.ToLower(strings.Trim(w, ".,;:"))
		return months[nw]
	}
	return utf8.RuneCountInString(word) == 1 || abbreviations[strings.ToLower(word)]
}
