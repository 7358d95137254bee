package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"creator/internal/job"
	"creator/internal/jobrun"
	"creator/workspace"
)

// The display reads the plan and the saved requirements of the run's job
// through the run's view of it, and leaves that view to the run.
func TestStartedReadsThePlanAndTheRequirements(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := filepath.Join(dir, "policy.txt")
	if err := os.WriteFile(doc, []byte("Records must be kept.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := job.Create(filepath.Join(dir, "ws"), workspace.CreateOptions{ID: "p", Inputs: []string{doc}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	if _, err := j.Plan().Write([]string{"Read the instructions", "Split the document", "Find the requirements"}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Plan().Start(1); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"requirements/req_001/final.json", "requirements/req_002/final.json", "requirements/req_003/draft.json"} {
		if _, err := j.Workspace().WriteFile(rel, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	info, err := j.Info()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	p := New(Options{Out: &out})
	p.Started(jobrun.Start{View: j.View(), Model: "m", Info: info})
	p.mu.Lock()
	line, opened := p.line(), p.job
	p.mu.Unlock()
	if !strings.Contains(line, "0/3 tasks · 2 requirements") || !strings.Contains(line, "task 1. Read the instructions") {
		t.Errorf("line %q", line)
	}
	if opened == nil {
		t.Fatal("no view of the job")
	}
	p.Stop()
	p.Stop()
	if p.job != nil {
		t.Error("the view is kept after Stop")
	}
	if _, err := opened.Info(); err != nil {
		t.Errorf("after Stop, the run's view of its job was closed by the display: %v", err)
	}
}
