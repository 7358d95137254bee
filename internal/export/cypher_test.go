package export

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"creator/internal/requirement"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestCypherString(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"", `''`},
		{"plain", `'plain'`},
		{"it's", `'it\'s'`},
		{`say "hi"`, `'say "hi"'`},
		{`C:\dir\`, `'C:\\dir\\'`},
		{`\'`, `'\\\''`},
		{"two\nlines", `'two\nlines'`},
		{"crlf\r\n", `'crlf\u000D\n'`},
		{"tab\there", `'tab\u0009here'`},
		{"nul\x00bell\x07esc\x1bdel\x7f", `'nul\u0000bell\u0007esc\u001Bdel\u007F'`},
		{"nel\u0085ls\u2028ps\u2029", `'nel\u0085ls\u2028ps\u2029'`},
		{"Änderungen dürfen nicht gelöscht werden – §146", `'Änderungen dürfen nicht gelöscht werden – §146'`},
		{"日本語 «quotes» ‚low‘", `'日本語 «quotes» ‚low‘'`},
		{"emoji 📄✅ and 👩‍💻", `'emoji 📄✅ and 👩‍💻'`},
		{"semi; // not a comment /* */", `'semi; // not a comment /* */'`},
		{"\\u0041 stays text", `'\\u0041 stays text'`},
	} {
		got := cypherString(c.in)
		if got != c.want {
			t.Errorf("cypherString(%q) = %s, want %s", c.in, got, c.want)
		}
		toks, err := tokenize(got)
		if err != nil || len(toks) != 1 || toks[0].kind != tokString || toks[0].value != c.in {
			t.Errorf("%s does not read back as %q: %v %v", got, c.in, toks, err)
		}
	}
	// Bytes that are not UTF-8 cannot be kept; the output stays UTF-8.
	if got := cypherString("bad\xff\xfebyte"); got != "'bad\uFFFD\uFFFDbyte'" {
		t.Errorf("invalid UTF-8: %q", got)
	}
}

func TestCypherFloat(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]string{0: "0.0", 1: "1.0", 0.92: "0.92", 0.5: "0.5", 0.333: "0.333"} {
		if got := cypherFloat(in); got != want {
			t.Errorf("cypherFloat(%v) = %s, want %s", in, got, want)
		}
	}
}

// tricky is the sample with a requirement whose every field needs
// escaping, cited twice: in a section and in a chunk without one, and
// rejected by a reviewer.
func tricky() Source {
	src := sample()
	src.Records = append(src.Records, requirement.Record{
		ID: "REQ-005", Title: "Quote 'single' and \"double\"", Text: "Line one\nline two\twith a tab, a backslash \\ and NUL \x00.",
		Type: "permission", Category: "non_functional", Priority: "low", Frameworks: []string{"GoBD", "ISO 27001 §A.8", "日本"},
		Citations: []requirement.Citation{
			{Document: "GoBD.pdf", Chunk: "chunk_003", Page: 9, Quote: "Änderungen sind zu protokollieren."},
			{Document: "memo.txt", Chunk: "chunk_004", Quote: "The archive — 📄 — should be checked; it's 'due'."},
		},
		Confidence: 1, Rationale: "ends with a backslash \\",
		Review: &requirement.Review{Status: requirement.Rejected, Note: "not 'a' duty \\ at all", At: "2026-11-23T10:00:00Z"},
	})
	return src
}

func TestCypherGolden(t *testing.T) {
	t.Parallel()
	got, err := Render("cypher", sample())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "sample.cypher")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the Cypher export differs from %s (go test -update to rewrite):\n%s", path, got)
	}
}

func TestCypherStatements(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]Source{"sample": sample(), "tricky": tricky(), "hostile": hostile()} {
		out := Cypher(src)
		if !bytes.Equal(out, Cypher(src)) {
			t.Errorf("%s: two exports of the same source differ", name)
		}
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		var literals []string
		for i, line := range lines {
			toks, err := statement(line)
			if err != nil {
				t.Fatalf("%s: line %d: %v: %s", name, i+1, err, line)
			}
			// Only MERGE and SET change the graph (and indexes that exist
			// once): loading twice changes nothing.
			first := toks[0].text + " " + toks[1].text
			if first != "MERGE (" && !strings.Contains(line, " IF NOT EXISTS ") {
				t.Errorf("%s: line %d is not a MERGE: %s", name, i+1, line)
			}
			for _, tk := range toks {
				if tk.kind == tokWord && slices.Contains([]string{"CREATE", "DELETE", "DETACH", "REMOVE"}, strings.ToUpper(tk.text)) && first == "MERGE (" {
					t.Errorf("%s: line %d uses %s: %s", name, i+1, tk.text, line)
				}
				if tk.kind == tokString {
					literals = append(literals, tk.value)
				}
			}
		}
		// Every value comes back from its literal.
		for _, r := range src.Records {
			want := []string{r.ID, r.Title, r.Text, r.Type, r.Category, r.Priority, r.Rationale}
			want = append(want, r.Frameworks...)
			for _, c := range r.Citations {
				want = append(want, c.Document, c.Chunk, c.Quote)
			}
			for _, w := range want {
				if !slices.Contains(literals, w) {
					t.Errorf("%s: no literal reads back as %q", name, w)
				}
			}
		}
	}
}

func TestCypherGraph(t *testing.T) {
	t.Parallel()
	src := tricky()
	out := Cypher(src)
	g := newGraph()
	if err := g.load(out); err != nil {
		t.Fatal(err)
	}
	once := g.String()
	if err := g.load(out); err != nil {
		t.Fatal(err)
	}
	if twice := g.String(); twice != once {
		t.Errorf("loading twice changes the graph:\n%s\nthen:\n%s", once, twice)
	}

	var docs, sections []string
	for _, n := range g.nodes {
		switch n.label {
		case "Document":
			docs = append(docs, n.props["name"].(string))
		case "Section":
			sections = append(sections, fmt.Sprintf("%s: %s (%s)", n.props["document"], n.props["path"], n.props["title"]))
		}
	}
	sort.Strings(docs)
	sort.Strings(sections)
	if want := []string{"GoBD.pdf", "memo.txt"}; !reflect.DeepEqual(docs, want) {
		t.Errorf("documents %q", docs)
	}
	wantSections := []string{
		"GoBD.pdf: 3 Aufbewahrung (3 Aufbewahrung)",
		"GoBD.pdf: 3 Aufbewahrung > 3.1 Belege (3.1 Belege)",
		"GoBD.pdf: 3 Aufbewahrung > 3.2 Unveränderbarkeit (3.2 Unveränderbarkeit)",
	}
	if !reflect.DeepEqual(sections, wantSections) {
		t.Errorf("sections:\n%s", strings.Join(sections, "\n"))
	}

	var rels []string
	for _, r := range g.rels {
		from, to := g.nodes[r.from], g.nodes[r.to]
		rels = append(rels, fmt.Sprintf("%s -%s %v-> %s", describe(from), r.label, r.props, describe(to)))
	}
	sort.Strings(rels)
	want := []string{
		`REQ-001 -CITES map[chunk:chunk_001 page:4 quote:Rechnungen sind aufzubewahren.]-> 3 Aufbewahrung > 3.1 Belege`,
		`REQ-002 -CITES map[chunk:chunk_002 page:5 quote:Aufzeichnungen dürfen nicht gelöscht werden.]-> 3 Aufbewahrung > 3.2 Unveränderbarkeit`,
		`REQ-003 -CITES map[chunk:chunk_003 page:9 quote:Änderungen sind zu protokollieren.]-> 3 Aufbewahrung > 3.2 Unveränderbarkeit`,
		`REQ-004 -CITES map[chunk:chunk_004 quote:The archive should be checked.]-> memo.txt`,
		`REQ-005 -CITES map[chunk:chunk_003 page:9 quote:Änderungen sind zu protokollieren.]-> 3 Aufbewahrung > 3.2 Unveränderbarkeit`,
		`REQ-005 -CITES map[chunk:chunk_004 quote:The archive — 📄 — should be checked; it's 'due'.]-> memo.txt`,
		`3 Aufbewahrung -IN map[]-> GoBD.pdf`,
		`3 Aufbewahrung > 3.1 Belege -IN map[]-> 3 Aufbewahrung`,
		`3 Aufbewahrung > 3.2 Unveränderbarkeit -IN map[]-> 3 Aufbewahrung`,
	}
	sort.Strings(want)
	if !reflect.DeepEqual(rels, want) {
		t.Errorf("relationships:\n%s", strings.Join(rels, "\n"))
	}

	// The requirements with every property, typed as Cypher reads them.
	n := 0
	for _, node := range g.nodes {
		if node.label != "Requirement" {
			continue
		}
		n++
		i := slices.IndexFunc(src.Records, func(r requirement.Record) bool { return r.ID == node.props["id"] })
		r := src.Records[i]
		frameworks := []any{}
		for _, f := range r.Frameworks {
			frameworks = append(frameworks, f)
		}
		wantProps := map[string]any{"job": "gobd", "id": r.ID, "title": r.Title, "text": r.Text, "type": r.Type, "category": r.Category,
			"priority": r.Priority, "frameworks": frameworks, "confidence": r.Confidence, "rationale": r.Rationale,
			"review_status": r.ReviewStatus(), "review_note": r.ReviewNote(), "source_id": r.SourceID, "attributes": "{}"}
		if len(r.Attributes) > 0 {
			data, _ := json.Marshal(r.Attributes)
			wantProps["attributes"] = string(data)
		}
		if !reflect.DeepEqual(node.props, wantProps) {
			t.Errorf("%s: %#v\nwant %#v", r.ID, node.props, wantProps)
		}
	}
	if n != len(src.Records) {
		t.Errorf("%d requirements for %d records", n, len(src.Records))
	}
}

func describe(n *gnode) string {
	switch n.label {
	case "Document":
		return n.props["name"].(string)
	case "Section":
		return n.props["path"].(string)
	}
	return n.props["id"].(string)
}

// A small reader of the Cypher the export writes, to check it without a
// database: tokens, then the MERGE and SET clauses applied to a graph.

type tokKind int

const (
	tokWord tokKind = iota
	tokString
	tokNumber
	tokPunct
)

type token struct {
	kind  tokKind
	text  string // as written
	value string // a string literal's value
}

// tokenize splits Cypher text into tokens, reading string literals with
// their escapes; a literal must end on the line it starts.
func tokenize(s string) ([]token, error) {
	var toks []token
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case r == ' ':
			i++
		case r == '\'':
			v, n, err := readString(rs[i:])
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tokString, text: string(rs[i : i+n]), value: v})
			i += n
		case r >= '0' && r <= '9':
			j := i
			for j < len(rs) && (rs[j] >= '0' && rs[j] <= '9' || rs[j] == '.') {
				j++
			}
			toks = append(toks, token{kind: tokNumber, text: string(rs[i:j])})
			i = j
		case unicode.IsLetter(r) || r == '_':
			j := i
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || rs[j] == '_') {
				j++
			}
			toks = append(toks, token{kind: tokWord, text: string(rs[i:j])})
			i = j
		case strings.ContainsRune("(){}[]:,;.=->", r):
			toks = append(toks, token{kind: tokPunct, text: string(r)})
			i++
		default:
			return nil, fmt.Errorf("unexpected %q outside a string", r)
		}
	}
	return toks, nil
}

// readString reads the single-quoted literal at the start of rs and
// returns its value and length in runes.
func readString(rs []rune) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '\'':
			return b.String(), i + 1, nil
		case r == '\n' || r == '\r' || unicode.IsControl(r):
			return "", 0, fmt.Errorf("control character %U in a string", r)
		case r != '\\':
			b.WriteRune(r)
		case i+1 >= len(rs):
			return "", 0, fmt.Errorf("unterminated escape")
		default:
			i++
			if v, ok := map[rune]rune{'\\': '\\', '\'': '\'', '"': '"', 'n': '\n', 't': '\t', 'r': '\r', 'b': '\b', 'f': '\f'}[rs[i]]; ok {
				b.WriteRune(v)
				continue
			}
			if rs[i] != 'u' || i+4 >= len(rs) {
				return "", 0, fmt.Errorf("bad escape \\%c", rs[i])
			}
			code, err := strconv.ParseUint(string(rs[i+1:i+5]), 16, 32)
			if err != nil {
				return "", 0, fmt.Errorf("bad escape \\u%s", string(rs[i+1:i+5]))
			}
			b.WriteRune(rune(code))
			i += 4
		}
	}
	return "", 0, fmt.Errorf("unterminated string")
}

// statement checks that line is one complete statement: it ends with the
// only semicolon outside strings, and brackets pair up.
func statement(line string) ([]token, error) {
	toks, err := tokenize(line)
	if err != nil {
		return nil, err
	}
	if len(toks) < 3 || toks[len(toks)-1].text != ";" {
		return nil, fmt.Errorf("does not end with ;")
	}
	var open []string
	pairs := map[string]string{")": "(", "}": "{", "]": "["}
	for _, tk := range toks[:len(toks)-1] {
		switch {
		case tk.kind != tokPunct:
		case tk.text == ";":
			return nil, fmt.Errorf("a second statement on the line")
		case tk.text == "(" || tk.text == "{" || tk.text == "[":
			open = append(open, tk.text)
		case pairs[tk.text] != "":
			if len(open) == 0 || open[len(open)-1] != pairs[tk.text] {
				return nil, fmt.Errorf("unbalanced %s", tk.text)
			}
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		return nil, fmt.Errorf("unclosed %v", open)
	}
	return toks[:len(toks)-1], nil
}

type gnode struct {
	label string
	props map[string]any
}

type grel struct {
	from, to, label string
	props           map[string]any
}

// graph holds nodes and relationships by their MERGE pattern.
type graph struct {
	nodes map[string]*gnode
	rels  map[string]*grel
}

func newGraph() *graph { return &graph{nodes: map[string]*gnode{}, rels: map[string]*grel{}} }

func (g *graph) String() string {
	var lines []string
	for k, n := range g.nodes {
		lines = append(lines, fmt.Sprintf("%s %v", k, n.props))
	}
	for k, r := range g.rels {
		lines = append(lines, fmt.Sprintf("%s %v", k, r.props))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// load applies the statements of a Cypher export.
func (g *graph) load(data []byte) error {
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		toks, err := statement(line)
		if err != nil {
			return fmt.Errorf("line %d: %v", i+1, err)
		}
		if toks[0].text == "CREATE" {
			continue // an index
		}
		p := &parser{toks: toks, g: g, vars: map[string]map[string]any{}}
		if err := p.clauses(); err != nil {
			return fmt.Errorf("line %d: %v: %s", i+1, err, line)
		}
	}
	return nil
}

type parser struct {
	toks []token
	pos  int
	g    *graph
	vars map[string]map[string]any // variable → the properties it binds
	keys map[string]string         // node variable → node key
}

func (p *parser) next() token {
	if p.pos >= len(p.toks) {
		return token{}
	}
	p.pos++
	return p.toks[p.pos-1]
}

func (p *parser) expect(text string) error {
	if tk := p.next(); tk.text != text {
		return fmt.Errorf("want %q, got %q at token %d", text, tk.text, p.pos)
	}
	return nil
}

func (p *parser) clauses() error {
	p.keys = map[string]string{}
	for p.pos < len(p.toks) {
		var err error
		switch kw := p.next().text; kw {
		case "MERGE":
			err = p.merge()
		case "SET":
			err = p.set()
		default:
			err = fmt.Errorf("unknown clause %q", kw)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// merge reads (v:Label {key}) or (a)-[v:REL {key}]->(b).
func (p *parser) merge() error {
	if err := p.expect("("); err != nil {
		return err
	}
	v := p.next().text
	if p.toks[p.pos].text == ")" { // a relationship from a bound node
		p.pos++
		return p.mergeRel(v)
	}
	if err := p.expect(":"); err != nil {
		return err
	}
	label := p.next().text
	props, err := p.mapLiteral()
	if err != nil {
		return err
	}
	key := label + fmt.Sprint(props)
	if p.g.nodes[key] == nil {
		p.g.nodes[key] = &gnode{label: label, props: props}
	}
	p.vars[v], p.keys[v] = p.g.nodes[key].props, key
	return p.expect(")")
}

func (p *parser) mergeRel(from string) error {
	for _, s := range []string{"-", "["} {
		if err := p.expect(s); err != nil {
			return err
		}
	}
	v := ""
	if p.toks[p.pos].text != ":" {
		v = p.next().text
	}
	if err := p.expect(":"); err != nil {
		return err
	}
	label := p.next().text
	props := map[string]any{}
	if p.toks[p.pos].text == "{" {
		var err error
		if props, err = p.mapLiteral(); err != nil {
			return err
		}
	}
	for _, s := range []string{"]", "-", ">", "("} {
		if err := p.expect(s); err != nil {
			return err
		}
	}
	to := p.next().text
	if p.keys[from] == "" || p.keys[to] == "" {
		return fmt.Errorf("unbound %s or %s", from, to)
	}
	key := p.keys[from] + "-" + label + fmt.Sprint(props) + "->" + p.keys[to]
	if p.g.rels[key] == nil {
		p.g.rels[key] = &grel{from: p.keys[from], to: p.keys[to], label: label, props: props}
	}
	p.vars[v] = p.g.rels[key].props
	return p.expect(")")
}

// set reads v.p = value, … up to the next clause.
func (p *parser) set() error {
	for {
		v := p.next().text
		props := p.vars[v]
		if props == nil {
			return fmt.Errorf("unbound %s", v)
		}
		if err := p.expect("."); err != nil {
			return err
		}
		name := p.next().text
		if err := p.expect("="); err != nil {
			return err
		}
		val, err := p.value()
		if err != nil {
			return err
		}
		props[name] = val
		if p.pos >= len(p.toks) || p.toks[p.pos].text != "," {
			return nil
		}
		p.pos++
	}
}

func (p *parser) mapLiteral() (map[string]any, error) {
	props := map[string]any{}
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	for {
		name := p.next().text
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		val, err := p.value()
		if err != nil {
			return nil, err
		}
		props[name] = val
		if tk := p.next(); tk.text == "}" {
			return props, nil
		} else if tk.text != "," {
			return nil, fmt.Errorf("want , or }, got %q", tk.text)
		}
	}
}

func (p *parser) value() (any, error) {
	tk := p.next()
	switch {
	case tk.kind == tokString:
		return tk.value, nil
	case tk.kind == tokNumber && strings.Contains(tk.text, "."):
		return strconv.ParseFloat(tk.text, 64)
	case tk.kind == tokNumber:
		return strconv.Atoi(tk.text)
	case tk.text == "[":
		list := []any{}
		if p.toks[p.pos].text == "]" {
			p.pos++
			return list, nil
		}
		for {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			list = append(list, v)
			if tk := p.next(); tk.text == "]" {
				return list, nil
			} else if tk.text != "," {
				return nil, fmt.Errorf("want , or ], got %q", tk.text)
			}
		}
	}
	return nil, fmt.Errorf("not a value: %q", tk.text)
}
