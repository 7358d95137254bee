package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"creator/internal/document"
	"creator/internal/requirement"
	"creator/internal/tokens"
)

func sample() Source {
	rec := func(id, title, typ, doc, chunk string, page int, quote string) requirement.Record {
		return requirement.Record{ID: id, Title: title, Text: "The operator shall " + strings.ToLower(title) + ".", Type: typ, Category: "compliance", Priority: "high",
			Frameworks: []string{"GoBD"}, Citations: []requirement.Citation{{Document: doc, Chunk: chunk, Page: page, Quote: quote}},
			Confidence: 0.92, Rationale: "'" + quote + "' sets a duty & more <text>"}
	}
	accepted := rec("REQ-002", "Do not delete records", "prohibition", "GoBD.pdf", "chunk_002", 5, "Aufzeichnungen dürfen nicht gelöscht werden.")
	accepted.Review = &requirement.Review{Status: requirement.Accepted, Note: "checked against § 146 AO", By: "alice", At: "2026-11-22T09:00:00Z"}
	// The document's id and columns of a requirement, with a quote in a value.
	invoices := rec("REQ-001", "Keep invoices", "obligation", "GoBD.pdf", "chunk_001", 4, "Rechnungen sind aufzubewahren.")
	invoices.SourceID, invoices.Attributes = "BK-01", map[string]string{"level": "2", "Prüfung": "it's \"due\""}
	return Source{
		JobID:     "gobd",
		Documents: []string{"GoBD.pdf", "memo.txt"},
		Records: []requirement.Record{
			invoices,
			accepted,
			rec("REQ-003", "Log changes", "obligation", "GoBD.pdf", "chunk_003", 9, "Änderungen sind zu protokollieren."),
			rec("REQ-004", "Check the archive", "recommendation", "memo.txt", "chunk_004", 0, "The archive should be checked."),
		},
		// chunk_002 starts in 3.1, and 3.2 begins inside it.
		Manifest: document.Manifest{Chunks: []document.ManifestChunk{
			{ID: "chunk_001", Document: "GoBD.pdf", Heading: "3 Aufbewahrung > 3.1 Belege"},
			{ID: "chunk_002", Document: "GoBD.pdf", Heading: "3 Aufbewahrung > 3.1 Belege", Sections: []string{"3 Aufbewahrung > 3.2 Unveränderbarkeit"}},
			{ID: "chunk_003", Document: "GoBD.pdf", Heading: "3 Aufbewahrung > 3.2 Unveränderbarkeit"},
			{ID: "chunk_004", Document: "memo.txt"},
		}},
		Chunks: map[string]string{
			"chunk_002": "Belege sind geordnet abzulegen.\n\n3.2 Unveränderbarkeit\n\nAufzeichnungen dürfen nicht\ngelöscht werden.\n",
		},
		Time:    time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC),
		Version: "v1.0.0",
	}
}

// node is a parsed XML element, read without the package's own types.
type node struct {
	name     xml.Name
	attrs    map[string]string
	children []*node
	text     string
}

func parse(t *testing.T, data []byte) *node {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var stack []*node
	var root *node
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			n := &node{name: tk.Name, attrs: map[string]string{}}
			for _, a := range tk.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(tk)
			}
		}
	}
	return root
}

func (n *node) child(name string) *node {
	for _, c := range n.children {
		if c.name.Local == name {
			return c
		}
	}
	return nil
}

func (n *node) path(names ...string) *node {
	for _, name := range names {
		if n = n.child(name); n == nil {
			return nil
		}
	}
	return n
}

func (n *node) all(name string) []*node {
	var out []*node
	for _, c := range n.children {
		if c.name.Local == name {
			out = append(out, c)
		}
	}
	return out
}

func (n *node) walk(f func(*node)) {
	f(n)
	for _, c := range n.children {
		c.walk(f)
	}
}

func TestReqIFStructure(t *testing.T) {
	t.Parallel()
	src := sample()
	data, err := ReqIFBytes(src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte(`<?xml version="1.0" encoding="UTF-8"?>`)) {
		t.Errorf("no XML declaration: %.60q", data)
	}
	root := parse(t, data)
	if root.name.Local != "REQ-IF" || root.name.Space != Namespace {
		t.Fatalf("root element %v", root.name)
	}
	// Every element is in the ReqIF namespace.
	root.walk(func(n *node) {
		if n.name.Space != Namespace {
			t.Errorf("%s is in namespace %q", n.name.Local, n.name.Space)
		}
	})

	h := root.path("THE-HEADER", "REQ-IF-HEADER")
	if h == nil || h.attrs["IDENTIFIER"] == "" {
		t.Fatal("no REQ-IF-HEADER with an IDENTIFIER")
	}
	for field, want := range map[string]string{"CREATION-TIME": "2026-11-21T06:00:00Z", "REQ-IF-TOOL-ID": "creator", "REQ-IF-VERSION": "1.0",
		"SOURCE-TOOL-ID": "creator v1.0.0", "TITLE": "Requirements of GoBD.pdf, memo.txt"} {
		if c := h.child(field); c == nil || c.text != want {
			t.Errorf("header %s = %v, want %q", field, c, want)
		}
	}

	content := root.path("CORE-CONTENT", "REQ-IF-CONTENT")
	ids := map[string]*node{}
	content.walk(func(n *node) {
		if id, ok := n.attrs["IDENTIFIER"]; ok {
			if ids[id] != nil {
				t.Errorf("identifier %s used twice", id)
			}
			ids[id] = n
			if n.attrs["LAST-CHANGE"] != "2026-11-21T06:00:00Z" {
				t.Errorf("%s %s has LAST-CHANGE %q", n.name.Local, id, n.attrs["LAST-CHANGE"])
			}
		}
	})
	// Every reference names an element of the right kind.
	content.walk(func(n *node) {
		if kind, ok := strings.CutSuffix(n.name.Local, "-REF"); ok {
			target := ids[strings.TrimSpace(n.text)]
			if target == nil || target.name.Local != kind {
				t.Errorf("%s %q does not resolve to a %s", n.name.Local, n.text, kind)
			}
		}
	})

	dt := content.child("DATATYPES")
	if len(dt.all("DATATYPE-DEFINITION-STRING")) != 1 || len(dt.all("DATATYPE-DEFINITION-REAL")) != 1 || len(dt.all("DATATYPE-DEFINITION-ENUMERATION")) != 3 {
		t.Fatalf("datatypes: %d children", len(dt.children))
	}
	if s := dt.child("DATATYPE-DEFINITION-STRING"); s.attrs["MAX-LENGTH"] == "" {
		t.Error("string datatype without MAX-LENGTH")
	}
	if r := dt.child("DATATYPE-DEFINITION-REAL"); r.attrs["MIN"] != "0" || r.attrs["MAX"] != "1" || r.attrs["ACCURACY"] != "2" {
		t.Errorf("real datatype %v", r.attrs)
	}
	enumValues := map[string][]string{}
	for _, e := range dt.all("DATATYPE-DEFINITION-ENUMERATION") {
		for _, v := range e.path("SPECIFIED-VALUES").all("ENUM-VALUE") {
			if v.path("PROPERTIES", "EMBEDDED-VALUE") == nil {
				t.Errorf("enum value %s without EMBEDDED-VALUE", v.attrs["IDENTIFIER"])
			}
			enumValues[e.attrs["LONG-NAME"]] = append(enumValues[e.attrs["LONG-NAME"]], v.attrs["LONG-NAME"])
		}
	}
	if !reflect.DeepEqual(enumValues["Type"], requirement.Types) || !reflect.DeepEqual(enumValues["Priority"], requirement.Priorities) || !reflect.DeepEqual(enumValues["Category"], requirement.Categories) {
		t.Errorf("enumerations %v", enumValues)
	}

	// Spec types: the requirement type defines an attribute per field.
	types := content.child("SPEC-TYPES")
	var reqType *node
	for _, st := range types.all("SPEC-OBJECT-TYPE") {
		if st.attrs["LONG-NAME"] == "Requirement" {
			reqType = st
		}
	}
	if reqType == nil || types.child("SPECIFICATION-TYPE") == nil {
		t.Fatal("no Requirement spec object type or no specification type")
	}
	attrName := map[string]string{} // definition id → LONG-NAME
	for _, d := range reqType.child("SPEC-ATTRIBUTES").children {
		attrName[d.attrs["IDENTIFIER"]] = d.attrs["LONG-NAME"]
	}
	wantFields := []string{"ReqIF.ForeignID", "ReqIF.Name", "ReqIF.Text", "Type", "Category", "Priority", "Frameworks", "Source", "Quote", "Confidence", "Rationale", "ReviewStatus", "ReviewNote",
		"SourceID", "Source.Prüfung", "Source.level"}
	if len(attrName) != len(wantFields) {
		t.Errorf("requirement attributes %v", attrName)
	}

	// One spec object per requirement, with every field.
	byID := map[string]map[string]string{}
	for _, o := range content.child("SPEC-OBJECTS").all("SPEC-OBJECT") {
		if strings.TrimSpace(o.path("TYPE", "SPEC-OBJECT-TYPE-REF").text) != reqType.attrs["IDENTIFIER"] {
			continue
		}
		fields := map[string]string{}
		for _, v := range o.child("VALUES").children {
			def := strings.TrimSpace(v.child("DEFINITION").children[0].text)
			value := v.attrs["THE-VALUE"]
			if v.name.Local == "ATTRIBUTE-VALUE-ENUMERATION" {
				value = ids[strings.TrimSpace(v.path("VALUES", "ENUM-VALUE-REF").text)].attrs["LONG-NAME"]
			}
			fields[attrName[def]] = value
		}
		byID[fields["ReqIF.ForeignID"]] = fields
	}
	if len(byID) != len(src.Records) {
		t.Fatalf("%d requirement spec objects for %d records", len(byID), len(src.Records))
	}
	for _, r := range src.Records {
		f := byID[r.ID]
		for _, name := range wantFields {
			if _, ok := f[name]; !ok && !strings.HasPrefix(name, "Source.") {
				t.Errorf("%s lacks %s", r.ID, name)
			}
		}
		conf, _ := strconv.ParseFloat(f["Confidence"], 64)
		if f["ReqIF.Name"] != r.Title || f["ReqIF.Text"] != r.Text || f["Type"] != r.Type || f["Priority"] != r.Priority || f["Category"] != r.Category ||
			f["Quote"] != r.Citations[0].Quote || f["Rationale"] != r.Rationale || f["Frameworks"] != "GoBD" || conf != r.Confidence ||
			f["ReviewStatus"] != r.ReviewStatus() || f["ReviewNote"] != r.ReviewNote() || f["SourceID"] != r.SourceID {
			t.Errorf("%s: %v", r.ID, f)
		}
		// A column of the document is valued where the requirement has it.
		for _, col := range []string{"level", "Prüfung"} {
			if v, ok := f["Source."+col]; ok != (r.Attributes[col] != "") || v != r.Attributes[col] {
				t.Errorf("%s: Source.%s = %q, %v; want %q", r.ID, col, v, ok, r.Attributes[col])
			}
		}
	}
	if byID["REQ-001"]["SourceID"] != "BK-01" || byID["REQ-001"]["Source.Prüfung"] != `it's "due"` {
		t.Errorf("REQ-001's source id and columns: %v", byID["REQ-001"])
	}
	if byID["REQ-001"]["Source"] != "GoBD.pdf, p. 4 (chunk_001)" || byID["REQ-004"]["Source"] != "memo.txt (chunk_004)" {
		t.Errorf("sources %q %q", byID["REQ-001"]["Source"], byID["REQ-004"]["Source"])
	}

	// The hierarchy: a specification per document, sections nested as in
	// the source, each requirement once under its section.
	specs := content.child("SPECIFICATIONS").all("SPECIFICATION")
	if len(specs) != 2 || specs[0].attrs["LONG-NAME"] != "GoBD.pdf" || specs[1].attrs["LONG-NAME"] != "memo.txt" {
		t.Fatalf("%d specifications", len(specs))
	}
	var tree func(n *node, depth int) []string
	tree = func(n *node, depth int) []string {
		var out []string
		kids := n.child("CHILDREN")
		if kids == nil {
			return nil
		}
		for _, h := range kids.all("SPEC-HIERARCHY") {
			obj := ids[strings.TrimSpace(h.path("OBJECT", "SPEC-OBJECT-REF").text)]
			out = append(out, strings.Repeat("  ", depth)+obj.attrs["LONG-NAME"])
			out = append(out, tree(h, depth+1)...)
		}
		return out
	}
	got := strings.Join(append(tree(specs[0], 0), tree(specs[1], 0)...), "\n")
	want := "3 Aufbewahrung\n  3.1 Belege\n    Keep invoices\n  3.2 Unveränderbarkeit\n    Do not delete records\n    Log changes\nCheck the archive"
	if got != want {
		t.Errorf("hierarchy:\n%s\nwant:\n%s", got, want)
	}
}

func TestReqIFRoundTrip(t *testing.T) {
	t.Parallel()
	data, err := ReqIFBytes(sample())
	if err != nil {
		t.Fatal(err)
	}
	var first ReqIF
	if err := xml.Unmarshal(data, &first); err != nil {
		t.Fatal(err)
	}
	again, err := MarshalReqIF(first)
	if err != nil {
		t.Fatal(err)
	}
	var second ReqIF
	if err := xml.Unmarshal(again, &second); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, second) {
		t.Error("a second parse of the round trip differs from the first")
	}
	if !bytes.Equal(data, again) {
		t.Error("reading and writing the document again changes it")
	}
	if first.Xmlns != Namespace || len(first.CoreContent.SpecObjects) != 4+3 { // 4 requirements, 3 sections
		t.Errorf("parsed: namespace %q, %d spec objects", first.Xmlns, len(first.CoreContent.SpecObjects))
	}
}

func TestOtherFormats(t *testing.T) {
	t.Parallel()
	src := sample()
	md := string(Markdown(src))
	for _, want := range []string{
		"# Requirements of GoBD.pdf, memo.txt\n",
		"4 requirements: 2 obligations, 1 prohibition, 1 recommendation. Job gobd, exported 2026-11-21 06:00 UTC.",
		"## GoBD.pdf\n", "### 3 Aufbewahrung › 3.1 Belege\n", "#### REQ-001 — Keep invoices\n",
		"**obligation** · high priority · compliance · frameworks: GoBD · confidence 0.92",
		"> Rechnungen sind aufzubewahren.\n>\n> — GoBD.pdf, p. 4 (chunk_001)",
		"## memo.txt\n\n### (no section)\n",
		"#### REQ-001 — Keep invoices\n\nSource: **BK-01** · Prüfung: it's \"due\" · level: 2\n\n**obligation**",
		"#### REQ-003 — Log changes\n\n**obligation**",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "### 3 Aufbewahrung › 3.2 Unveränderbarkeit") != 1 {
		t.Errorf("a section heading repeats:\n%s", md)
	}
	data, err := Render("csv", src)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(rows) != 5 || rows[0][0] != "id" {
		t.Fatalf("CSV: %v, %d rows, header %v", err, len(rows), rows[0])
	}
	last := len(rows[0]) - 1
	if rows[0][last-1] != "source_id" || rows[0][last] != "attributes" || rows[1][last-1] != "BK-01" || rows[1][last] != `{"Prüfung":"it's \"due\"","level":"2"}` ||
		rows[2][last-1] != "" || rows[2][last] != "{}" {
		t.Errorf("CSV source_id and attributes: %q\n%q\n%q", rows[0], rows[1], rows[2])
	}
	data, _ = Render("json", src)
	var back []requirement.Record
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, src.Records) {
		t.Errorf("JSON does not round-trip: %v", err)
	}
	if _, err := Render("pdf", src); err == nil || !strings.Contains(err.Error(), "json, csv, xlsx, md, reqif, cypher") {
		t.Errorf("unknown format: %v", err)
	}
	for name, want := range map[string]string{"out.REQIF": "reqif", "a.csv": "csv", "b.md": "md", "c.json": "json", "d.xml": "reqif", "e.cypher": "cypher", "f.CQL": "cypher", "g.XLSX": "xlsx"} {
		if got, ok := FormatOf(name); !ok || got != want {
			t.Errorf("FormatOf(%s) = %s", name, got)
		}
	}
}

func TestSectionOfAQuote(t *testing.T) {
	t.Parallel()
	src := sample()
	at := func(chunk, quote string) string {
		return strings.Join(src.SectionsOf(requirement.Record{Citations: []requirement.Citation{{Chunk: chunk, Quote: quote}}}), " > ")
	}
	for _, c := range []struct{ chunk, quote, want string }{
		{"chunk_002", "Belege sind geordnet abzulegen.", "3 Aufbewahrung > 3.1 Belege"}, // before the section starts
		{"chunk_002", "Aufzeichnungen dürfen nicht gelöscht werden.", "3 Aufbewahrung > 3.2 Unveränderbarkeit"},
		{"chunk_002", "not in the chunk", "3 Aufbewahrung > 3.1 Belege"},
		{"chunk_004", "The archive should be checked.", ""},
		{"chunk_999", "x", ""},
	} {
		if got := at(c.chunk, c.quote); got != c.want {
			t.Errorf("%s %q: %q, want %q", c.chunk, c.quote, got, c.want)
		}
	}
}

// TestSectionOfMarkdownHeadings checks the section of quotes under
// Markdown headings (as Markdown and HTML documents give them): the
// heading line "## Passwords" is the section "Passwords", and a body line
// that begins with a heading's words does not start that section.
func TestSectionOfMarkdownHeadings(t *testing.T) {
	t.Parallel()
	text := "Acme staff handbook, version 3.\n\n# Acme Security Policy\n\nThis policy applies to all staff.\n\n## Passwords\n\nUsers must choose long passwords.\n\n" +
		"## Backups\n\nBackups must be encrypted at rest.\n\n### Retention\n\nBackup media shall be kept for one year.\n"
	chunks := document.ChunkText(text, 1000, tokens.Default())
	if len(chunks) != 1 {
		t.Fatalf("%d chunks", len(chunks))
	}
	c := chunks[0]
	src := Source{
		Manifest: document.Manifest{Chunks: []document.ManifestChunk{{ID: c.ID, Heading: c.Heading, Sections: c.Sections}}},
		Chunks:   map[string]string{c.ID: c.Text},
	}
	for quote, want := range map[string]string{
		"Acme staff handbook, version 3.":          "",
		"This policy applies to all staff.":        "Acme Security Policy",
		"Users must choose long passwords.":        "Acme Security Policy › Passwords",
		"Backups must be encrypted at rest.":       "Acme Security Policy › Backups",
		"Backup media shall be kept for one year.": "Acme Security Policy › Backups › Retention",
	} {
		got := strings.Join(src.SectionOf(requirement.Citation{Chunk: c.ID, Quote: quote}), " › ")
		if got != want {
			t.Errorf("%q: section %q, want %q", quote, got, want)
		}
	}
}

// Every format has a file type, and the name a download gets is read back
// as its format.
func TestFileTypes(t *testing.T) {
	for _, f := range AllFormats {
		ext, mediaType, ok := FileType(f)
		if !ok || ext == "" || mediaType == "" {
			t.Errorf("%s: no file type", f)
			continue
		}
		if got, ok := FormatOf("requirements" + ext); !slices.Contains(AuditFormats, f) && (!ok || got != f) {
			t.Errorf("%s: a download named requirements%s reads as %q", f, ext, got)
		}
	}
}
