package document

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"creator/internal/pdfwrite"
)

// FuzzExtractPDF feeds arbitrary bytes to the PDF path: it must return text
// or an error, never panic or hang. Seeds are small PDFs of the project's
// own and damaged variants of them (testdata/fuzz/FuzzExtractPDF).
func FuzzExtractPDF(f *testing.F) {
	small := (&pdfwrite.Document{Pages: []pdfwrite.Page{{Texts: []pdfwrite.Text{
		{X: 72, Y: 700, Size: 12, S: "The operator must keep records."},
		{X: 72, Y: 680, Size: 12, S: "Die Belege sind aufzubewahren.", Rotate: 90},
		{X: 72, Y: 660, Size: 12, Font: pdfwrite.NoUnicode, S: "xx"},
	}}}}).Bytes()
	compressed := (&pdfwrite.Document{Compress: true, Pages: pdfwrite.Layout{Header: "H", Footer: "Page %d", Columns: 2}.Pages([]pdfwrite.Block{{Text: "Some text to set in two columns."}})}).Bytes()
	for _, seed := range [][]byte{small, compressed, small[:len(small)/2], []byte("%PDF-1.4\n"), []byte("%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 1 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF")} {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "fuzz.pdf")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		type result struct {
			doc *Document
			err error
		}
		done := make(chan result, 1)
		go func() {
			doc, err := Extract(p, Options{MaxBytes: 1 << 20})
			done <- result{doc, err}
		}()
		select {
		case r := <-done:
			if r.err == nil && strings.TrimSpace(r.doc.Body()) == "" {
				t.Fatal("no error, but no text either")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("extraction hangs")
		}
	})
}

// wordCounter counts tokens as words: fast enough for fuzzing, and the
// chunker's guarantees do not depend on the tokenizer.
type wordCounter struct{}

func (wordCounter) Count(s string) int { return len(strings.Fields(s)) + strings.Count(s, "\n")/4 }

// FuzzChunk checks that chunks cover any text exactly, in order, and stay
// within the limit unless a single word is longer than the limit.
func FuzzChunk(f *testing.F) {
	f.Add("# Title\n\n1. Scope\n\nThe operator must keep records. Second sentence.\n\n1.1 Detail\n\nMore text.\n", 5)
	f.Add(PageMarker(1)+"\nArticle 5\n\nText § 146 AO.\n"+PageMarker(2)+"\nMore.\n", 3)
	f.Add(strings.Repeat("x", 3000), 2)
	f.Fuzz(func(t *testing.T, text string, limit int) {
		if limit < 1 || limit > 1000 || len(text) > 1<<16 {
			return
		}
		chunks := ChunkText(text, limit, wordCounter{})
		var b strings.Builder
		for _, c := range chunks {
			if c.Tokens > limit && len(strings.Fields(c.Text)) > 1 {
				t.Fatalf("%s has %d tokens, limit %d: %q", c.ID, c.Tokens, limit, c.Text)
			}
			b.WriteString(c.Text)
		}
		if b.String() != text {
			t.Fatalf("chunks do not add up to the text")
		}
	})
}
