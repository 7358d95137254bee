// Package markdown writes text that comes from documents, the model or a
// reviewer into Markdown files (summary.md, export --format md) so that it
// renders as that text: never as HTML, a link, an image, a heading, a list,
// a table cell boundary, code or emphasis, whatever renders it (CommonMark,
// GitHub, pandoc).
package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"creator/internal/humanize"
)

// Text is s on one line (runs of white space as one space), escaped for
// Markdown: the HTML special characters as character references (&amp;
// &lt; &gt;); the characters of inline syntax (\ ` * [ ] | # ~ ^ $, and _
// unless between letters or digits) with a backslash; a line-starting
// list, quote or definition marker (- + = : and "1." or "1)") with a
// backslash too. Control characters and the bidirectional embeddings,
// overrides and isolates (U+202A–U+202E, U+2066–U+2069), which would
// reorder what a reader sees, become U+FFFD. The result can stand in a
// paragraph, a heading, a blockquote line or a table cell.
func Text(s string) string {
	s = humanize.OneLine(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case strings.ContainsRune("\\`*[]|#~^$", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '_' && !intraword(s, i):
			b.WriteString(`\_`)
		case i == 0 && strings.ContainsRune("-+=:", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case (r == '.' || r == ')') && i > 0 && leadingDigits(s[:i]) && (i+1 == len(s) || s[i+1] == ' '):
			// "1. " or "1) " would start an ordered list.
			b.WriteByte('\\')
			b.WriteRune(r)
		case Hidden(r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Hidden reports whether r is a control character or a bidirectional
// formatting character that would reorder the text around it (embeddings,
// overrides, isolates).
func Hidden(r rune) bool {
	return unicode.IsControl(r) || (r >= '\u202A' && r <= '\u202E') || (r >= '\u2066' && r <= '\u2069')
}

// Invisible reports whether r shows nothing of its own or changes how
// what is around it shows: Hidden's characters, every other format
// character (zero-width spaces and joiners U+200B–U+200D, the
// directional marks U+200E, U+200F and U+061C, the word joiner, the
// byte order mark, the soft hyphen, tags) and the line and paragraph
// separators U+2028 and U+2029. A name (a reviewer's, a file's) holds
// none of them: two names that look alike are then alike. Text keeps the
// others, which writing systems need (a zero-width non-joiner in Persian).
func Invisible(r rune) bool {
	return Hidden(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// intraword reports whether the byte at i has a letter or digit on both
// sides: an underscore there never marks emphasis (snake_case, chunk_004).
func intraword(s string, i int) bool {
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i+1:])
	return isAlnum(before) && isAlnum(after)
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// leadingDigits reports whether prefix, the text before a character at
// the start of a line, is all ASCII digits (at most nine: longer is no list
// marker).
func leadingDigits(prefix string) bool {
	if len(prefix) > 9 {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if prefix[i] < '0' || prefix[i] > '9' {
			return false
		}
	}
	return true
}
