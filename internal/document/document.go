// Package document turns source documents (PDF, plain text, Markdown, HTML,
// DOCX) into text the agent can read and cite, and splits that text into
// chunks along the document's structure.
//
// The text is rendered with one marker line per page of a paged document:
//
//	--- page 12 ---
//
// Running headers, footers and page numbers are removed, and words divided
// at line ends are joined, so sentences that cross a line or a page read as
// one.
package document

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"unicode"

	"creator/internal/humanize"
)

// DefaultMaxBytes is the largest document accepted by default.
const DefaultMaxBytes = 200 << 20

// Formats.
const (
	FormatPDF      = "pdf"
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatHTML     = "html"
	FormatDOCX     = "docx"
)

// Extensions are the file name extensions of the documents a folder is
// searched for (creator batch): those Extract reads by their name, and the
// usual names of text and Markdown. A file given by name is read whatever
// its extension; Extract tells its format from its content.
func Extensions() []string {
	return []string{".pdf", ".docx", ".html", ".htm", ".xhtml", ".txt", ".text", ".md", ".markdown"}
}

// Document is the text of a source document, page by page. Documents that
// have no pages (HTML, DOCX, text without form feeds) have one page and are
// rendered without page markers.
type Document struct {
	Format string
	Pages  []Page
	Paged  bool
	// Notes are things a reader of the text should know, e.g. glyphs that
	// could not be turned into text.
	Notes []string
}

// Page is one page: lines of text, blank strings between paragraphs.
type Page struct {
	Number int
	Lines  []string
}

// Options of Extract.
type Options struct {
	MaxBytes int64 // default DefaultMaxBytes
	// MaxText is the most text a document may give, in bytes of UTF-8;
	// default DefaultMaxText. A larger text is refused before anything
	// is done with it (chunks, an index), which would take memory and
	// time in proportion.
	MaxText int64
	// Workers is how many pages of a PDF are read at once; 0 means one per
	// CPU (GOMAXPROCS). The text does not depend on it.
	Workers int
	// Password opens an encrypted PDF that needs one (the user or the
	// owner password). A PDF restricted by an owner password only opens
	// without it, as in every reader.
	Password string

	// pageRead, when set, hears of each PDF page read (its index); for
	// tests that count the work done after a cancellation.
	pageRead func(i int)
}

func (o Options) maxBytes() int64 {
	if o.MaxBytes > 0 {
		return o.MaxBytes
	}
	return DefaultMaxBytes
}

func (o Options) maxText() int64 {
	if o.MaxText > 0 {
		return o.MaxText
	}
	return DefaultMaxText
}

// DefaultMaxText is the most text a document may give by default: 32 MB,
// about 8 million tokens.
const DefaultMaxText = 32_000_000

// TextTooLargeError is a document whose text is over Options.MaxText.
// Size is the text's size, or the file's when that alone is over the limit.
type TextTooLargeError struct {
	Name      string
	Size, Max int64
}

func (e *TextTooLargeError) Error() string {
	return fmt.Sprintf("the text of %s is %s, more than the %s allowed (--max-text)", e.Name, humanize.Bytes(e.Size), humanize.Bytes(e.Max))
}

// A document's pages and lines take memory by their number, whatever
// their text: a PDF's page its objects and laid-out lines, a line its
// place in every list of lines the text goes through (the extraction's,
// the chunker's, the evidence survey's), a Markdown line its syntax tree
// and the page it renders to. So they count towards MaxText as well: a
// PDF may have a page for each pageBytes of it, a text a line for each
// lineBytes, a Markdown source a line for each markdownLineBytes (100,000
// pages, 2 million lines, 500,000 lines of Markdown at the default 32 MB).
const (
	pageBytes         = 320
	lineBytes         = 16
	markdownLineBytes = 64
)

func (o Options) maxPages() int64 { return o.maxText() / pageBytes }
func (o Options) maxLines() int64 { return o.maxText() / lineBytes }

// TooManyError is a document with more pages or lines than MaxText
// allows (Options.MaxText).
type TooManyError struct {
	Name string
	What string // "pages", "lines"
	// Count is how many the document has; Max is the most MaxText
	// allows, one for each Each bytes of it.
	Count, Max, MaxText, Each int64
}

func (e *TooManyError) Error() string {
	one := strings.TrimSuffix(e.What, "s")
	return fmt.Sprintf("%s has %s %s, more than the %s that --max-text allows at %s (one %s for each %d bytes of it); raise --max-text to read it",
		e.Name, humanize.Int(int(e.Count)), e.What, humanize.Int(int(e.Max)), humanize.Bytes(e.MaxText), one, e.Each)
}

// tooMany is the error of a document with count of what, more than
// allowed at each bytes of MaxText apiece; its name is set by
// ExtractContext.
func (o Options) tooMany(what string, count, each int64) *TooManyError {
	return &TooManyError{What: what, Count: count, Max: o.maxText() / each, MaxText: o.maxText(), Each: each}
}

// textBudget is the most text, in bytes, and the most lines an
// extraction keeps before it stops keeping them (and counts on, to say
// how many there are).
type textBudget struct{ bytes, lines int64 }

func (o Options) budget() textBudget { return textBudget{bytes: o.maxText(), lines: o.maxLines()} }

func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// Extract reads the document at path. The format comes from the content,
// checked against the file name: a file named .pdf that is not a PDF is an
// error, not a guess.
func Extract(path string, opts Options) (*Document, error) {
	return ExtractContext(context.Background(), path, opts)
}

// ExtractContext is Extract that stops, with ctx's error, when ctx ends:
// a PDF between two pages, other formats before and after their one pass.
func ExtractContext(ctx context.Context, path string, opts Options) (*Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	max := opts.maxBytes()
	name := filepath.Base(path)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist", path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	switch {
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a folder, not a document", name)
	case fi.Size() == 0:
		return nil, fmt.Errorf("%s is empty", name)
	case fi.Size() > max:
		return nil, fmt.Errorf("%s is %s; documents over %s are not read", name, humanize.Bytes(fi.Size()), humanize.Bytes(max))
	}
	head := make([]byte, 1024)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	format, err := detect(name, head)
	if err != nil {
		return nil, err
	}
	if (format == FormatText || format == FormatMarkdown) && fi.Size() > opts.maxText() {
		// A text file's text is its bytes: refused before it is read.
		return nil, &TextTooLargeError{Name: name, Size: fi.Size(), Max: opts.maxText()}
	}
	var doc *Document
	switch format {
	case FormatPDF:
		doc, err = extractPDF(ctx, f, fi.Size(), opts)
	default:
		data, rerr := io.ReadAll(io.NewSectionReader(f, 0, fi.Size()))
		if rerr != nil {
			return nil, rerr
		}
		if err := sourceLines(format, data, opts); err != nil {
			err.Name = name
			return nil, err
		}
		switch format {
		case FormatDOCX:
			doc, err = extractDOCXWithin(data, maxDOCXPart, opts)
		case FormatHTML:
			doc, err = extractHTML(data)
		case FormatMarkdown:
			doc, err = extractMarkdown(data)
		default:
			doc, err = extractText(data)
		}
	}
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	var tl *TextTooLargeError
	var tm *TooManyError
	switch {
	case errors.As(err, &tl):
		tl.Name = name
		return nil, tl
	case errors.As(err, &tm):
		tm.Name = name
		return nil, tm
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	doc.Format = format
	size, lines := doc.textSize()
	switch {
	case size > opts.maxText():
		return nil, &TextTooLargeError{Name: name, Size: size, Max: opts.maxText()}
	case lines > opts.maxLines():
		err := opts.tooMany("lines", lines, lineBytes)
		err.Name = name
		return nil, err
	case !doc.hasText():
		return nil, fmt.Errorf("%s: no text could be extracted%s", name, emptyHint(doc))
	}
	return doc, nil
}

// sourceLines refuses a text or Markdown source with more lines than
// opts allow, before it is read into lines or parsed.
func sourceLines(format string, data []byte, opts Options) *TooManyError {
	each := int64(0)
	switch format {
	case FormatText:
		each = lineBytes
	case FormatMarkdown:
		each = markdownLineBytes
	default:
		return nil
	}
	lines := int64(bytes.Count(data, []byte{'\n'}))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		lines++
	}
	if lines > opts.maxText()/each {
		return opts.tooMany("lines", lines, each)
	}
	return nil
}

// textSize is the size of the document's text without page markers and
// its number of lines, counted without building it.
func (d *Document) textSize() (size, lines int64) {
	for _, p := range d.Pages {
		for _, l := range p.Lines {
			size += int64(len(l)) + 1
		}
		lines += int64(len(p.Lines))
	}
	return size, lines
}

// hasText reports whether a line of the document holds more than white
// space, without building its text.
func (d *Document) hasText() bool {
	for _, p := range d.Pages {
		for _, l := range p.Lines {
			if strings.TrimSpace(l) != "" {
				return true
			}
		}
	}
	return false
}

func emptyHint(doc *Document) string {
	if doc.Format == FormatPDF {
		if len(doc.Notes) > 0 {
			return " (" + strings.Join(doc.Notes, "; ") + ")"
		}
		return ": the PDF has no text layer — is it scanned? Run it through OCR first (for example ocrmypdf)"
	}
	return ""
}

// detect decides the format from the content and the file name.
func detect(name string, head []byte) (string, error) {
	ext := strings.ToLower(filepath.Ext(name))
	isPDF := bytes.Contains(head, []byte("%PDF-"))
	isZip := bytes.HasPrefix(head, []byte("PK\x03\x04"))
	isOLE := bytes.HasPrefix(head, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1})
	trimmed := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(string(head), "\ufeff")))
	isHTML := strings.HasPrefix(trimmed, "<!doctype html") || strings.HasPrefix(trimmed, "<html") ||
		(strings.HasPrefix(trimmed, "<") && strings.Contains(trimmed, "<body"))
	switch ext {
	case ".pdf":
		if !isPDF {
			return "", fmt.Errorf("%s is named .pdf but is not a PDF (it starts with %s)", name, describeHead(head))
		}
		return FormatPDF, nil
	case ".docx":
		if isOLE {
			return "", fmt.Errorf("%s is encrypted or in the old Word format; save it as an unprotected .docx", name)
		}
		if !isZip {
			return "", fmt.Errorf("%s is named .docx but is not a Word document (it starts with %s)", name, describeHead(head))
		}
		return FormatDOCX, nil
	case ".doc", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".rtf", ".epub":
		return "", fmt.Errorf("%s: %s files are not supported; convert it to PDF, DOCX, HTML or text", name, ext)
	case ".html", ".htm", ".xhtml":
		return FormatHTML, nil
	case ".md", ".markdown", ".mdown", ".mkd":
		if !isPDF && !isZip && !isOLE && !looksBinary(head) {
			return FormatMarkdown, nil
		}
	}
	switch {
	case isPDF:
		return FormatPDF, nil
	case isZip:
		return FormatDOCX, nil
	case isHTML:
		return FormatHTML, nil
	case isOLE:
		return "", fmt.Errorf("%s is an old Office document; convert it to PDF or DOCX", name)
	case looksBinary(head):
		return "", fmt.Errorf("%s is not a text document (it starts with %s)", name, describeHead(head))
	}
	return FormatText, nil
}

// looksBinary is true for content with NUL bytes that is not UTF-16 text.
func looksBinary(head []byte) bool {
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		return false
	}
	return bytes.IndexByte(head, 0) >= 0
}

func describeHead(head []byte) string {
	if len(head) > 16 {
		head = head[:16]
	}
	return strconv.Quote(string(head))
}

// PageMarker is the line that starts page n in rendered text.
func PageMarker(n int) string { return "--- page " + strconv.Itoa(n) + " ---" }

var pageMarkerRE = regexp.MustCompile(`^--- page (\d+) ---$`)

// ParsePageMarker returns the page number of a marker line.
func ParsePageMarker(line string) (int, bool) {
	m := pageMarkerRE.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// Text renders the document: lines, with a page marker before each page of
// a paged document.
func (d *Document) Text() string {
	var b strings.Builder
	for _, p := range d.Pages {
		if d.Paged {
			b.WriteString(PageMarker(p.Number))
			b.WriteByte('\n')
		}
		for _, l := range p.Lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Body is the text without page markers.
func (d *Document) Body() string {
	var b strings.Builder
	for _, p := range d.Pages {
		for _, l := range p.Lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// finish runs the steps every paged text goes through: running lines out
// (and the lines furniture gives by page, wherever they stand), divided
// words joined, blank-line runs collapsed.
func finish(pages [][]string, furniture [][]int) []Page {
	removeRunningLinesOf(pages, furniture)
	dehyphenate(pages)
	out := make([]Page, len(pages))
	for i, lines := range pages {
		for j, l := range lines {
			lines[j] = strings.TrimRightFunc(l, unicode.IsSpace)
		}
		out[i] = Page{Number: i + 1, Lines: trimBlank(lines)}
	}
	return out
}

func extractPDF(ctx context.Context, r io.ReaderAt, size int64, opts Options) (*Document, error) {
	read, err := readPDF(ctx, r, size, opts.workers(), opts.Password, opts.pageRead, opts.maxPages())
	var tm *TooManyError
	if errors.As(err, &tm) {
		return nil, opts.tooMany("pages", tm.Count, pageBytes)
	}
	if err != nil {
		return nil, err
	}
	doc := &Document{Paged: true, Pages: finish(read.lines, read.furniture)}
	if read.unmapped > 0 {
		doc.Notes = append(doc.Notes, fmt.Sprintf("%s glyphs use fonts without a Unicode map and could not be turned into text", humanize.Int(read.unmapped)))
	}
	if read.repaired {
		doc.Notes = append(doc.Notes, "the PDF's cross-reference table is damaged (a download cut off, say); it was rebuilt from the objects in the file, as PDF readers do")
	}
	if read.unreadable > 0 {
		doc.Notes = append(doc.Notes, fmt.Sprintf("the content of %s could not be read: the PDF is damaged", humanize.Plural(read.unreadable, "page")))
	}
	return doc, nil
}

// ErrNotDocument is wrapped by errors about content that is no document.
var ErrNotDocument = errors.New("not a document")
