package pdfwrite

import (
	"fmt"
	"strings"
)

// Block is a heading or a paragraph to typeset.
type Block struct {
	Heading bool
	Text    string
}

// Layout sets blocks on A4 pages: one or two columns, a running header and
// a footer with the page number on every page. Words may carry soft
// hyphens (U+00AD) where they can be divided at a line end; a divided word
// gets a visible hyphen, as typesetting programs do.
type Layout struct {
	Header  string
	Footer  string // with one %d for the page number, e.g. "Page %d"
	Size    float64
	Columns int
}

const (
	pageW, pageH = 595.0, 842.0
	margin       = 60.0
	gutter       = 24.0
)

// Pages typesets the blocks.
func (l Layout) Pages(blocks []Block) []Page {
	size := l.Size
	if size == 0 {
		size = 10
	}
	cols := max(l.Columns, 1)
	colW := (pageW - 2*margin - float64(cols-1)*gutter) / float64(cols)
	lead := size * 1.3
	top, bottom := pageH-margin-2*lead, margin+2*lead

	var pages []Page
	var cur *Page
	col, y := 0, top
	newPage := func() {
		pages = append(pages, Page{})
		cur = &pages[len(pages)-1]
		col, y = 0, top
	}
	newPage()
	advance := func(h float64) {
		if y-h < bottom {
			col++
			y = top
			if col >= cols {
				newPage()
			}
		}
	}
	for _, b := range blocks {
		fsize, font := size, Regular
		if b.Heading {
			fsize, font = size+2, Bold
			advance(3 * lead)
			y -= lead * 0.6
		}
		for _, line := range wrap(b.Text, colW, fsize) {
			advance(lead)
			x := margin + float64(col)*(colW+gutter)
			cur.Texts = append(cur.Texts, Text{X: x, Y: y, Size: fsize, Font: font, S: line})
			y -= lead
		}
		y -= lead * 0.7 // paragraph space
	}
	for i := range pages {
		if l.Header != "" {
			pages[i].Texts = append(pages[i].Texts, Text{X: margin, Y: pageH - margin + 10, Size: size - 2, S: l.Header})
		}
		if l.Footer != "" {
			pages[i].Texts = append(pages[i].Texts, Text{X: pageW / 2, Y: margin - 20, Size: size - 2, S: fmt.Sprintf(l.Footer, i+1)})
		}
	}
	return pages
}

// Wrap breaks text into lines of at most width points at size, as Layout
// sets its paragraphs (for documents laid out by hand, such as tables).
func Wrap(text string, width, size float64) []string { return wrap(text, width, size) }

// wrap breaks text into lines of at most width points, dividing words at
// soft hyphens when that fills a line better.
func wrap(text string, width, size float64) []string {
	var lines []string
	var cur string
	for _, word := range strings.Fields(text) {
		plain := strings.ReplaceAll(word, "\u00ad", "")
		cand := strings.TrimSpace(cur + " " + plain)
		if Width(cand, size) <= width {
			cur = cand
			continue
		}
		// Try to divide the word at its last soft hyphen that still fits.
		parts := strings.Split(word, "\u00ad")
		placed := false
		for k := len(parts) - 1; k >= 1 && cur != ""; k-- {
			head := strings.Join(parts[:k], "") + "-"
			if Width(cur+" "+head, size) <= width {
				lines = append(lines, cur+" "+head)
				cur = strings.Join(parts[k:], "")
				placed = true
				break
			}
		}
		if placed {
			continue
		}
		if cur != "" {
			lines = append(lines, cur)
		}
		cur = plain
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}
