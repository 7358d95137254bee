package offlinemodel_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"creator/internal/agent"
	"creator/internal/coverage"
	"creator/internal/jobrun"
	"creator/internal/offlinemodel"
	"creator/templates"
	"creator/workspace"
)

// handbook is a document whose first chunks hold no requirement: a title
// page with a table of contents, an introduction of informative text;
// then its rules, and a list of references.
func handbook() string {
	var b strings.Builder
	b.WriteString("Records Handbook\n\nVersion 2.1\n\nContents\n\n")
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&b, "%d.%d Topic number %d of the handbook .................................. %d\n", 1+i/20, i%20+1, i, 2+i/10)
	}
	b.WriteString("\n1 Introduction\n\n")
	for i := 1; i <= 45; i++ {
		fmt.Fprintf(&b, "The archive of site %d was opened in %d and holds the files of department %d. ", i, 1950+i, 100+i)
		if i%5 == 0 {
			b.WriteString("\n\n")
		}
	}
	b.WriteString("\n2 Rules\n\n")
	for i := 1; i <= 45; i++ {
		fmt.Fprintf(&b, "Department %d must keep its records of kind %d for ten years. ", 100+i, i)
		if i%5 == 0 {
			b.WriteString("\n\n")
		}
	}
	b.WriteString("\n3 References\n\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "[REF%d] Author %d, \"Keeping Records, Volume %d\", Archive Press, %d.\n", i, i, i, 1990+i)
	}
	return b.String()
}

// A whole job on a document with chunks that hold no requirement
// completes, each of those chunks declared empty with what it is.
func TestJobCoversChunksWithoutRequirements(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := filepath.Join(dir, "handbook.txt")
	if err := os.WriteFile(doc, []byte(handbook()), 0o644); err != nil {
		t.Fatal(err)
	}
	job, err := workspace.Create(filepath.Join(dir, "ws"), workspace.CreateOptions{
		ID: "h", Inputs: []string{doc}, Instructions: templates.Instructions, Model: offlinemodel.Name})
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	if err := job.Lock(); err != nil {
		t.Fatal(err)
	}
	out, err := jobrun.Run(context.Background(), jobrun.Config{Job: job, Model: offlinemodel.New(), ModelName: offlinemodel.Name,
		Limits: agent.Limits{MaxSteps: 200}, Tokenizer: "o200k_base"})
	if err != nil || out.Status != workspace.StatusCompleted {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	ledger, ok := coverage.Load(job.Internal)
	if !ok {
		t.Fatal("no coverage ledger")
	}
	r, err := ledger.MeasureJob(job, []string{"handbook.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Uncovered != 0 || r.Chunks < 4 || r.Cited == 0 {
		t.Fatalf("coverage %s: %s", r, r.Missing(10))
	}
	reasons := map[string]string{}
	for _, e := range r.Empty {
		reasons[e.ID] = e.Reason
	}
	t.Logf("%s; declared empty: %v", r, reasons)
	want := map[string]string{
		"chunk_001": "front matter: title page and table of contents",
		"chunk_002": "informative text: no sentence states a duty",
	}
	for id, reason := range want {
		if reasons[id] != reason {
			t.Errorf("%s declared empty as %q, want %q", id, reasons[id], reason)
		}
	}
	if last := fmt.Sprintf("chunk_%03d", r.Chunks); reasons[last] != "list of references" {
		t.Errorf("%s declared empty as %q, want a list of references", last, reasons[last])
	}
}
