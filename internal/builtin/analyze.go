package builtin

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"creator/internal/document"
)

// sentence is a sentence of a chunk: its text exactly as in the chunk
// (page marker lines removed) and where it starts.
type sentence struct {
	text  string
	start int
}

var (
	// A list item or clause number at the start of a line: "• ", "- ",
	// "o " before a capital, "a) ", "(iv) ", "3.1 ", "1. ".
	listMarkerRE = regexp.MustCompile(`^(?:[•◦▪·*–\-]|\(?[a-z]\)|\(?[ivx]{1,4}\)|\(\d{1,2}\)|\d{1,2}\)|(?:\d{1,3}\.){1,4}\d{0,3})\s+`)
	// "o " (a second-level bullet) or a margin number ("41 ") before a
	// capital: the capital begins the sentence.
	capMarkerRE  = regexp.MustCompile(`^(?:o|\d{1,3})\s+\p{Lu}`)
	markerLineRE = regexp.MustCompile(`(?m)^--- page \d+ ---\n?`)
)

// sentences splits a chunk's text into sentences. A sentence ends at . ! ?
// followed by a space and a capital, digit, quote or bullet (not after an
// abbreviation or a number); at a colon that introduces a list; at a blank
// line; and before a line that starts a list item.
func sentences(text string) []sentence {
	var out []sentence
	from := 0
	cut := func(to int) {
		if s := strings.TrimSpace(text[from:to]); s != "" {
			lead := len(text[from:to]) - len(strings.TrimLeft(text[from:to], " \t\n"))
			out = append(out, sentence{text: s, start: from + lead})
		}
		from = to
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\n':
			rest := text[i+1:]
			next := strings.TrimLeft(rest, " \t")
			if strings.HasPrefix(next, "\n") { // blank line
				cut(i + 1)
				continue
			}
			if _, ok := document.ParsePageMarker(firstLine(next)); ok {
				continue
			}
			if listMarkerRE.MatchString(next) || capMarkerRE.MatchString(next) && strings.HasPrefix(next, "o") {
				cut(i + 1)
			}
		case c == '.' || c == '!' || c == '?' || c == ':':
			j := i + 1
			for j < len(text) && strings.IndexByte(`)"'”’`, text[j]) >= 0 {
				j++
			}
			k := j
			for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
				k++
			}
			newline := k < len(text) && text[k] == '\n'
			for k < len(text) && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n') {
				k++
			}
			if k == j || k >= len(text) {
				if k >= len(text) {
					cut(len(text))
					i = len(text)
				}
				continue
			}
			if _, ok := document.ParsePageMarker(firstLine(text[k:])); ok {
				// the sentence may go on after the page break
				continue
			}
			next, _ := utf8.DecodeRuneInString(text[k:])
			if c == ':' {
				if newline && (listMarkerRE.MatchString(text[k:]) || unicode.IsUpper(next)) {
					cut(j)
				}
				continue
			}
			if !(unicode.IsUpper(next) || unicode.IsDigit(next) || strings.ContainsRune(`"'“„(•[§`, next)) {
				continue
			}
			if c == '.' && abbreviation(text[:i], text[k:]) {
				continue
			}
			cut(j)
		}
	}
	cut(len(text))
	return out
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

// abbreviation reports whether the period before next ends an abbreviation
// ("z. B.", "Nr.", "e.g.") or an ordinal ("1. Oktober") rather than a
// sentence. A section number at the end of a sentence ("Section 5.2.8.")
// does end it.
func abbreviation(before, next string) bool {
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
		// "1. Scope" at the start of a line is a number, not an end;
		// "1. Oktober" is an ordinal; after a dotted number ("5.2.8.") the
		// sentence ends.
		if i == 0 || before[i-1] == '\n' {
			return true
		}
		if before[i-1] == '.' {
			return false
		}
		nw := strings.ToLower(strings.Trim(strings.Fields(next + " x")[0], ".,;:"))
		return months[nw]
	}
	return utf8.RuneCountInString(word) == 1 || abbreviations[strings.ToLower(word)]
}

var months = map[string]bool{
	"januar": true, "februar": true, "märz": true, "april": true, "mai": true, "juni": true, "juli": true, "august": true,
	"september": true, "oktober": true, "november": true, "dezember": true, "january": true, "february": true,
	"march": true, "may": true, "june": true, "july": true, "october": true, "december": true,
}

// stripLead removes a list marker or clause number from the start of a
// sentence; the quote starts after it.
func stripLead(s sentence) sentence {
	for {
		end := 0
		if m := listMarkerRE.FindStringIndex(s.text); m != nil {
			end = m[1]
		} else if m := capMarkerRE.FindStringIndex(s.text); m != nil {
			_, size := utf8.DecodeLastRuneInString(s.text[:m[1]])
			end = m[1] - size // keep the capital
		}
		if end == 0 || end >= len(s.text) {
			return s
		}
		s = sentence{text: s.text[end:], start: s.start + end}
	}
}

// cleanQuote is a sentence as a quote: page marker lines out, whitespace
// collapsed.
func cleanQuote(s string) string {
	return strings.Join(strings.Fields(markerLineRE.ReplaceAllString(s, " ")), " ")
}
