// Command mkcatalog typesets the project's control catalog (plain text, one
// source line a printed line) as a PDF laid out like a control catalog of
// the fourth edition kind: control headings in bold, lettered and numbered
// items indented, a priority and baseline table in four columns, a running
// header and a page number on every page, and pages that break wherever
// the text reaches the bottom, inside a control's statement too.
//
//	go run ./internal/pdfwrite/mkcatalog testdata/shapes/catalog-rev4.txt testdata/shapes/catalog-rev4.pdf
package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"creator/internal/pdfwrite"
)

const (
	size    = 10.0
	lead    = 13.0
	top     = 780.0
	bottom  = 60.0
	left    = 56.0
	indent  = 74.0
	running = "Baseline Control Catalog, Edition 4 — Appendix F"
)

var (
	headingRE = regexp.MustCompile(`^(?:[A-Z]{2}-\d+|\d+) [A-Z]`)
	itemRE    = regexp.MustCompile(`^(?:[a-z]\.|\(\d+\)|\([a-z]\)|\d\.) `)
	columns   = []float64{left, 150, 260, 380}
)

func main() {
	os.Exit(pdfwrite.Command("mkcatalog", os.Args[1:], func(src string) *pdfwrite.Document {
		return &pdfwrite.Document{Title: running, Compress: true, Pages: typeset(src)}
	}))
}

// typeset sets each source line on a line of its own: a blank line is a
// paragraph space, a line with " | " between cells a table row.
func typeset(src string) []pdfwrite.Page {
	var pages [][]pdfwrite.Text
	y := 0.0
	newPage := func() {
		pages = append(pages, nil)
		y = top
	}
	put := func(x float64, font, s string) {
		pages[len(pages)-1] = append(pages[len(pages)-1], pdfwrite.Text{X: x, Y: y, Size: size, Font: font, S: s})
	}
	newPage()
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimRight(line, " ")
		if line == "" {
			y -= lead / 2
			continue
		}
		if y-lead < bottom {
			newPage()
		}
		switch {
		case strings.Contains(line, " | ") && strings.HasPrefix(line, "P"):
			for i, cell := range strings.Split(line, " | ") {
				put(columns[min(i, len(columns)-1)], pdfwrite.Regular, cell)
			}
		case headingRE.MatchString(line):
			put(left, pdfwrite.Bold, line)
		case itemRE.MatchString(line) || strings.HasPrefix(line, "  "):
			put(indent, pdfwrite.Regular, strings.TrimSpace(line))
		default:
			put(left, pdfwrite.Regular, line)
		}
		y -= lead
	}
	var out []pdfwrite.Page
	for i, texts := range pages {
		texts = append([]pdfwrite.Text{{X: left, Y: 810, Size: 8, S: running}}, texts...)
		texts = append(texts, pdfwrite.Text{X: 290, Y: 30, Size: 8, S: fmt.Sprintf("F-%d", i+1)})
		out = append(out, pdfwrite.Page{Texts: texts})
	}
	return out
}
