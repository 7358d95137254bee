package document

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"creator/internal/pdfwrite"
)

// A document whose text is over MaxText is refused with its size and the
// limit: a text file before it is read, other formats once extracted.
func TestTextOverTheLimitIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	body := strings.Repeat("Records must be kept for ten years in the archive room.\n", 2000) // 114 KB
	txt := filepath.Join(dir, "big.txt")
	html := filepath.Join(dir, "big.html")
	os.WriteFile(txt, []byte(body), 0o644)
	os.WriteFile(html, []byte("<html><body><p>"+strings.ReplaceAll(body, "\n", "</p><p>")+"</p></body></html>"), 0o644)
	for _, path := range []string{txt, html} {
		_, err := Extract(path, Options{MaxText: 100_000})
		var tl *TextTooLargeError
		if !errors.As(err, &tl) || tl.Max != 100_000 || tl.Size <= 100_000 || !strings.Contains(err.Error(), "--max-text") {
			t.Errorf("%s: %v; want the text refused as too large", filepath.Base(path), err)
		}
		if _, err := Extract(path, Options{MaxText: 200_000}); err != nil {
			t.Errorf("%s within the limit: %v", filepath.Base(path), err)
		}
	}
}

// Chunking stops when its context ends, with the context's error.
func TestChunkingStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 1; i <= 400; i++ {
		b.WriteString("\n" + strings.Repeat("x", 3) + "\n\n")
		b.WriteString(strings.Repeat("Records must be kept for ten years in the archive room. ", 40) + "\n")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	chunks, err := ChunkTextContext(ctx, b.String(), 200, wordCounter{})
	if !errors.Is(err, context.Canceled) || chunks != nil {
		t.Fatalf("%d chunks, %v; want context.Canceled", len(chunks), err)
	}
	if chunks, err := ChunkTextContext(context.Background(), b.String(), 200, wordCounter{}); err != nil || len(chunks) < 10 {
		t.Fatalf("%d chunks, %v", len(chunks), err)
	}
}

// manyPages is a PDF of n pages, each with a sentence of its own.
func manyPages(n int) []byte {
	pages := make([]pdfwrite.Page, n)
	for i := range pages {
		pages[i] = pdfwrite.Page{Texts: []pdfwrite.Text{{X: 72, Y: 400 + float64(i%7)*20, Size: 11,
			S: fmt.Sprintf("Clause %d: records of kind %c are kept for %d years.", i+1, 'A'+i%26, 1+i%12)}}}
	}
	d := pdfwrite.Document{Pages: pages}
	return d.Bytes()
}

// A PDF with more pages than MaxText allows (one a pageBytes) is refused
// with its pages, the limit and the flag to raise, before any page is
// read: by the count its page tree gives, and by the pages listed when
// that count is wrong.
func TestPDFOverThePageLimitIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const limit = 10
	opts := Options{MaxText: limit * pageBytes}
	atLimit, over := filepath.Join(dir, "ten.pdf"), filepath.Join(dir, "eleven.pdf")
	os.WriteFile(atLimit, manyPages(limit), 0o644)
	os.WriteFile(over, manyPages(limit+1), 0o644)
	if doc, err := Extract(atLimit, opts); err != nil || len(doc.Pages) != limit {
		t.Fatalf("a PDF at the page limit: %v", err)
	}
	// The same file with a page tree that says it has one page.
	lying := bytes.Replace(manyPages(limit+1), []byte("/Count 11"), []byte("/Count 1 "), 1)
	liar := filepath.Join(dir, "liar.pdf")
	os.WriteFile(liar, lying, 0o644)
	for _, path := range []string{over, liar} {
		read := 0
		o := opts
		o.pageRead = func(int) { read++ }
		_, err := Extract(path, o)
		var tm *TooManyError
		if !errors.As(err, &tm) || tm.What != "pages" || tm.Max != limit || tm.Count <= limit {
			t.Fatalf("%s: %v; want it refused for its pages", filepath.Base(path), err)
		}
		for _, w := range []string{filepath.Base(path) + " has 11 pages", "more than the 10", "--max-text", "raise --max-text"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", filepath.Base(path), err, w)
			}
		}
		if read != 0 {
			t.Errorf("%s: %d pages were read before it was refused", filepath.Base(path), read)
		}
	}
}

// tinyParagraphs is a DOCX of n paragraphs of one letter each.
func tinyParagraphs(n int) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("word/document.xml")
	io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`)
	for range n {
		io.WriteString(w, `<w:p><w:r><w:t>a</w:t></w:r></w:p>`)
	}
	io.WriteString(w, `</w:body></w:document>`)
	zw.Close()
	return buf.Bytes()
}

// A DOCX of many tiny paragraphs keeps no more lines than MaxText allows
// (one a lineBytes) while it is read, counts on past them and is refused
// with its lines, the limit and the flag; one within the limit is read.
func TestDOCXOfManyTinyParagraphsIsBounded(t *testing.T) {
	t.Parallel()
	const paragraphs = 5000 // 10,000 lines: each with a blank line after it
	d := docxReader{budget: textBudget{bytes: 1 << 40, lines: 300}}
	zr, _ := zip.NewReader(bytes.NewReader(tinyParagraphs(paragraphs)), int64(len(tinyParagraphs(paragraphs))))
	rc, _ := zr.File[0].Open()
	if err := d.read(rc); err != nil {
		t.Fatal(err)
	}
	if len(d.lines) > 300 || d.count != 2*paragraphs || d.size != 3*paragraphs {
		t.Errorf("kept %d lines, counted %d lines of %d bytes; want at most 300 kept of %d lines, %d bytes", len(d.lines), d.count, d.size, 2*paragraphs, 3*paragraphs)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "tiny.docx")
	os.WriteFile(path, tinyParagraphs(paragraphs), 0o644)
	_, err := Extract(path, Options{MaxText: 4000 * lineBytes})
	var tm *TooManyError
	if !errors.As(err, &tm) || tm.What != "lines" || tm.Count != 2*paragraphs || tm.Max != 4000 ||
		!strings.Contains(err.Error(), "tiny.docx has 10,000 lines, more than the 4,000") || !strings.Contains(err.Error(), "raise --max-text") {
		t.Fatalf("%v; want the DOCX refused for its lines", err)
	}
	doc, err := Extract(path, Options{MaxText: 2 * paragraphs * lineBytes})
	if err != nil || len(doc.Pages[0].Lines) != 2*paragraphs-1 {
		t.Fatalf("within the limit: %v", err)
	}
}

// A text or Markdown source with more lines than MaxText allows is
// refused by its lines before they are read.
func TestSourceOverTheLineLimitIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		each int64
	}{{"lines.txt", lineBytes}, {"lines.md", markdownLineBytes}} {
		path := filepath.Join(dir, c.name)
		os.WriteFile(path, []byte(strings.Repeat("- a\n", 1001)), 0o644)
		_, err := Extract(path, Options{MaxText: 1000 * c.each})
		var tm *TooManyError
		if !errors.As(err, &tm) || tm.Count != 1001 || tm.Max != 1000 || !strings.Contains(err.Error(), c.name+" has 1,001 lines") {
			t.Errorf("%s: %v; want it refused for its lines", c.name, err)
		}
		if _, err := Extract(path, Options{MaxText: 1001 * c.each}); err != nil {
			t.Errorf("%s within the limit: %v", c.name, err)
		}
	}
}

// longestCounter counts words and remembers the longest text it counted.
type longestCounter struct{ longest int }

func (c *longestCounter) Count(s string) int {
	c.longest = max(c.longest, len(s))
	return len(strings.Fields(s))
}

// Chunking a document written as one line counts no text longer than a
// chunk can be (maxTokenBytes a token): the section, the paragraph and the
// line are the whole document, and counting takes memory in proportion.
func TestChunkingOneLineCountsBoundedTexts(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; b.Len() < 400_000; i++ {
		fmt.Fprintf(&b, "Record %d must be kept for ten years. ", i)
	}
	text := b.String() + "\n"
	const limit = 100
	var c longestCounter
	chunks, err := ChunkTextContext(context.Background(), text, limit, &c)
	if err != nil {
		t.Fatal(err)
	}
	if c.longest > maxTokenBytes*limit {
		t.Errorf("a text of %d bytes was counted; at most %d can be within a chunk", c.longest, maxTokenBytes*limit)
	}
	var joined strings.Builder
	for _, ch := range chunks {
		joined.WriteString(ch.Text)
		if ch.Tokens > limit || ch.StartLine != 1 || ch.EndLine != 1 {
			t.Fatalf("%s: %d tokens, lines %d-%d", ch.ID, ch.Tokens, ch.StartLine, ch.EndLine)
		}
	}
	if joined.String() != text || len(chunks) < 400_000/6/limit {
		t.Errorf("%d chunks that do not add up to the text", len(chunks))
	}
}
