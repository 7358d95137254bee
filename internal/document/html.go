package document

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// extractHTML renders an HTML page as text: headings as Markdown headings,
// list items with a dash, tables as table lines (table.go), other blocks
// as paragraphs. Scripts, styles and the head are left out.
func extractHTML(data []byte) (*Document, error) {
	root, err := html.Parse(bytes.NewReader([]byte(decodeText(data))))
	if err != nil {
		return nil, err
	}
	w := &htmlWriter{}
	w.walk(root, 0)
	w.endBlock()
	return &Document{Pages: []Page{{Number: 1, Lines: trimBlank(removeSoftHyphens(w.lines))}}}, nil
}

type htmlWriter struct {
	lines []string
	cur   strings.Builder
	pre   int
	// heading is true while the line being written is a heading
	// element's.
	heading bool
	space   bool // whitespace seen since the last word
	inCell  bool // writing a table cell's text
	// lists is how deep in lists the writer is; marker is true while the
	// line holds only a list item's dash, and indent is that line's
	// indentation (two spaces a level below the first).
	lists  int
	marker bool
	indent string
}

var skipped = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Head: true, atom.Svg: true, atom.Iframe: true, atom.Object: true}

var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true, atom.Header: true,
	atom.Footer: true, atom.Nav: true, atom.Aside: true, atom.Blockquote: true, atom.Ul: true, atom.Ol: true,
	atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Table: true, atom.Thead: true, atom.Tbody: true,
	atom.Figure: true, atom.Figcaption: true, atom.Form: true, atom.Fieldset: true, atom.Address: true, atom.Hr: true,
	atom.Caption: true, atom.Details: true, atom.Summary: true,
}

var headingLevel = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

func (w *htmlWriter) walk(n *html.Node, depth int) {
	if depth > 512 {
		return // pathologically deep markup
	}
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
		if skipped[n.DataAtom] {
			return
		}
	}
	switch {
	case n.DataAtom == atom.Br:
		w.endLine()
	case headingLevel[n.DataAtom] > 0:
		w.endBlock()
		w.cur.WriteString(strings.Repeat("#", headingLevel[n.DataAtom]) + " ")
		w.heading = true
	case n.DataAtom == atom.Li:
		w.endLine()
		w.cur.WriteString("- ")
		w.indent = strings.Repeat("  ", max(w.lists-1, 0))
		w.marker = true
	case n.DataAtom == atom.Ul, n.DataAtom == atom.Ol:
		w.endListBlock()
		w.lists++
	case n.DataAtom == atom.Table && !layoutTable(n):
		w.table(n, depth)
		return
	case n.DataAtom == atom.Pre:
		w.endBlock()
		w.pre++
	case blocks[n.DataAtom], n.DataAtom == atom.Td, n.DataAtom == atom.Th:
		// The cells of a table that lays out a page are its blocks.
		w.endListBlock()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c, depth+1)
	}
	switch {
	case n.DataAtom == atom.Pre:
		w.endBlock()
		w.pre--
	case n.DataAtom == atom.Ul, n.DataAtom == atom.Ol:
		w.lists--
		w.endListBlock()
	case headingLevel[n.DataAtom] > 0:
		w.endBlock()
	case blocks[n.DataAtom], n.DataAtom == atom.Td, n.DataAtom == atom.Th:
		w.endListBlock()
	case n.DataAtom == atom.Li:
		w.endLine()
	}
}

// endListBlock ends a block: with a blank line outside lists; inside a
// list item with a line break, unless the item's dash is all its line
// holds yet (a paragraph as the item's text, a list nested in it).
func (w *htmlWriter) endListBlock() {
	switch {
	case w.lists == 0:
		w.endBlock()
	case !w.marker:
		w.endLine()
	}
}

// layoutTable reports whether a table lays out a page rather than holding
// data: one column only, or a cell with headings, lists, tables or more
// than two paragraphs in it.
func layoutTable(n *html.Node) bool {
	widest := 0
	var cellHasBlocks func(n *html.Node, depth int) bool
	cellHasBlocks = func(n *html.Node, depth int) bool {
		paras := 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch {
			case headingLevel[c.DataAtom] > 0, c.DataAtom == atom.Ul, c.DataAtom == atom.Ol, c.DataAtom == atom.Table:
				return true
			case c.DataAtom == atom.P || c.DataAtom == atom.Div:
				if paras++; paras > 2 {
					return true
				}
			}
			if depth < 64 && cellHasBlocks(c, depth+1) {
				return true
			}
		}
		return false
	}
	layout := false
	var rows func(n *html.Node)
	rows = func(n *html.Node) {
		for c := n.FirstChild; c != nil && !layout; c = c.NextSibling {
			if c.Type != html.ElementNode || c.DataAtom == atom.Table {
				continue
			}
			if c.DataAtom != atom.Tr {
				rows(c)
				continue
			}
			cells := 0
			for td := c.FirstChild; td != nil; td = td.NextSibling {
				if td.Type == html.ElementNode && (td.DataAtom == atom.Td || td.DataAtom == atom.Th) {
					cells++
					layout = layout || cellHasBlocks(td, 0)
				}
			}
			widest = max(widest, cells)
		}
	}
	rows(n)
	return layout || widest < 2
}

// table writes a table as table lines: its rows (those of tables nested
// in its cells go into the cell's text), the first a header when its
// cells are all <th> or it stands in <thead>.
func (w *htmlWriter) table(n *html.Node, depth int) {
	var rows [][]string
	header := false
	var walkRows func(n *html.Node, head bool)
	walkRows = func(n *html.Node, head bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || skipped[c.DataAtom] || c.DataAtom == atom.Table {
				continue
			}
			if c.DataAtom != atom.Tr {
				walkRows(c, head || c.DataAtom == atom.Thead)
				continue
			}
			var cells []string
			allTH := true
			for td := c.FirstChild; td != nil; td = td.NextSibling {
				if td.Type != html.ElementNode || td.DataAtom != atom.Td && td.DataAtom != atom.Th {
					continue
				}
				allTH = allTH && td.DataAtom == atom.Th
				cw := &htmlWriter{inCell: true}
				for k := td.FirstChild; k != nil; k = k.NextSibling {
					cw.walk(k, depth+2)
				}
				cw.endBlock()
				cells = append(cells, strings.Join(cw.lines, " "))
				// A cell spanning columns: the columns it covers stay, empty.
				for _, a := range td.Attr {
					if n, err := strconv.Atoi(strings.TrimSpace(a.Val)); a.Key == "colspan" && err == nil && n > 1 && n <= 64 {
						cells = append(cells, make([]string, n-1)...)
					}
				}
			}
			if len(rows) == 0 && len(cells) > 0 && (allTH || head) {
				header = true
			}
			rows = append(rows, cells)
		}
	}
	walkRows(n, false)
	if w.inCell {
		// A table inside a cell: its rows go into the cell's text.
		w.text(" " + nestedTableText(rows) + " ")
		return
	}
	w.endBlock()
	w.lines = append(w.lines, renderTable(rows, header)...)
	w.endBlock()
}

func (w *htmlWriter) text(s string) {
	if w.pre > 0 {
		parts := strings.Split(s, "\n")
		for i, p := range parts {
			if i > 0 {
				w.flushLine(true)
			}
			w.cur.WriteString(p)
		}
		return
	}
	words := strings.Fields(s)
	if len(words) == 0 {
		w.space = w.space || s != ""
		return
	}
	lead := strings.TrimLeftFunc(s, unicode.IsSpace) != s
	if (lead || w.space) && w.cur.Len() > 0 && !strings.HasSuffix(w.cur.String(), " ") {
		w.cur.WriteByte(' ')
	}
	w.cur.WriteString(strings.Join(words, " "))
	w.space = strings.TrimRightFunc(s, unicode.IsSpace) != s
	w.marker = false
}

func (w *htmlWriter) flushLine(keepEmpty bool) {
	line := strings.TrimRight(w.cur.String(), " ")
	if w.pre == 0 {
		line = strings.TrimSpace(line)
	}
	if !w.heading && markdownRE.MatchString(line) {
		// Only a heading element is a heading: a line of text that starts
		// with "#" (a shell prompt or comment, "# grep -i umask …") is
		// indented as Markdown writes code.
		line = "    " + line
	}
	if line != "" && w.indent != "" {
		line = w.indent + line
	}
	w.heading, w.marker, w.indent = false, false, ""
	w.cur.Reset()
	w.space = false
	if line != "" || keepEmpty {
		w.lines = append(w.lines, line)
	}
}

func (w *htmlWriter) endLine() { w.flushLine(false) }

func (w *htmlWriter) endBlock() {
	w.flushLine(false)
	if len(w.lines) > 0 && w.lines[len(w.lines)-1] != "" {
		w.lines = append(w.lines, "")
	}
}
