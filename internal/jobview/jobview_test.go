package jobview

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"creator/internal/job"
	"creator/internal/telemetry"
	"creator/templates"
	"creator/workspace"
)

// Of counts the saved requirements from what it read for the coverage as
// the View's CountSaved counts them from the folders: a folder without
// final.json, a plain file named req_* and a folder whose final.json
// cannot be read are told apart.
func TestOfCountsRequirementsAsTheFoldersSay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := filepath.Join(dir, "policy.txt")
	if err := os.WriteFile(doc, []byte("Records must be kept for ten years.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := job.Create(filepath.Join(dir, "ws"), workspace.CreateOptions{ID: "v", Inputs: []string{doc}, Instructions: templates.Instructions})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	view := j.View()
	reqs := filepath.Join(j.Dir, "requirements")
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(reqs, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("req_001/final.json", `{"id":"REQ-001","citations":[{"chunk":"chunk_001"}]}`)
	write("req_002/draft.json", `{}`)                                                        // being drafted
	write("req_003/final.json", `not json`)                                                  // damaged, still saved
	write("req_004", `a file, not a requirement`)                                            // not a folder
	write("notes_005/final.json", `{"id":"REQ-005"}`)                                        // not req_*
	if err := os.MkdirAll(filepath.Join(reqs, "req_006", "final.json"), 0o755); err != nil { // cannot be read
		t.Fatal(err)
	}
	want := view.CountSaved()
	if want != 3 {
		t.Fatalf("CountSaved = %d, want 3", want)
	}
	v := Of(view, false)
	if v.Requirements != want {
		t.Errorf("Of counted %d requirements, want %d", v.Requirements, want)
	}
	r, err := view.Coverage()
	if err != nil {
		t.Fatal(err)
	}
	if v.Coverage == nil || !reflect.DeepEqual(*v.Coverage, r) {
		t.Errorf("Of's coverage %+v, the View's %+v", v.Coverage, r)
	}
}

// A running job whose last event is a failed attempt at the model server
// says why it waits; a job that is not running does not.
func TestWaitingForTheServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := filepath.Join(dir, "policy.txt")
	if err := os.WriteFile(doc, []byte("Records must be kept for ten years.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := job.Create(filepath.Join(dir, "ws"), workspace.CreateOptions{ID: "w", Inputs: []string{doc}, Instructions: templates.Instructions})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	events, err := j.OpenEvents()
	if err != nil {
		t.Fatal(err)
	}
	rec := telemetry.New(events, nil, func() time.Time { return time.Now().Add(time.Hour) }, false)
	rec.ServerRetry(3, 502, "Provider returned error", 8*time.Second, time.Date(2026, 11, 28, 12, 0, 8, 0, time.UTC))
	events.Close()
	if v := Of(j.View(), true); v.Waiting != "" {
		t.Errorf("a job not running waits: %q", v.Waiting)
	}
	if err := j.Lock(); err != nil {
		t.Fatal(err)
	}
	v := Of(j.View(), true)
	if want := `the model server failed (attempt 3): HTTP 502 "Provider returned error"; trying again at 2026-11-28T12:00:08Z`; v.Waiting != want {
		t.Errorf("waiting %q, want %q", v.Waiting, want)
	}
}

// The table of `creator list`, and `creator status`, show a file name's
// invisible characters as escapes: a name cannot hide a part of itself,
// reorder what it shows (policy<U+202E>fdp.exe reads as policyexe.pdf) or
// break the table's rows and columns.
func TestListShowsInvisibleCharactersOfNames(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	names := []string{"poli\u200Bcy.pdf", "policy\u202Efdp.exe", "a\u200Fb\u061Cc\u2028d\u2066e.md", "tab\there.txt", "new\nline.txt", "Größe ≤ 5.pdf"}
	var inputs []Input
	for _, n := range names {
		inputs = append(inputs, Input{Name: n})
	}
	if err := WriteList(&b, []View{{ID: "j", State: "completed", Inputs: inputs}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := `poli\u200bcy.pdf,policy\u202efdp.exe,a\u200fb\u061cc\u2028d\u2066e.md,tab\u0009here.txt,new\u000aline.txt,Größe ≤ 5.pdf`
	if len(lines) != 2 || !strings.Contains(lines[1], "  "+want+"  ") {
		t.Errorf("list:\n%s\nwant the inputs %s", b.String(), want)
	}
	// And so does status.
	b.Reset()
	if err := WriteStatus(&b, View{ID: "j", State: "completed", Inputs: inputs}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `poli\u200bcy.pdf (`) || !strings.Contains(b.String(), `policy\u202efdp.exe (`) {
		t.Errorf("status:\n%s", b.String())
	}
}
