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
