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

func docxLines(r io.Reader) ([]string, error) {
	dec := xml.NewDecoder(r)
	var (
		lines   []string
		para    strings.Builder
		style   string
		list    bool
		inText  bool
		cells   []string
		inTable int
		inCell  bool
	)
	endPara := func() {
		text := strings.TrimRightFunc(para.String(), unicode.IsSpace)
		para.Reset()
		if inCell {
			if text != "" {
				cells[len(cells)-1] = strings.TrimSpace(cells[len(cells)-1] + " " + text)
			}
			return
		}
		if strings.TrimSpace(text) == "" {
			return
		}
		switch lvl := headingOf(style); {
		case lvl > 0:
			lines = append(lines, "", strings.Repeat("#", lvl)+" "+text, "")
		case list:
			lines = append(lines, "- "+text)
		default:
			lines = append(lines, text, "")
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "p":
				para.Reset()
				style, list = "", false
			case "pStyle":
				style = attr(t, "val")
			case "numPr":
				list = true
			case "t", "instrText":
				inText = t.Name.Local == "t"
			case "tab":
				para.WriteByte('\t')
			case "br", "cr":
				if attr(t, "type") != "page" {
					para.WriteByte('\n')
				}
			case "tbl":
				inTable++
			case "tr":
				cells = nil
			case "tc":
				inCell = true
				cells = append(cells, "")
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "p":
				endPara()
			case "t", "instrText":
				inText = false
			case "tc":
				inCell = false
			case "tr":
				if row := strings.Join(cells, " | "); strings.TrimSpace(strings.ReplaceAll(row, "|", "")) != "" {
					lines = append(lines, row)
				}
				cells = nil
			case "tbl":
				inTable--
				lines = append(lines, "")
			}
		case xml.CharData:
			if inText {
				para.Write(t)
			}
		}
	}
	return lines, nil
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
