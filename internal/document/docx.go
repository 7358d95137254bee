package document

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"creator/internal/humanize"
)

// maxDOCXPart bounds the uncompressed size of word/document.xml, against
// zip bombs.
const maxDOCXPart = 256 << 20

// extractDOCX reads the paragraphs of word/document.xml: headings (by their
// style) as Markdown headings, list paragraphs with a dash, tables as
// table lines (table.go).
func extractDOCX(data []byte) (*Document, error) { return extractDOCXUpTo(data, maxDOCXPart) }

// extractDOCXUpTo is extractDOCX with the most bytes word/document.xml may
// unpack to.
func extractDOCXUpTo(data []byte, limit int64) (*Document, error) {
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
	lines, err := docxLines(&partLimit{r: rc, left: limit})
	if errors.Is(err, errPartTooLarge) {
		return nil, fmt.Errorf("the Word document's text (word/document.xml) unpacks to more than %s, the most creator reads of one part: it is not a document of text (a zip bomb?), or split it", humanize.Bytes(limit))
	}
	if err != nil {
		return nil, fmt.Errorf("the Word document is damaged: %v", err)
	}
	return &Document{Pages: []Page{{Number: 1, Lines: trimBlank(removeSoftHyphens(lines))}}}, nil
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

// docxLines reads the lines of word/document.xml.
func docxLines(r io.Reader) ([]string, error) {
	dec := xml.NewDecoder(r)
	var d docxReader
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return d.lines, nil
		}
		if err != nil {
			return nil, err
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
	lines  []string
	para   strings.Builder // text of the current paragraph
	style  string          // its style
	list   bool            // it is a list item
	inText bool            // inside a text run, not a field code
	tables []*docxTable    // the tables being read, innermost last
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
		if len(d.lines) > 0 && d.lines[len(d.lines)-1] != "" {
			d.lines = append(d.lines, "")
		}
		d.lines = append(d.lines, lines...)
		d.lines = append(d.lines, "")
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
		d.lines = append(d.lines, "", strings.Repeat("#", lvl)+" "+text, "")
	case d.list:
		d.lines = append(d.lines, "- "+text)
	default:
		// A paragraph after a list ends it: a group's heading set as a
		// paragraph ("R2: Location Services") is no part of the item
		// before it.
		if n := len(d.lines); n > 0 && strings.HasPrefix(d.lines[n-1], "- ") {
			d.lines = append(d.lines, "")
		}
		d.lines = append(d.lines, text, "")
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
