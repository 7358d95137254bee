package document

import (
	"bytes"
	"regexp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// extractText reads plain text or Markdown: UTF-8, UTF-16 with a byte-order
// mark, or else Windows-1252/Latin-1. Form feeds separate pages; running
// headers and footers such as an RFC's "Iyengar & Thomson  Standards Track
// [Page 12]" are removed so that sentences crossing a page read as one, and
// so are margin line numbers.
func extractText(data []byte) (*Document, error) {
	text := decodeText(data)
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	pages := splitPages(text)
	removeLineNumbers(pages)
	doc := &Document{Paged: len(pages) > 1}
	if !doc.Paged {
		for i, l := range pages[0] {
			pages[0][i] = strings.TrimRight(l, " \t")
		}
		doc.Pages = []Page{{Number: 1, Lines: trimBlank(pages[0])}}
		return doc, nil
	}
	// Plain text is not hyphenated for line breaks: a hyphen at a line end
	// belongs to the word, so lines are kept as they are.
	removeRunningLines(pages)
	doc.Pages = make([]Page, len(pages))
	for i, lines := range pages {
		for j, l := range lines {
			lines[j] = strings.TrimRight(l, " \t")
		}
		doc.Pages[i] = Page{Number: i + 1, Lines: trimBlank(lines)}
	}
	return doc, nil
}

// rfcFooterRE matches the last line of a page of an RFC or Internet-Draft:
// "Iyengar & Thomson            Standards Track                  [Page 12]".
var rfcFooterRE = regexp.MustCompile(`\[Page \d+\]\s*$`)

// splitPages splits text at form feeds; text without form feeds but with
// RFC page footers is split after each footer.
func splitPages(text string) [][]string {
	var pages [][]string
	if strings.Contains(text, "\f") {
		raw := strings.Split(text, "\f")
		// A final form feed ends the last page; it does not start another.
		if len(raw) > 1 && strings.TrimSpace(raw[len(raw)-1]) == "" {
			raw = raw[:len(raw)-1]
		}
		for _, p := range raw {
			pages = append(pages, strings.Split(p, "\n"))
		}
		return pages
	}
	lines := strings.Split(text, "\n")
	var cur []string
	for _, l := range lines {
		cur = append(cur, l)
		if rfcFooterRE.MatchString(l) {
			pages = append(pages, cur)
			cur = nil
		}
	}
	if len(pages) < 2 {
		return [][]string{lines}
	}
	if len(strings.TrimSpace(strings.Join(cur, ""))) > 0 {
		pages = append(pages, cur)
	}
	return pages
}

// decodeText turns bytes into a string by their byte-order mark, as UTF-8
// when they are valid UTF-8, and as Windows-1252 otherwise.
func decodeText(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return strings.ToValidUTF8(string(data[3:]), "\uFFFD")
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return decodeUTF16(data[2:], false)
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return decodeUTF16(data[2:], true)
	case utf8.Valid(data):
		return string(data)
	}
	r := make([]rune, len(data))
	for i, b := range data {
		r[i] = windows1252(b)
	}
	return string(r)
}

func decodeUTF16(data []byte, bigEndian bool) string {
	u := make([]uint16, len(data)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(data[2*i])<<8 | uint16(data[2*i+1])
		} else {
			u[i] = uint16(data[2*i+1])<<8 | uint16(data[2*i])
		}
	}
	return string(utf16.Decode(u))
}

// cp1252 holds the characters Windows-1252 puts at 0x80–0x9F, where Latin-1
// has control codes.
var cp1252 = [32]rune{
	'€', '\u0081', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u008d', 'Ž', '\u008f',
	'\u0090', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u009d', 'ž', 'Ÿ',
}

func windows1252(b byte) rune {
	if b >= 0x80 && b < 0xA0 {
		return cp1252[b-0x80]
	}
	return rune(b)
}
