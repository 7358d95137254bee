package document

import (
	"bytes"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// extractHTML renders an HTML page as text: headings as Markdown headings,
// list items with a dash, table rows with cells separated by " | ", other
// blocks as paragraphs. Scripts, styles and the head are left out.
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
	case n.DataAtom == atom.Tr:
		w.endLine()
	case n.DataAtom == atom.Td || n.DataAtom == atom.Th:
		if strings.TrimSpace(w.cur.String()) != "" {
			w.cur.WriteString(" | ")
		}
	case n.DataAtom == atom.Pre:
		w.endBlock()
		w.pre++
	case blocks[n.DataAtom]:
		w.endBlock()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c, depth+1)
	}
	switch {
	case n.DataAtom == atom.Pre:
		w.endBlock()
		w.pre--
	case headingLevel[n.DataAtom] > 0, blocks[n.DataAtom]:
		w.endBlock()
	case n.DataAtom == atom.Li, n.DataAtom == atom.Tr:
		w.endLine()
	}
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
	w.heading = false
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
