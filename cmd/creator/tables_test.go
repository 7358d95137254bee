package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"creator/internal/evaluate"
	"creator/internal/pdfwrite"
)

// mdBlock is a block of the project's Markdown test documents: a heading,
// a paragraph or a table (rows of cells, the first its header).
type mdBlock struct {
	level int
	text  string
	rows  [][]string
}

// readMarkdown reads headings, paragraphs and pipe tables.
func readMarkdown(md string) []mdBlock {
	var out []mdBlock
	for _, l := range strings.Split(md, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "":
			out = append(out, mdBlock{})
		case strings.HasPrefix(l, "#"):
			level := len(l) - len(strings.TrimLeft(l, "#"))
			out = append(out, mdBlock{level: level, text: strings.TrimSpace(l[level:])})
		case strings.HasPrefix(l, "|"):
			if strings.Trim(l, "|-: ") == "" {
				continue // the rule under the header
			}
			var cells []string
			for _, c := range strings.Split(strings.Trim(l, "|"), "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			if n := len(out); n > 0 && out[n-1].rows != nil {
				out[n-1].rows = append(out[n-1].rows, cells)
			} else {
				out = append(out, mdBlock{rows: [][]string{cells}})
			}
		default:
			if n := len(out); n > 0 && out[n-1].level == 0 && out[n-1].rows == nil && out[n-1].text != "" {
				out[n-1].text += " " + l
			} else {
				out = append(out, mdBlock{text: l})
			}
		}
	}
	var kept []mdBlock
	for _, b := range out {
		if b.text != "" || b.rows != nil {
			kept = append(kept, b)
		}
	}
	return kept
}

// markdownHTML renders the blocks as an HTML page, tables with a <th>
// header row.
func markdownHTML(blocks []mdBlock) []byte {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body>\n")
	for _, bl := range blocks {
		switch {
		case bl.level > 0:
			tag := "h" + string(rune('0'+bl.level))
			b.WriteString("<" + tag + ">" + html.EscapeString(bl.text) + "</" + tag + ">\n")
		case bl.rows != nil:
			b.WriteString("<table>\n")
			for i, r := range bl.rows {
				cell := "td"
				if i == 0 {
					cell = "th"
				}
				b.WriteString("<tr>")
				for _, c := range r {
					b.WriteString("<" + cell + ">" + html.EscapeString(c) + "</" + cell + ">")
				}
				b.WriteString("</tr>\n")
			}
			b.WriteString("</table>\n")
		default:
			b.WriteString("<p>" + html.EscapeString(bl.text) + "</p>\n")
		}
	}
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}

// markdownDOCX renders the blocks as a Word document: headings by style,
// tables with one paragraph a cell (the header not marked as such, as
// many documents leave it). A long cell is written in two runs.
func markdownDOCX(blocks []mdBlock) []byte {
	esc := func(s string) string {
		var b bytes.Buffer
		xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	para := func(style, text string) string {
		p := "<w:p>"
		if style != "" {
			p += `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
		}
		if i := strings.Index(text, " "); i > 0 && len(text) > 40 {
			return p + `<w:r><w:t xml:space="preserve">` + esc(text[:i+1]) + `</w:t></w:r><w:r><w:t>` + esc(text[i+1:]) + `</w:t></w:r></w:p>`
		}
		return p + "<w:r><w:t>" + esc(text) + "</w:t></w:r></w:p>"
	}
	var body strings.Builder
	for _, bl := range blocks {
		switch {
		case bl.level > 0:
			body.WriteString(para("Heading"+string(rune('0'+bl.level)), bl.text))
		case bl.rows != nil:
			body.WriteString("<w:tbl>")
			for _, r := range bl.rows {
				body.WriteString("<w:tr>")
				for _, c := range r {
					body.WriteString("<w:tc>" + para("", c) + "</w:tc>")
				}
				body.WriteString("</w:tr>")
			}
			body.WriteString("</w:tbl>")
		default:
			body.WriteString(para("", bl.text))
		}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("word/document.xml")
	w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body.String() + `</w:body></w:document>`))
	zw.Close()
	return buf.Bytes()
}

// markdownPDF typesets the blocks on A4 pages: tables in columns whose
// widths follow their content, cells wrapped within their column, the
// header in bold.
func markdownPDF(blocks []mdBlock) []byte {
	const (
		size, lead   = 10.0, 13.0
		left, right  = 56.0, 539.0
		top, bottom  = 780.0, 60.0
		cellGap      = 20.0
		maxTextWidth = right - left
	)
	var pages []pdfwrite.Page
	y := top
	newPage := func() {
		pages = append(pages, pdfwrite.Page{})
		y = top
	}
	put := func(x float64, font, s string) {
		p := &pages[len(pages)-1]
		p.Texts = append(p.Texts, pdfwrite.Text{X: x, Y: y, Size: size, Font: font, S: s})
	}
	need := func(h float64) {
		if y-h < bottom {
			newPage()
		}
	}
	newPage()
	for _, bl := range blocks {
		switch {
		case bl.level > 0:
			need(3 * lead)
			y -= lead / 2
			put(left, pdfwrite.Bold, bl.text)
			y -= lead * 1.5
		case bl.rows != nil:
			// Column widths: short columns as wide as their widest cell,
			// the rest of the width to the widest column.
			n := len(bl.rows[0])
			widths := make([]float64, n)
			wide := 0
			for j := range n {
				for _, r := range bl.rows {
					if j < len(r) {
						widths[j] = max(widths[j], pdfwrite.Width(r[j], size))
					}
				}
				if widths[j] > widths[wide] {
					wide = j
				}
			}
			rest := maxTextWidth - float64(n-1)*cellGap
			for j, w := range widths {
				if j != wide {
					rest -= w
				}
			}
			// The widest column wraps, as a table's text column does.
			widths[wide] = min(widths[wide], rest, 0.5*maxTextWidth)
			for i, r := range bl.rows {
				font := pdfwrite.Regular
				if i == 0 {
					font = pdfwrite.Bold
				}
				cells := make([][]string, len(r))
				height := 1
				for j, c := range r {
					cells[j] = pdfwrite.Wrap(c, widths[j], size)
					height = max(height, len(cells[j]))
				}
				need(float64(height) * lead)
				for k := range height {
					x := left
					for j := range cells {
						if k < len(cells[j]) {
							put(x, font, cells[j][k])
						}
						x += widths[j] + cellGap
					}
					y -= lead
				}
				y -= lead / 3
			}
			y -= lead / 2
		default:
			for _, l := range pdfwrite.Wrap(bl.text, maxTextWidth, size) {
				need(lead)
				put(left, pdfwrite.Regular, l)
				y -= lead
			}
			y -= lead / 2
		}
	}
	return (&pdfwrite.Document{Pages: pages}).Bytes()
}

// TestBuiltinRequirementTables runs the built-in model on one document
// with a requirements table (ID | Requirement | Priority | Owner: rows
// with "shall", "must" and an imperative, a reference row that states no
// duty, a row with an empty cell), a glossary and a revision history,
// written as Markdown, HTML, DOCX and PDF: each table row is one
// requirement, its id the source_id, its other cells attributes named by
// the header, its text cell the quote; the other tables state none.
func TestBuiltinRequirementTables(t *testing.T) {
	t.Parallel()
	src := filepath.Join("..", "..", "testdata", "shapes", "backup-requirements.md")
	md, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	blocks := readMarkdown(string(md))
	docs := map[string][]byte{
		"backup-requirements.md":   md,
		"backup-requirements.html": markdownHTML(blocks),
		"backup-requirements.docx": markdownDOCX(blocks),
		"backup-requirements.pdf":  markdownPDF(blocks),
	}
	gold := strings.TrimSuffix(src, ".md") + ".gold.json"
	var items []evaluate.Gold
	data, err := os.ReadFile(gold)
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(data, &items)
	// The table's rows as the source states them: id, then the other
	// cells by their header.
	want := map[string]map[string]string{}
	for _, b := range blocks {
		if b.rows == nil || b.rows[0][0] != "ID" {
			continue
		}
		for _, r := range b.rows[1:] {
			attrs := map[string]string{}
			for j, c := range r {
				if j > 1 && c != "" {
					attrs[strings.ToLower(b.rows[0][j])] = c
				}
			}
			want[r[1]] = attrs
			want[r[1]]["id"] = r[0]
		}
	}
	dir := t.TempDir()
	for name, data := range docs {
		t.Run(filepath.Ext(name)[1:], func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			jobDir := runBuiltin(t, p, strings.ReplaceAll(name, ".", "-"))
			recs, _ := readRequirements(t, jobDir)
			if res := evalFile(t, recs, gold); res.Recall < 1 || res.Precision < 1 {
				t.Errorf("recall %.3f, precision %.3f (goal 1)", res.Recall, res.Precision)
			}
			assertQuotesVerbatim(t, jobDir, recs)
			rows := 0
			for _, r := range recs {
				q := r.Citations[0].Quote
				w, ok := want[q]
				if !ok {
					if r.SourceID != "" || len(r.Attributes) > 0 {
						t.Errorf("%q is no table row but has source_id %q, attributes %v", q, r.SourceID, r.Attributes)
					}
					continue
				}
				rows++
				if r.SourceID != w["id"] {
					t.Errorf("%q: source_id %q, want %q", q, r.SourceID, w["id"])
				}
				for k, v := range w {
					if k != "id" && r.Attributes[k] != v {
						t.Errorf("%q: attribute %s = %q, want %q (all: %v)", q, k, r.Attributes[k], v, r.Attributes)
					}
				}
				if len(r.Attributes) != len(w)-1 {
					t.Errorf("%q: attributes %v, want %v", q, r.Attributes, w)
				}
				if r.Text != q {
					t.Errorf("%q: text %q, want the cell's text", q, r.Text)
				}
			}
			if rows != 4 {
				t.Errorf("%d requirements from table rows, want 4", rows)
			}
		})
	}
}
