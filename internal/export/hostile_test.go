package export

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"creator/internal/requirement"
)

// hostile is a source whose texts carry HTML, Markdown structure,
// spreadsheet formulas, Cypher quotes and a bidi override.
func hostile() Source {
	src := sample()
	recs := src.Records
	recs[0].Title, recs[0].Text = "<script>alert(1)</script>", "<script>alert(1)</script>"
	recs[0].Citations[0].Quote = "<img src=x onerror=alert(1)> [a](javascript:alert(1))"
	recs[1].Title, recs[1].Text = "| fake | cell |", `=HYPERLINK("http://x","y")`
	recs[1].Review.Note = "`code` **bold**"
	recs[2].Title, recs[2].Text, recs[2].Rationale = "# heading", "# heading", "- item"
	recs[3].Title, recs[3].Text = "evil\u202Efdp.exe", "x'}) DETACH DELETE n //"
	src.Records = recs
	return src
}

// The Markdown export renders every text as written: no HTML, no link,
// no heading, no code, no reordered text.
func TestMarkdownEscapesText(t *testing.T) {
	t.Parallel()
	md := string(Markdown(hostile()))
	for _, bad := range []string{"<script", "<img", "[a](javascript", "\n# heading", "\n- item", "`code`", "**bold**", "\u202E"} {
		if strings.Contains(md, bad) {
			t.Errorf("Markdown holds %q:\n%s", bad, md)
		}
	}
	for _, want := range []string{
		"#### REQ-001 — &lt;script&gt;alert(1)&lt;/script&gt;\n",
		"\n&lt;script&gt;alert(1)&lt;/script&gt;\n",
		"> &lt;img src=x onerror=alert(1)&gt; \\[a\\](javascript:alert(1))\n",
		"#### REQ-002 — \\| fake \\| cell \\|\n",
		"\n\\=HYPERLINK(\"http://x\",\"y\")\n",
		"Review note: \\`code\\` \\*\\*bold\\*\\*\n",
		"\n\\# heading\n", "Why: \\- item\n",
		"#### REQ-004 — evil\uFFFDfdp.exe\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

// The table formats keep the text and never make a formula of it: the
// CSV puts a quote before a formula, the workbook holds strings.
func TestTableFormatsHoldNoFormula(t *testing.T) {
	t.Parallel()
	src := hostile()
	data, err := Render("csv", src)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := rows[2][2]; got != `'=HYPERLINK("http://x","y")` {
		t.Errorf("CSV text of REQ-002 = %q", got)
	}
	if got := rows[3][12]; got != "'- item" {
		t.Errorf("CSV rationale of REQ-003 = %q", got)
	}

	data, err = Render("xlsx", src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	formula, err := f.GetCellFormula("Requirements", "C3")
	if err != nil || formula != "" {
		t.Errorf("C3 has the formula %q (%v)", formula, err)
	}
	if v, _ := f.GetCellValue("Requirements", "C3"); v != src.Records[1].Text {
		t.Errorf("C3 = %q; want the text as written", v)
	}
	if typ, _ := f.GetCellType("Requirements", "C3"); typ != excelize.CellTypeInlineString {
		t.Errorf("C3 is of type %v; want an inline string", typ)
	}
}

// ReqIF holds every text as written (XML escaped).
func TestReqIFHoldsTextAsWritten(t *testing.T) {
	t.Parallel()
	src := hostile()
	data, err := ReqIFBytes(src)
	if err != nil {
		t.Fatal(err)
	}
	var doc ReqIF
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	texts := map[string]bool{}
	for _, o := range doc.CoreContent.SpecObjects {
		for _, s := range o.Values.Strings {
			texts[s.Value] = true
		}
	}
	for _, r := range []requirement.Record{src.Records[0], src.Records[1], src.Records[3]} {
		if !texts[r.Text] || !texts[r.Title] {
			t.Errorf("ReqIF lacks %q or %q", r.Text, r.Title)
		}
	}
}
