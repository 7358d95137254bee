package offlinemodel

import (
	"strings"

	"creator/internal/document"
)

// sentence is a sentence of a chunk: its text exactly as in the chunk
// (page marker lines removed) and where it starts.
type sentence struct {
	text  string
	start int
}

// sentences splits a chunk's text into the sentences a requirement is
// quoted from: a sentence goes on across a page break, and a list item is
// a sentence of its own (see document.Sentences).
func sentences(text string) []sentence {
	var out []sentence
	for _, sp := range document.Sentences(text, document.SentenceOptions{ListsEnd: true, NumbersEnd: true}) {
		raw := text[sp.Start:sp.End]
		if s := strings.TrimSpace(raw); s != "" {
			lead := len(raw) - len(strings.TrimLeft(raw, " \t\n"))
			out = append(out, sentence{text: s, start: sp.Start + lead})
		}
	}
	return out
}

// stripLead removes a list marker or clause number from the start of a
// sentence; the quote starts after it.
func stripLead(s sentence) sentence {
	for {
		end := document.ListMarkerLen(s.text)
		if end == 0 || end >= len(s.text) {
			return s
		}
		s = sentence{text: s.text[end:], start: s.start + end}
	}
}
