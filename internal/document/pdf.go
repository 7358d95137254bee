package document

import (
	"errors"
	"fmt"
	"io"

	"github.com/ledongthuc/pdf"
)

// readPDF extracts the lines of every page. The PDF library panics on some
// malformed files; a panic becomes an error, and a page that fails alone is
// kept with what could be read of it.
func readPDF(r io.ReaderAt, size int64) (pages [][]string, unmapped int, err error) {
	defer func() {
		if v := recover(); v != nil {
			pages, err = nil, fmt.Errorf("the PDF is damaged and cannot be read (%v)", v)
		}
	}()
	rd, err := pdf.NewReader(r, size)
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) {
			return nil, 0, errors.New("the PDF is encrypted and needs a password; decrypt it first (for example with qpdf --decrypt)")
		}
		return nil, 0, fmt.Errorf("not a readable PDF: %v", err)
	}
	list := pageList(rd.Trailer().Key("Root").Key("Pages"), 0, map[uint64]bool{})
	if len(list) == 0 {
		return nil, 0, errors.New("the PDF has no pages")
	}
	fonts := map[uint64]*fontInfo{}
	var buf []glyph
	for _, page := range list {
		glyphs, u := readPage(page, fonts, buf[:0])
		unmapped += u
		pages = append(pages, layoutPage(glyphs))
		buf = glyphs // reused: the page's text has been built from it
	}
	return pages, unmapped, nil
}

// maxPageTreeDepth bounds the page tree walk of damaged files.
const maxPageTreeDepth = 64

// pageList walks the page tree once, in order. (The library's Page(n) walks
// it from the root for every page, which is quadratic.) A node met again —
// a cycle in a damaged file — is skipped, so no page is read twice.
func pageList(node pdf.Value, depth int, seen map[uint64]bool) []pdf.Page {
	if depth > maxPageTreeDepth {
		return nil
	}
	if id, ok := objectID(node); ok {
		if seen[id] {
			return nil
		}
		seen[id] = true
	}
	switch node.Key("Type").Name() {
	case "Page":
		return []pdf.Page{{V: node}}
	case "Pages", "":
		kids := node.Key("Kids")
		if node.Key("Type").Name() == "" && kids.Kind() != pdf.Array {
			return []pdf.Page{{V: node}} // a page without /Type, as some writers make
		}
		var out []pdf.Page
		for i := 0; i < kids.Len(); i++ {
			out = append(out, pageList(kids.Index(i), depth+1, seen)...)
		}
		return out
	}
	return nil
}

func readPage(page pdf.Page, fonts map[uint64]*fontInfo, buf []glyph) (glyphs []glyph, unmapped int) {
	p := &pageReader{fonts: map[string]*fontInfo{}, shared: fonts, glyphs: buf}
	defer func() {
		if recover() != nil {
			glyphs, unmapped = p.glyphs, p.unmapped // keep what was read before the damage
		}
	}()
	if page.V.IsNull() {
		return nil, 0
	}
	p.run(page.V.Key("Contents"), page.Resources(), identity, 0)
	return p.glyphs, p.unmapped
}
