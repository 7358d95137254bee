package donecheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"creator/internal/coverage"
	"creator/internal/output"
	"creator/planner"
)

// Once the plan and the output are done, the coverage decides: a job whose
// chunks are not all covered is not done, and what is missing names the
// uncovered chunks; a covered job is done.
func TestCheckCoverage(t *testing.T) {
	t.Parallel()
	job := newJob(t)
	pl := planner.New(job, nil)
	if _, err := pl.Write([]string{"Extract"}); err != nil {
		t.Fatal(err)
	}
	if _, err := pl.Complete(1, ""); err != nil {
		t.Fatal(err)
	}
	valid := `[{"id":"REQ-001","title":"t","text":"t","type":"obligation","category":"compliance","priority":"high","frameworks":[],` +
		`"citations":[{"document":"d.txt","chunk":"chunk_001","quote":"q"}],"confidence":0.9,"rationale":"r"}]`
	if err := os.WriteFile(filepath.Join(job.Dir, filepath.FromSlash(output.RequirementsFile)), []byte(valid), 0o644); err != nil {
		t.Fatal(err)
	}
	gap := coverage.Report{Chunks: 2, Read: 1, Cited: 1, Uncovered: 1,
		Gaps: []coverage.Gap{{ID: "chunk_002", Why: "lines 3-9 not read"}}}
	covered := coverage.Report{Chunks: 2, Read: 2, Cited: 2}
	for _, c := range []struct {
		name    string
		report  coverage.Report
		min     float64
		missing []string // empty: done
	}{
		{"a chunk uncovered", gap, 1, []string{"the documents are not covered (1 of 2 chunks covered", "chunk_002 (lines 3-9 not read)", "declare_chunk_empty"}},
		{"half is enough", gap, 0.5, nil},
		{"every chunk covered", covered, 1, nil},
		{"no chunks yet", coverage.Report{Unchunked: []string{"d.txt"}}, 1, []string{"not chunked yet: d.txt"}},
	} {
		measured := 0
		st, err := Checker{Plan: pl.Load, Output: outputOf(job), MinCoverage: c.min, Coverage: func() (coverage.Report, error) {
			measured++
			return c.report, nil
		}}.Check()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if measured != 1 {
			t.Errorf("%s: coverage measured %d times", c.name, measured)
		}
		got := strings.Join(st.Missing, " | ")
		if st.Done != (len(c.missing) == 0) || len(st.Missing) != min(len(c.missing), 1) {
			t.Errorf("%s: Done = %v, missing %q", c.name, st.Done, got)
		}
		for _, w := range c.missing {
			if !strings.Contains(got, w) {
				t.Errorf("%s: missing %q, want it to mention %q", c.name, got, w)
			}
		}
	}
}
