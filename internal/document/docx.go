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
)

// maxDOCXPart bounds the uncompressed size of word/document.xml, against
// zip bombs.
const maxDOCXPart = 256 << 20

// extractDOCX reads the paragraphs of word/document.xml: headings (by their
// style) as Markdown headings, list paragraphs with a dash, table rows with
// cells separated by " | ".
func extractDOCX(data []byte) (*Document, error) {
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
	lines, err := docxLines(io.LimitReader(rc, maxDOCXPart))
	if err != nil {
		return nil, fmt.Errorf("the Word document is damaged: %v", err)
	}
	return &Document{Pages: []Page{{Number: 1, Lines: trimBlank(removeSoftHyphens(lines))}}}, nil
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
	cells  []string        // cells of the current table row
	inCell bool
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
	case "tr":
		d.cells = nil
	case "tc":
		d.inCell = true
		d.cells = append(d.cells, "")
	}
}

func (d *docxReader) end(name string) {
	switch name {
	case "p":
		d.endPara()
	case "t", "instrText":
		d.inText = false
	case "tc":
		d.inCell = false
	case "tr":
		if row := strings.Join(d.cells, " | "); strings.TrimSpace(strings.ReplaceAll(row, "|", "")) != "" {
			d.lines = append(d.lines, row)
		}
		d.cells = nil
	case "tbl":
		d.lines = append(d.lines, "")
	}
}

// endPara adds a paragraph to its table cell, or as lines: a heading, a
// list item or a paragraph.
func (d *docxReader) endPara() {
	text := strings.TrimRightFunc(d.para.String(), unicode.IsSpace)
	d.para.Reset()
	if d.inCell {
		if text != "" {
			d.cells[len(d.cells)-1] = strings.TrimSpace(d.cells[len(d.cells)-1] + " " + text)
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
