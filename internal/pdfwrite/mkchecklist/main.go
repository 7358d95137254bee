// Command mkchecklist typesets the project's verification checklist
// (Markdown with "| id | statement | level |" table rows) as a PDF laid out
// like a security verification standard: three columns, the level on the
// first line of each row, the table's header repeated on every page, a
// running header and page numbers. Text extraction puts the level into the
// first line of the statement, as it does for such standards.
//
//	go run ./internal/pdfwrite/mkchecklist testdata/shapes/verification-checklist.md testdata/shapes/verification-checklist.pdf
package main

import (
	"fmt"
	"os"
	"strings"

	"creator/internal/pdfwrite"
)

const (
	size    = 10.0
	lead    = 13.0
	top     = 780.0
	bottom  = 60.0
	left    = 56.0
	width   = 483.0
	textX   = 100.0 // the statement column
	textW   = 370.0
	levelX  = 505.0 // the level column
	running = "Service Verification Checklist 2.1"
)

func main() {
	os.Exit(pdfwrite.Command("mkchecklist", os.Args[1:], func(src string) *pdfwrite.Document {
		return &pdfwrite.Document{Title: running, Compress: true, Pages: typeset(src)}
	}))
}

type page struct{ texts []pdfwrite.Text }

// typeset lays the Markdown out on pages.
func typeset(md string) []pdfwrite.Page {
	var pages []*page
	var cur *page
	y := 0.0
	inTable := false
	newPage := func() {
		cur = &page{}
		pages = append(pages, cur)
		y = top
	}
	put := func(x float64, font, s string) {
		cur.texts = append(cur.texts, pdfwrite.Text{X: x, Y: y, Size: size, Font: font, S: s})
	}
	header := func() {
		put(left, pdfwrite.Bold, "#")
		put(textX, pdfwrite.Bold, "Description")
		put(levelX, pdfwrite.Bold, "Level")
		y -= lead * 1.5
	}
	need := func(lines int) {
		if cur == nil || y-float64(lines)*lead < bottom {
			newPage()
			if inTable {
				header()
			}
		}
	}
	var para []string
	flush := func() {
		if len(para) == 0 {
			return
		}
		for _, l := range pdfwrite.Wrap(strings.Join(para, " "), width, size) {
			need(1)
			put(left, pdfwrite.Regular, l)
			y -= lead
		}
		y -= lead / 2
		para = nil
	}
	newPage()
	for _, line := range strings.Split(md, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "| #"):
			flush()
			inTable = true
			need(3)
			header()
		case strings.HasPrefix(line, "|"):
			cells := strings.Split(strings.Trim(line, "|"), "|")
			id, text, level := strings.TrimSpace(cells[0]), strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2])
			for i, l := range pdfwrite.Wrap(text, textW, size) {
				// Rows may break across pages, as long tables do.
				need(1)
				if i == 0 {
					put(left, pdfwrite.Regular, id)
					if level != "" {
						put(levelX, pdfwrite.Regular, level)
					}
				}
				put(textX, pdfwrite.Regular, l)
				y -= lead
			}
		case line == "":
			flush()
			if inTable {
				inTable = false
				y -= lead / 2
			}
		case strings.HasPrefix(line, "#"):
			flush()
			need(3)
			y -= lead / 2
			put(left, pdfwrite.Bold, strings.TrimSpace(strings.TrimLeft(line, "#")))
			y -= lead * 1.5
		default:
			para = append(para, line)
		}
	}
	flush()
	var out []pdfwrite.Page
	for i, p := range pages {
		texts := append([]pdfwrite.Text{{X: left, Y: 810, Size: 8, S: running}}, p.texts...)
		texts = append(texts, pdfwrite.Text{X: 290, Y: 30, Size: 8, S: fmt.Sprintf("%d", i+1)})
		out = append(out, pdfwrite.Page{Texts: texts})
	}
	return out
}
