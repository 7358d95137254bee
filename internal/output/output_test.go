package output

import (
	"encoding/csv"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"creator/internal/requirement"
)

func TestReadValid(t *testing.T) {
	files := map[string]string{}
	read := func(name string) ([]byte, error) {
		if d, ok := files[name]; ok {
			return []byte(d), nil
		}
		return nil, fs.ErrNotExist
	}
	if _, err := ReadValid("j", read); err == nil || err.Error() != "job 'j' has no output/requirements.json yet: it is written when the job completes or stops at a budget; continue the job with 'creator resume --job j'" {
		t.Errorf("missing: %v", err)
	}
	files[RequirementsFile] = `{"not": "a list"}`
	if _, err := ReadValid("j", read); err == nil || !strings.HasPrefix(err.Error(), "job 'j': output/requirements.json is not valid: output/requirements.json: ") {
		t.Errorf("invalid: %v", err)
	}
	files[RequirementsFile] = `[]`
	if data, err := ReadValid("j", read); err != nil || string(data) != "[]" {
		t.Errorf("valid: %q %v", data, err)
	}
	broken := errors.New("disk on fire")
	if _, err := ReadValid("j", func(string) ([]byte, error) { return nil, broken }); err != broken {
		t.Errorf("read error: %v", err)
	}
}

func fieldsRecords() []requirement.Record {
	base := requirement.Record{Title: "Keep invoices", Text: "Invoices must be kept.", Type: "obligation", Category: "compliance", Priority: "high",
		Frameworks: []string{}, Confidence: 0.9, Rationale: "'must'", Citations: []requirement.Citation{{Document: "d.pdf", Chunk: "chunk_001", Page: 2, Quote: "Invoices must be kept."}}}
	a, b := base, base
	a.ID, a.SourceID, a.Attributes = "REQ-001", "BK-01", map[string]string{"priority": "High", "level": "2", "owner": "R&D <ops>"}
	b.ID = "REQ-002"
	return []requirement.Record{a, b}
}

// requirements.json, requirements.csv and summary.md carry the document's
// id and columns of a requirement.
func TestOutputsCarrySourceIDAndAttributes(t *testing.T) {
	recs := fieldsRecords()
	js, _ := JSON(recs)
	if err := Validate(js); err != nil || !strings.Contains(string(js), `"source_id": "BK-01"`) || !strings.Contains(string(js), `"level": "2"`) {
		t.Errorf("requirements.json (%v):\n%s", err, js)
	}
	data, err := CSV(recs)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := rows[0]
	if head[len(head)-2] != "source_id" || head[len(head)-1] != "attributes" || head[13] != "review" {
		t.Fatalf("header %v", head)
	}
	if got := rows[1][len(head)-2:]; got[0] != "BK-01" || got[1] != `{"level":"2","owner":"R&D <ops>","priority":"High"}` {
		t.Errorf("row with fields: %q", got)
	}
	if got := rows[2][len(head)-2:]; got[0] != "" || got[1] != "{}" {
		t.Errorf("row without fields: %q", got)
	}
	sum := string(Summary(recs, []string{"d.pdf"}, nil, nil))
	if !strings.Contains(sum, "| id | source id | title | type | priority | source |\n|---|---|---|---|---|---|\n| REQ-001 | BK-01 | Keep invoices |") ||
		!strings.Contains(sum, "| REQ-002 |  | Keep invoices |") {
		t.Errorf("summary:\n%s", sum)
	}
	// Without any source id the table is as it was.
	sum = string(Summary(recs[1:], []string{"d.pdf"}, nil, nil))
	if !strings.Contains(sum, "| id | title | type | priority | source |\n|---|---|---|---|---|\n| REQ-002 | Keep invoices | obligation | high | d.pdf p. 2 |\n") {
		t.Errorf("summary without source ids:\n%s", sum)
	}
	// The section each requirement's quote stands in, when known.
	sum = string(Summary(recs[1:], []string{"d.pdf"}, nil, map[string]string{"REQ-002": "3 Records › 3.1 Invoices"}))
	if !strings.Contains(sum, "| id | title | type | priority | section | source |\n|---|---|---|---|---|---|\n| REQ-002 | Keep invoices | obligation | high | 3 Records › 3.1 Invoices | d.pdf p. 2 |\n") {
		t.Errorf("summary with sections:\n%s", sum)
	}
}

// hostileRecords are requirements whose texts, quotes, names and notes
// carry HTML, Markdown structure, spreadsheet formulas and a bidi override.
func hostileRecords() []requirement.Record {
	base := fieldsRecords()[1]
	a, b, c, d := base, base, base, base
	a.ID, a.Title, a.Text = "REQ-001", "<script>alert(1)</script>", "<script>alert(1)</script>"
	b.ID, b.Title, b.Text, b.Rationale = "REQ-002", "| fake | cell |", `=HYPERLINK("http://x","y")`, "@SUM(1+1)*cmd|' /C calc'!A0"
	c.ID, c.Title, c.Text, c.SourceID = "REQ-003", "# heading", "-2+3", "+1+1"
	c.Frameworks = []string{"[x](javascript:alert(1))"}
	d.ID, d.Title, d.Text, d.Rationale = "REQ-004", "evil\u202Efdp.exe", "-1", "'=already quoted"
	d.Review = &requirement.Review{Status: requirement.Rejected, Note: "\tTAB first"}
	return []requirement.Record{a, b, c, d}
}

// summary.md renders the records' texts as written: no HTML, no extra
// table cells, no heading, no link, no reordered text.
func TestSummaryEscapesMarkdown(t *testing.T) {
	recs := hostileRecords()
	sum := string(Summary(recs, []string{"<b>d</b>.pdf"}, &Coverage{Chunks: 1, Empty: []EmptyChunk{{Chunk: "chunk_002", Reason: "<iframe src=x>"}}}, map[string]string{"REQ-001": "<i>3</i> # Records"}))
	for _, bad := range []string{"<script", "<b>", "<iframe", "| fake | cell |", "\n# heading", "[x](javascript", "\u202E"} {
		if strings.Contains(sum, bad) {
			t.Errorf("summary.md holds %q:\n%s", bad, sum)
		}
	}
	for _, want := range []string{
		"| REQ-001 |  | &lt;script&gt;alert(1)&lt;/script&gt; |",
		`| REQ-002 |  | \| fake \| cell \| | obligation |`,
		`| REQ-003 | \+1+1 | \# heading |`,
		`| \[x\](javascript:alert(1)) | 1 |`,
		"| REQ-004 |  | evil\uFFFDfdp.exe |",
		"requirements from &lt;b&gt;d&lt;/b&gt;.pdf.",
		"| chunk_002 | &lt;iframe src=x&gt; |",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, sum)
		}
	}
	// Every row of the requirements table has as many cells as its header.
	_, table, _ := strings.Cut(sum, "## Requirements\n\n")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	cells := func(line string) int { return strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") }
	for _, l := range lines[2:] {
		if cells(l) != cells(lines[0]) {
			t.Errorf("row %q has %d cell borders; the header %d", l, cells(l), cells(lines[0]))
		}
	}
}

// requirements.csv writes a cell a spreadsheet would run as a formula as
// text, leaves plain numbers and other text alone, and can be read back.
func TestCSVNeutralisesFormulas(t *testing.T) {
	recs := hostileRecords()
	data, err := CSV(recs)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, c := range []struct {
		row            int
		column, want   string
		verbatimRecord string
	}{
		{2, "text", `'=HYPERLINK("http://x","y")`, recs[1].Text},
		{2, "rationale", "'@SUM(1+1)*cmd|' /C calc'!A0", recs[1].Rationale},
		{2, "title", "| fake | cell |", recs[1].Title},
		{3, "text", "'-2+3", recs[2].Text},
		{3, "source_id", "'+1+1", recs[2].SourceID},
		{3, "title", "# heading", recs[2].Title},
		{4, "text", "-1", recs[3].Text},
		{4, "rationale", "''=already quoted", recs[3].Rationale},
		{4, "review_note", "'\tTAB first", recs[3].Review.Note},
		{1, "text", "<script>alert(1)</script>", recs[0].Text},
		{1, "rationale", "'must'", recs[0].Rationale},
	} {
		got := rows[c.row][col[c.column]]
		if got != c.want {
			t.Errorf("row %d %s = %q; want %q", c.row, c.column, got, c.want)
		}
		if back := fromSpreadsheetText(got); back != c.verbatimRecord {
			t.Errorf("row %d %s reads back as %q; want %q", c.row, c.column, back, c.verbatimRecord)
		}
	}
	for _, s := range []string{"-1", "+2.5", "-.5", "1e-3", "0.9"} {
		if got := SpreadsheetText(s); got != s {
			t.Errorf("SpreadsheetText(%q) = %q; a number stays", s, got)
		}
	}
	for _, s := range []string{"-1+1", "+cmd", "-inf", "\r=1", "=1", "@A1", "-", "'-", "''+x"} {
		if got := SpreadsheetText(s); got != "'"+s {
			t.Errorf("SpreadsheetText(%q) = %q; want a quote in front", s, got)
		}
	}
}

// fromSpreadsheetText is the reading back docs/export.md describes: drop
// the first character of a cell that begins with ' and, after any further
// quotes, one of = + - @ tab carriage return.
func fromSpreadsheetText(s string) string {
	rest := strings.TrimLeft(s, "'")
	if len(rest) < len(s) && rest != "" && strings.ContainsRune("=+-@\t\r", rune(rest[0])) {
		return s[1:]
	}
	return s
}
