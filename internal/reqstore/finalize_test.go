package reqstore

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"creator/internal/output"
	"creator/internal/requirement"
	"creator/workspace"
)

// saveAll saves requirements out of source order: the review (chunk_002,
// page 3), the invoices (chunk_001), the deletion (chunk_002, page 2).
func saveAll(t *testing.T, s *Store) {
	t.Helper()
	review := draft("The archive should be checked every quarter.", cite("chunk_002", "The archive should be checked every quarter."))
	review.Type, review.Priority, review.Title = "recommendation", "low", "Check archive"
	deletion := draft("Records must not be deleted early.", cite("chunk_002", "Records must not be deleted before the end of their retention period"))
	deletion.Type, deletion.Title = "prohibition", "Keep records"
	for _, d := range []requirement.Record{review, draft("The company must keep invoices for ten years.", cite("chunk_001", "Invoices must be kept for ten years.")), deletion} {
		if _, err := s.Save(d); err != nil {
			t.Fatal(err)
		}
	}
}

func ids(recs []requirement.Record) string {
	var out []string
	for _, r := range recs {
		out = append(out, r.ID)
	}
	return strings.Join(out, " ")
}

func readOutput(t *testing.T, job *workspace.Job) []requirement.Record {
	t.Helper()
	data, err := job.ReadInternal(output.RequirementsFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := output.Validate(data); err != nil {
		t.Fatal(err)
	}
	var recs []requirement.Record
	json.Unmarshal(data, &recs)
	return recs
}

func TestFinalize(t *testing.T) {
	t.Parallel()
	job := newJob(t, true)
	s := Open(job)
	saveAll(t, s)
	// A page edited by hand is set to the quote's page again.
	data, _ := job.ReadInternal("requirements/req_002/final.json")
	job.WriteFile("requirements/req_002/final.json", []byte(strings.Replace(string(data), `"page": 1`, `"page": 7`, 1)))
	// A copy of a requirement under another id is left out.
	data, _ = job.ReadInternal("requirements/req_001/final.json")
	job.WriteFile("requirements/req_004/final.json", []byte(strings.Replace(string(data), "REQ-001", "REQ-004", 1)))

	res, err := s.Finalize("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.Records); got != "REQ-002 REQ-003 REQ-001" {
		t.Errorf("records in the order %s, want source order", got)
	}
	if !reflect.DeepEqual(res.Repeats, []Repeat{{ID: "REQ-004", Of: "REQ-001"}}) || len(res.Invalid) != 0 {
		t.Errorf("repeats %+v, invalid %+v", res.Repeats, res.Invalid)
	}
	want := "wrote output/requirements.json with 3 requirements (1 obligation, 1 prohibition, 1 recommendation), output/summary.md and output/requirements.csv; REQ-004 repeats REQ-001 and was left out"
	if res.String() != want {
		t.Errorf("String = %q\nwant       %q", res.String(), want)
	}
	recs := readOutput(t, job)
	if !reflect.DeepEqual(recs, res.Records) || recs[0].Citations[0].Page != 1 {
		t.Errorf("requirements.json = %+v", recs)
	}
	summary, _ := job.ReadInternal(output.SummaryFile)
	for _, w := range []string{"3 requirements from policy.pdf", "| obligation | 1 |", "| GoBD | 3 |", "| REQ-002 | Keep invoices | obligation | high | policy.pdf p. 1 |"} {
		if !strings.Contains(string(summary), w) {
			t.Errorf("summary.md lacks %q:\n%s", w, summary)
		}
	}
	if strings.HasPrefix(string(summary), ">") {
		t.Errorf("summary.md of a complete output opens with a note:\n%s", summary)
	}
	csv, _ := job.ReadInternal(output.CSVFile)
	if lines := strings.Split(strings.TrimSpace(string(csv)), "\n"); len(lines) != 4 || !strings.HasPrefix(lines[0], "id,title,text,type") {
		t.Errorf("requirements.csv:\n%s", csv)
	}
}

// breakAll spoils requirements in every way Finalize reports.
func breakAll(t *testing.T, job *workspace.Job) {
	t.Helper()
	edit := func(file, old, new string) {
		data, _ := job.ReadInternal(file)
		if !strings.Contains(string(data), old) {
			t.Fatalf("%s lacks %q", file, old)
		}
		job.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)))
	}
	edit("requirements/req_001/final.json", `"recommendation"`, `"advice"`)
	edit("requirements/req_002/final.json", "kept for ten years", "kept for 12 years")
	edit("requirements/req_003/final.json", `"REQ-003"`, `"REQ-009"`)
	job.WriteFile("requirements/req_004/final.json", []byte("{"))
}

func TestFinalizeRefusesInvalid(t *testing.T) {
	t.Parallel()
	job := newJob(t, true)
	s := Open(job)
	saveAll(t, s)
	breakAll(t, job)
	_, err := s.Finalize("", nil)
	var invalid *InvalidError
	if !errors.As(err, &invalid) {
		t.Fatalf("Finalize = %v, want an *InvalidError", err)
	}
	want := []string{
		"requirements/req_001/final.json: field type: [obligation prohibition permission recommendation]",
		"REQ-002 citation 1: the quote was not found in chunk_001. The closest passage there is: «Invoices must be kept for ten years.»",
		"requirements/req_003/final.json has id REQ-009; in this folder it must be REQ-003",
		"requirements/req_004/final.json cannot be read: unexpected end of JSON input",
	}
	kinds := []ProblemKind{BadRecord, BadCitation, MisplacedID, Unreadable}
	if len(invalid.Problems) != len(want) {
		t.Fatalf("problems: %+v", invalid.Problems)
	}
	for i, p := range invalid.Problems {
		if p.Kind != kinds[i] || !strings.HasPrefix(p.String(), want[i]) {
			t.Errorf("problem %d = %v %q, want %v %q", i+1, p.Kind, p.String(), kinds[i], want[i])
		}
	}
	if !strings.HasPrefix(err.Error(), "the output was not written: "+invalid.Problems[0].String()) {
		t.Errorf("Error = %q", err)
	}
	if _, err := os.Stat(filepath.Join(job.Dir, output.RequirementsFile)); err == nil {
		t.Fatal("output written despite problems")
	}
	if _, err := Open(newJob(t, false)).Finalize("", nil); err == nil || err.Error() != "there are no chunks yet: split the document with chunk_document first" {
		t.Errorf("without chunks: %v", err)
	}
}

// A partial output leaves invalid requirements out and says so, and its
// summary opens with the note.
func TestFinalizePartial(t *testing.T) {
	t.Parallel()
	job := newJob(t, true)
	s := Open(job)
	saveAll(t, s)
	breakAll(t, job)
	job.WriteFile("requirements/req_005/final.json", []byte("{"))
	// Ids go on after the highest in use, REQ-009 in req_003.
	saved, err := s.Save(draft("The company must keep business letters.", cite("chunk_001", "Business letters shall be kept for six years.")))
	if err != nil || saved.ID != "REQ-010" {
		t.Fatalf("Save = %+v, %v", saved, err)
	}
	res, err := s.Finalize("Partial result: stopped.", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ids(res.Records) != "REQ-010" || len(res.Invalid) != 5 {
		t.Fatalf("records %s, invalid %+v", ids(res.Records), res.Invalid)
	}
	want := "wrote output/requirements.json with 1 requirement (1 obligation), output/summary.md and output/requirements.csv; 5 invalid requirements left out: " +
		res.Invalid[0].String() + "; " + res.Invalid[1].String() + "; " + res.Invalid[2].String()
	if res.String() != want {
		t.Errorf("String = %q\nwant       %q", res.String(), want)
	}
	if recs := readOutput(t, job); ids(recs) != "REQ-010" {
		t.Errorf("requirements.json holds %s", ids(recs))
	}
	summary, _ := job.ReadInternal(output.SummaryFile)
	if !strings.HasPrefix(string(summary), "> Partial result: stopped.\n\n") {
		t.Errorf("summary.md:\n%s", summary)
	}
}
