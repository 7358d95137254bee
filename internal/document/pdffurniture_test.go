package document

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"creator/internal/pdfwrite"
)

// extractWritten writes a PDF into a temporary folder and extracts it.
func extractWritten(t *testing.T, d *pdfwrite.Document) *Document {
	t.Helper()
	path := filepath.Join(t.TempDir(), "doc.pdf")
	if err := os.WriteFile(path, d.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := Extract(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestRunningLinesByPlace checks that running headers and footers are
// removed where reading order does not put them at a page's edge: a
// header set at the right, above the second column, is read after the
// first column, within the sentence that goes on from one column to the
// next; page numbers likewise. The text is the body's words in order,
// sentences whole also where they cross a column or a page.
func TestRunningLinesByPlace(t *testing.T) {
	t.Parallel()
	const header = "ACME HANDBOOK: OPERATIONS"
	// Sentences of different words: a line repeated on many pages at the
	// same place would run, as in any document.
	words := strings.Fields("operator engineer record change system archive backup ticket register journal shift " +
		"incident access update failure review audit report check approve store retain delete copy server network " +
		"account password token session policy control evidence sample owner deputy weekly monthly daily")
	rng := rand.New(rand.NewPCG(1, 2))
	var blocks []pdfwrite.Block
	for range 80 {
		var w []string
		for range 14 + rng.IntN(10) {
			w = append(w, words[rng.IntN(len(words))])
		}
		s := fmt.Sprintf("The %s must %s.", w[0], strings.Join(w[1:], " "))
		blocks = append(blocks, pdfwrite.Block{Text: s + " " + s})
	}
	pages := pdfwrite.Layout{Header: header, Footer: "%d", Columns: 2}.Pages(blocks)
	// Full pages only: the columns of a last page filled part of the way
	// are another matter.
	pages = pages[:len(pages)-1]
	if len(pages) < 3 {
		t.Fatalf("%d pages; the test needs text that runs over pages", len(pages))
	}
	var want []string
	for p := range pages {
		for i, tx := range pages[p].Texts {
			switch {
			case tx.S == header:
				// Right-aligned, over the second column.
				pages[p].Texts[i].X = 595 - 60 - pdfwrite.Width(header, tx.Size)
			case tx.S == fmt.Sprint(p+1):
				pages[p].Texts[i].X = 595 - 60 - pdfwrite.Width(tx.S, tx.Size) // page number at the right
			default:
				want = append(want, tx.S)
			}
		}
	}
	doc := extractWritten(t, &pdfwrite.Document{Pages: pages})
	got := strings.Fields(doc.Body())
	wantWords := strings.Fields(strings.Join(want, " "))
	for i := range min(len(got), len(wantWords)) {
		if got[i] != wantWords[i] {
			t.Fatalf("word %d is %q, want %q: …%s…", i, got[i], wantWords[i], strings.Join(got[max(0, i-8):min(len(got), i+8)], " "))
		}
	}
	if len(got) != len(wantWords) {
		t.Errorf("%d words, want %d", len(got), len(wantWords))
	}
}

// TestHeadingNotGluedToText checks that a heading set close above its
// text, with no more space than between lines, is a paragraph of its own
// and so a section, not the start of the sentence after it: in larger
// type, or numbered and much shorter than a line.
func TestHeadingNotGluedToText(t *testing.T) {
	t.Parallel()
	body := []string{
		"The operator must record every change to a system in the change log before the shift",
		"ends, and a second operator must check the record within one working day of the change.",
		"Records that cannot be checked in time are reported to the head of operations at once.",
	}
	var texts []pdfwrite.Text
	y := 760.0
	put := func(s string, size float64, font string) {
		texts = append(texts, pdfwrite.Text{X: 72, Y: y, Size: size, Font: font, S: s})
		y -= 13
	}
	put("3 Change Records", 13, pdfwrite.Bold) // larger type
	for _, l := range body {
		put(l, 10, "")
	}
	put("3.1 Retention", 10, pdfwrite.Bold) // the size of the text, numbered and short
	for _, l := range body {
		put(l, 10, "")
	}
	doc := extractWritten(t, &pdfwrite.Document{Pages: []pdfwrite.Page{{Texts: texts}}})
	text := doc.Text()
	for _, s := range Sentences(text, SentenceOptions{}) {
		if q := text[s.Start:s.End]; (strings.HasPrefix(q, "3 ") || strings.HasPrefix(q, "3.1 ")) && strings.Contains(q, "operator") {
			t.Errorf("a heading starts the sentence %q", q)
		}
	}
	chunks := ChunkText(text, 1000, wordCounter{})
	want := "3 Change Records > 3.1 Retention"
	if len(chunks) != 1 || chunks[0].Heading != "3 Change Records" || len(chunks[0].Sections) != 1 || chunks[0].Sections[0] != want {
		t.Errorf("sections of %q: %+v", text, chunks)
	}
}
