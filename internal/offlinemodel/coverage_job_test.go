package offlinemodel_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"creator/compaction"
	"creator/internal/coverage"
	"creator/internal/job"
	"creator/internal/jobrun"
	"creator/internal/llm"
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

// runHandbook runs a whole job on the handbook with model and returns its
// coverage, the reasons of the chunks declared empty and what context
// management did.
func runHandbook(t *testing.T, model llm.Model, cm compaction.Config) (coverage.Report, map[string]string, compaction.Stats) {
	t.Helper()
	dir := t.TempDir()
	doc := filepath.Join(dir, "handbook.txt")
	if err := os.WriteFile(doc, []byte(handbook()), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := job.Create(filepath.Join(dir, "ws"), workspace.CreateOptions{
		ID: "h", Inputs: []string{doc}, Instructions: templates.Instructions, Model: offlinemodel.Name})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.Lock(); err != nil {
		t.Fatal(err)
	}
	out, err := jobrun.Run(context.Background(), jobrun.Config{Job: j, Model: model, ModelName: offlinemodel.Name,
		Settings:   workspace.Settings{MaxSteps: 200, Tokenizer: "o200k_base", ContextWindow: cm.ContextWindow, SummarizeAt: cm.SummarizeAt, KeepToolResults: cm.KeepToolResults},
		Compaction: compaction.Config{ClearAt: cm.ClearAt}})
	if err != nil || out.Status != workspace.StatusCompleted {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	if _, ok := coverage.Load(j.Workspace().Internal); !ok {
		t.Fatal("no coverage ledger")
	}
	r, err := j.Coverage()
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, e := range r.Empty {
		reasons[e.ID] = e.Reason
	}
	t.Logf("%s in %d steps; declared empty: %v", r, out.Agent.Totals.Steps, reasons)
	return r, reasons, out.Context
}

// A whole job on a document with chunks that hold no requirement
// completes, each of those chunks declared empty with what it is.
func TestJobCoversChunksWithoutRequirements(t *testing.T) {
	t.Parallel()
	r, reasons, _ := runHandbook(t, offlinemodel.New(), compaction.Config{})
	if r.Uncovered != 0 || r.Chunks < 4 || r.Cited == 0 {
		t.Fatalf("coverage %s: %s", r, r.Missing(10))
	}
	want := map[string]string{
		"chunk_001":                         "front matter: title page and table of contents",
		"chunk_002":                         "informative text: no sentence states a duty",
		fmt.Sprintf("chunk_%03d", r.Chunks): "list of references",
	}
	if !reflect.DeepEqual(reasons, want) {
		t.Errorf("declared empty: %v, want %v", reasons, want)
	}
}

// forgetful is the built-in model that leaves out its declarations until
// it has built the output once; removed counts them.
type forgetful struct {
	llm.Model
	removed int
}

func (f *forgetful) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := f.Model.Complete(ctx, req)
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			if c.Name == "finalize_output" {
				return resp, err
			}
		}
	}
	calls := resp.ToolCalls[:0:0]
	for _, c := range resp.ToolCalls {
		if c.Name != "declare_chunk_empty" {
			calls = append(calls, c)
		} else {
			f.removed++
		}
	}
	resp.ToolCalls = calls
	return resp, err
}

// The chunks an output leaves uncovered are worked through after it: the
// job completes as it would have, in a few more steps, also when context
// management has cleared what it read of them and summarised the turns.
func TestJobCoversWhatTheOutputLeftUncovered(t *testing.T) {
	t.Parallel()
	for name, cm := range map[string]compaction.Config{
		"default": {},
		"tight":   {ContextWindow: 20000, SummarizeAt: 6000, ClearAt: 3000, KeepToolResults: 1},
	} {
		t.Run(name, func(t *testing.T) {
			want, wantReasons, _ := runHandbook(t, offlinemodel.New(), cm)
			model := &forgetful{Model: offlinemodel.New()}
			got, reasons, stats := runHandbook(t, model, cm)
			if model.removed == 0 {
				t.Fatal("no declaration was left out: the output left nothing uncovered to work through")
			}
			if got.Uncovered != 0 || got.Cited != want.Cited || !reflect.DeepEqual(reasons, wantReasons) {
				t.Fatalf("coverage %s, %d cited, declared empty %v; want %d cited, %v", got, got.Cited, reasons, want.Cited, wantReasons)
			}
			if cm.ContextWindow > 0 && (stats.Clearings == 0 || stats.Summaries == 0) {
				t.Fatalf("context management %+v: the tight run must clear and summarise", stats)
			}
		})
	}
}
