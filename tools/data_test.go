package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"creator/internal/llm"
	"creator/planner"
)

// data calls a tool and decodes the data of its result into v, as a
// program reading the conversation does.
func data(t *testing.T, reg *Registry, name, args string, v any) (string, error) {
	t.Helper()
	res, err := reg.Call(context.Background(), name, json.RawMessage(args))
	d := llm.MessageData{Value: llm.ValueOf(res.Data)}
	if res.Data != nil && !d.Decode(v) {
		t.Fatalf("%s: data %s does not decode into %T", name, d.Value, v)
	}
	return res.Text, err
}

func TestFileToolsGiveData(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	os.WriteFile(filepath.Join(e.job.Dir, "notes", "three.md"), []byte("one\ntwo\n"+strings.Repeat("x", MaxLineChars+5)+"\n"), 0o644)
	var read FileLines
	if _, err := data(t, e.reg, "read_file", `{"path":"notes/three.md"}`, &read); err != nil {
		t.Fatal(err)
	}
	if read.Path != "notes/three.md" || read.First != 1 || read.Total != 3 || len(read.Lines) != 3 || read.Lines[1] != "two" ||
		!strings.HasSuffix(read.Lines[2], LineCut+" 2,005 characters]") || !read.Complete() {
		t.Errorf("whole read = %+v", read)
	}
	read = FileLines{}
	if _, err := data(t, e.reg, "read_file", `{"path":"notes/three.md","offset":2,"limit":1}`, &read); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(read, FileLines{Path: "notes/three.md", First: 2, Lines: []string{"two"}, Total: 3}) || read.Complete() {
		t.Errorf("partial read = %+v", read)
	}
	os.WriteFile(filepath.Join(e.job.Dir, "notes", "empty.md"), nil, 0o644)
	read = FileLines{}
	if _, err := data(t, e.reg, "read_file", `{"path":"notes/empty.md"}`, &read); err != nil || read.Total != 0 || len(read.Lines) != 0 || !read.Complete() {
		t.Errorf("empty read = %+v, %v", read, err)
	}

	os.MkdirAll(filepath.Join(e.job.Dir, "notes", "sub"), 0o755)
	var listing Listing
	if _, err := data(t, e.reg, "list_files", `{"path":"notes"}`, &listing); err != nil {
		t.Fatal(err)
	}
	want := Listing{Path: "notes", Entries: []ListEntry{{Name: "empty.md"}, {Name: "secret-link"}, {Name: "sub", Dir: true}, {Name: "three.md"}}}
	if !reflect.DeepEqual(listing, want) {
		t.Errorf("listing = %+v, want %+v", listing, want)
	}
}

func TestReadPlanGivesData(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var p PlanData
	if _, err := data(t, e.reg, "read_plan", `{}`, &p); err == nil || !p.NoPlan || len(p.Tasks) != 0 {
		t.Errorf("without a plan: %+v, %v", p, err)
	}
	e.call("write_plan", `{"tasks":["Extract","Chunk"]}`)
	e.call("start_task", `{"task_number":1}`)
	p = PlanData{}
	if _, err := data(t, e.reg, "read_plan", `{}`, &p); err != nil || p.NoPlan || len(p.Tasks) != 2 {
		t.Fatalf("with a plan: %+v, %v", p, err)
	}
	if t1, t2 := p.Tasks[0], p.Tasks[1]; t1.Number != 1 || t1.Text != "Extract" || t1.Status != planner.InProgress || t2.Number != 2 || t2.Status != planner.Pending {
		t.Errorf("tasks = %+v", p.Tasks)
	}
}

func TestDocumentToolsGiveData(t *testing.T) {
	t.Parallel()
	_, reg := docEnv(t)
	var x Extracted
	if _, err := data(t, reg, "extract_document_text", `{"path":"input/policy.pdf"}`, &x); err != nil {
		t.Fatal(err)
	}
	if x.Source != "input/policy.pdf" || x.Output != "input/policy.txt" || x.Pages < 2 {
		t.Errorf("extracted = %+v", x)
	}
	var first, second Chunked
	if _, err := data(t, reg, "chunk_document", `{"path":"input/policy.txt","max_tokens":300}`, &first); err != nil {
		t.Fatal(err)
	}
	if first.Source != "input/policy.txt" || first.Document != "policy.pdf" || first.First != 1 || first.Last < 3 {
		t.Errorf("first document's chunks = %+v", first)
	}
	// A source document is extracted first; its chunks follow the others.
	if _, err := data(t, reg, "chunk_document", `{"path":"input/notes.txt"}`, &second); err != nil {
		t.Fatal(err)
	}
	if second.Source != "input/notes.extracted.txt" || second.Document != "notes.txt" || second.First != first.Last+1 || second.Last != second.First {
		t.Errorf("second document's chunks = %+v (the first's: %+v)", second, first)
	}
}

func TestFinalizeRefusalGivesTheBrokenFiles(t *testing.T) {
	t.Parallel()
	job, reg := reqEnv(t)
	for dir, content := range map[string]string{"req_001": "{not json", "req_002": `{"id":"REQ-002"}`} {
		os.MkdirAll(filepath.Join(job.Dir, "requirements", dir), 0o755)
		os.WriteFile(filepath.Join(job.Dir, "requirements", dir, "final.json"), []byte(content), 0o644)
	}
	var refused FinalizeRefused
	_, err := data(t, reg, "finalize_output", `{}`, &refused)
	if err == nil || !strings.Contains(err.Error(), "requirements/req_001/final.json cannot be read") {
		t.Fatalf("err = %v", err)
	}
	if want := []string{"requirements/req_001/final.json", "requirements/req_002/final.json"}; !reflect.DeepEqual(refused.Broken, want) {
		t.Errorf("broken = %q, want %q", refused.Broken, want)
	}
}
