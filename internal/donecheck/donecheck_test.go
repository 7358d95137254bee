package donecheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"creator/internal/coverage"
	"creator/internal/output"
	"creator/planner"
	"creator/workspace"
)

// newJob makes a job on a one-line document d.txt, closed when t ends.
func newJob(t *testing.T) *workspace.Job {
	t.Helper()
	dir := t.TempDir()
	doc := filepath.Join(dir, "d.txt")
	if err := os.WriteFile(doc, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	job, err := workspace.Create(filepath.Join(dir, "ws"), workspace.CreateOptions{ID: "c", Inputs: []string{doc}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { job.Close() })
	return job
}

func TestCheck(t *testing.T) {
	t.Parallel()
	job := newJob(t)
	pl := planner.New(job, nil)
	// The coverage, which lists every saved requirement, is measured only
	// once the plan and the output are done: not at every step before.
	measured := 0
	c := Checker{Plan: pl.Load, Output: outputOf(job), MinCoverage: 1, Coverage: func() (coverage.Report, error) {
		measured++
		return coverage.Report{Chunks: 1, Read: 1, Cited: 1}, nil
	}}
	missing := func(want ...string) {
		t.Helper()
		st, err := c.Check()
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(st.Missing, " | ")
		if st.Done != (len(want) == 0) {
			t.Fatalf("Done = %v with missing %q", st.Done, got)
		}
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Fatalf("missing = %q, want it to mention %q", got, w)
			}
		}
	}
	missing("no plan yet", "output/requirements.json does not exist yet")
	pl.Write([]string{"Extract", "Finalize"})
	pl.Complete(1, "")
	missing("task 2 (pending): Finalize", "does not exist yet")
	os.WriteFile(filepath.Join(job.Dir, "output", "requirements.json"), []byte(`[{"id":"REQ-001"}]`), 0o644)
	missing("fix the output", `missing "title"`)
	valid := `[{"id":"REQ-001","title":"t","text":"t","type":"obligation","category":"compliance","priority":"high","frameworks":[],` +
		`"citations":[{"document":"d.txt","chunk":"chunk_001","quote":"q"}],"confidence":0.9,"rationale":"r"}]`
	os.WriteFile(filepath.Join(job.Dir, "output", "requirements.json"), []byte(valid), 0o644)
	missing("task 2")
	pl.Complete(2, "")
	if measured != 0 {
		t.Errorf("coverage measured %d times before the plan and the output were done", measured)
	}
	missing() // complete: every task done and the output valid
	if measured != 1 {
		t.Errorf("coverage measured %d times once the plan and the output were done, want 1", measured)
	}
}

// outputOf reads a job's output/requirements.json, as the job's owner does.
func outputOf(job interface {
	ReadInternal(string) ([]byte, error)
}) func() ([]byte, error) {
	return func() ([]byte, error) { return job.ReadInternal(output.RequirementsFile) }
}
