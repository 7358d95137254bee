package jobview

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"creator/internal/job"
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
