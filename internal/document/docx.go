package document

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"creator/internal/humanize"
)

// maxDOCXPart bounds the uncompressed size of word/document.xml, against
// zip bombs.
const maxDOCXPart = 256 << 20

// extractDOCXUpTo is extractDOCXWithin without a budget for the text.
func extractDOCXUpTo(data []byte, limit int64) (*Document, error) {
	return extractDOCXWithin(data, limit, Options{MaxText: math.MaxInt64})
}

// extractDOCXWithin reads the paragraphs of word/document.xml, which may
// unpack to limit bytes: headings (by their style) as Markdown headings,
// list paragraphs with a dash, tables as table lines (table.go). It keeps
// the lines of the text within opts' budget (MaxText and its lines) and
// refuses a text over it: a DOCX of 743 KB holds 7 million paragraphs of
// a letter each, whose lines alone took 1.4 GB. Over the budget, lines
// are counted, not kept.
func extractDOCXWithin(data []byte, limit int64, opts Options) (*Document, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("not a Word document: the file is not a readable zip archive (%v)", err)
	}
	var part *zip.File
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			part = f
		}
	}
	if part == nil {
		return nil, errors.New("not a Word document: word/document.xml is missing")
	}
	rc, err := part.Open()
	if err != nil {
		return nil, fmt.Errorf("the Word document is damaged: %v", err)
	}
	defer rc.Close()
	d := docxReader{budget: opts.budget()}
	err = d.read(&partLimit{r: rc, left: limit})
	if errors.Is(err, errPartTooLarge) {
		return nil, fmt.Errorf("the Word document's text (word/document.xml) unpacks to more than %s, the most creator reads of one part: it is not a document of text (a zip bomb?), or split it", humanize.Bytes(limit))
	}
	if err != nil {
		return nil, fmt.Errorf("the Word document is damaged: %v", err)
	}
	switch {
	case d.size > d.budget.bytes:
		return nil, &TextTooLargeError{Size: d.size, Max: d.budget.bytes}
	case d.count > d.budget.lines:
		return nil, opts.tooMany("lines", d.count, lineBytes)
	}
	return &Document{Pages: []Page{{Number: 1, Lines: trimBlank(d.lines)}}}, nil
}

// errPartTooLarge is a part of an archive that unpacks to more than its
// limit.
var errPartTooLarge = errors.New("part too large")

// partLimit reads at most left bytes of r, then fails with
// errPartTooLarge: an unpacked part cut off at the limit would read as
// damaged XML, not as what it is.
type partLimit struct {
	r    io.Reader
	left int64
}

func (p *partLimit) Read(b []byte) (int, error) {
	if p.left <= 0 {
		var one [1]byte
		if n, _ := p.r.Read(one[:]); n > 0 {
			return 0, errPartTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(b)) > p.left {
		b = b[:p.left]
	}
	n, err := p.r.Read(b)
	p.left -= int64(n)
	return n, err
}

// read reads the lines of word/document.xml.
func (d *docxReader) read(r io.Reader) error {
	dec := xml.NewDecoder(r)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			d.start(t)
		case xml.EndElement:
			d.end(t.Name.Local)
		case xml.CharData:
			if d.inText {
				d.para.Write(t)
			}
		}
	}
}

// docxReader turns the elements of word/document.xml into lines.
type docxReader struct {
	// lines are the text's, without soft hyphens and runs of blank lines;
	// size and count are their bytes (a line break each) and number, and
	// go on counting when they pass the budget and no more lines are kept.
	lines       []string
	size, count int64
	budget      textBudget
	// lastBlank and lastItem: the last line added is blank, is a list
	// item.
	lastBlank, lastItem bool
	para                strings.Builder // text of the current paragraph
	style               string          // its style
	list                bool            // it is a list item
	inText              bool            // inside a text run, not a field code
	tables              []*docxTable    // the tables being read, innermost last
}

// docxTable is a table being read: its rows so far and the cells of the
// current one.
type docxTable struct {
	rows   [][]string
	cells  []string
	span   int  // the columns the current cell spans
	header bool // its first row is marked as a header (repeated on each page)
}

// cell is the innermost table's current cell, or nil outside a cell.
func (d *docxReader) cell() *string {
	if len(d.tables) == 0 {
		return nil
	}
	t := d.tables[len(d.tables)-1]
	if len(t.cells) == 0 {
		return nil
	}
	return &t.cells[len(t.cells)-1]
}

func (d *docxReader) start(t xml.StartElement) {
	switch t.Name.Local {
	case "p":
		d.para.Reset()
		d.style, d.list = "", false
	case "pStyle":
		d.style = attr(t, "val")
	case "numPr":
		d.list = true
	case "t", "instrText":
		d.inText = t.Name.Local == "t"
	case "tab":
		d.para.WriteByte('\t')
	case "br", "cr":
		if attr(t, "type") != "page" {
			d.para.WriteByte('\n')
		}
	case "tbl":
		d.tables = append(d.tables, &docxTable{})
	case "tr":
		if len(d.tables) > 0 {
			d.tables[len(d.tables)-1].cells = nil
		}
	case "tblHeader":
		if v := attr(t, "val"); len(d.tables) > 0 && len(d.tables[len(d.tables)-1].rows) == 0 && v != "0" && v != "false" {
			d.tables[len(d.tables)-1].header = true
		}
	case "tc":
		if len(d.tables) > 0 {
			tbl := d.tables[len(d.tables)-1]
			tbl.cells = append(tbl.cells, "")
			tbl.span = 1
		}
	case "gridSpan":
		if n, err := strconv.Atoi(attr(t, "val")); err == nil && n > 1 && n <= 64 && len(d.tables) > 0 {
			d.tables[len(d.tables)-1].span = n
		}
	}
}

func (d *docxReader) end(name string) {
	switch name {
	case "p":
		d.endPara()
	case "t", "instrText":
		d.inText = false
	case "tc":
		// A cell merged across columns: the columns it covers stay, empty,
		// so that the row's cells stand under their headers.
		if len(d.tables) > 0 {
			tbl := d.tables[len(d.tables)-1]
			for ; tbl.span > 1; tbl.span-- {
				tbl.cells = append(tbl.cells, "")
			}
		}
	case "tr":
		if len(d.tables) > 0 {
			tbl := d.tables[len(d.tables)-1]
			if tbl.cells != nil {
				tbl.rows = append(tbl.rows, tbl.cells)
			}
			tbl.cells = nil
		}
	case "tbl":
		if len(d.tables) == 0 {
			return
		}
		tbl := d.tables[len(d.tables)-1]
		d.tables = d.tables[:len(d.tables)-1]
		if c := d.cell(); c != nil {
			// A table inside a cell: its rows go into the cell's text.
			*c = strings.TrimSpace(*c + " " + nestedTableText(tbl.rows))
			return
		}
		lines := renderTable(tbl.rows, tbl.header || headerLike(tbl.rows))
		d.add("")
		d.add(lines...)
		d.add("")
	}
}

// endPara adds a paragraph to its table cell, or as lines: a heading, a
// list item or a paragraph.
func (d *docxReader) endPara() {
	text := strings.TrimRightFunc(d.para.String(), unicode.IsSpace)
	d.para.Reset()
	if c := d.cell(); c != nil {
		if text != "" {
			*c = strings.TrimSpace(*c + " " + text)
		}
		return
	}
	if strings.TrimSpace(text) == "" {
		return
	}
	switch lvl := headingOf(d.style); {
	case lvl > 0:
		d.add("", strings.Repeat("#", lvl)+" "+text, "")
	case d.list:
		d.add("- " + text)
	default:
		// A paragraph after a list ends it: a group's heading set as a
		// paragraph ("R2: Location Services") is no part of the item
		// before it.
		if d.lastItem {
			d.add("")
		}
		d.add(text, "")
	}
}

// add adds lines to the text: blank ones only after one with text, as
// trimBlank leaves them; kept while the text is within the budget,
// counted always.
func (d *docxReader) add(lines ...string) {
	for _, l := range lines {
		l = strings.ReplaceAll(l, "\u00ad", "")
		blank := strings.TrimSpace(l) == ""
		if blank && (d.count == 0 || d.lastBlank) {
			continue
		}
		if blank {
			l = ""
		}
		d.lastBlank, d.lastItem = blank, strings.HasPrefix(l, "- ")
		d.size += int64(len(l)) + 1
		d.count++
		if d.size <= d.budget.bytes && d.count <= d.budget.lines {
			d.lines = append(d.lines, l)
		}
	}
}

func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// headingOf returns the level of a heading paragraph style: Heading1,
// Title, and the German style ids Überschrift1 (written "berschrift1").
func headingOf(style string) int {
	s := strings.ToLower(style)
	if s == "title" || s == "titel" {
		return 1
	}
	for _, prefix := range []string{"heading", "berschrift", "überschrift"} {
		if rest, ok := strings.CutPrefix(s, prefix); ok {
			if n, err := strconv.Atoi(rest); err == nil && n >= 1 && n <= 9 {
				return n
			}
		}
	}
	return 0
}
