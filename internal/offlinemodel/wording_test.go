package offlinemodel_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"creator/compaction"
	"creator/internal/agent"
	"creator/internal/donecheck"
	"creator/internal/index"
	"creator/internal/llm"
	"creator/internal/offlinemodel"
	"creator/internal/output"
	"creator/internal/reqstore"
	"creator/internal/transcript"
	"creator/planner"
	"creator/templates"
	"creator/tools"
	"creator/workspace"
)

// rot13 rewords a text: letters and digits rotated, so that it is another
// text for every text, with the same length and lines.
func rot13(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+13)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+13)%26
		case r >= '0' && r <= '9':
			return '0' + (r-'0'+5)%10
		}
		return r
	}, s)
}

// rewordedTools gives the text of every result and error in other words,
// and the same data.
type rewordedTools struct{ agent.Tools }

func (r rewordedTools) Call(ctx context.Context, name string, args json.RawMessage) (llm.ToolResult, error) {
	res, err := r.Tools.Call(ctx, name, args)
	res.Text = rot13(res.Text)
	if err != nil {
		err = errors.New(rot13(err.Error()))
	}
	return res, err
}

// byteCounter counts four bytes as a token, so that a reworded result
// counts as much as the original and context management acts at the same
// steps.
type byteCounter struct{}

func (byteCounter) Count(s string) int { return len(s) / 4 }

// wordedRun is what a job run by the built-in model did.
type wordedRun struct {
	steps        int
	answers      []llm.Message // the model's answers, in order
	results      []string      // the text of the tool results
	stats        compaction.Stats
	requirements string
}

// runWorded runs a whole job on doc with the built-in model, its context
// managed tightly so that results are cleared and turns summarised.
func runWorded(t *testing.T, doc string, reword bool) wordedRun {
	t.Helper()
	job, err := workspace.Create(filepath.Join(t.TempDir(), "ws"), workspace.CreateOptions{
		ID: "w", Inputs: []string{doc}, Instructions: templates.Instructions, Model: offlinemodel.Name})
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	info, err := job.Info()
	if err != nil {
		t.Fatal(err)
	}
	pl := planner.New(job, nil)
	all := append(tools.WorkspaceTools(job.Files), tools.PlanningTools(pl, nil, nil)...)
	docs, err := tools.DocumentFilesOf(job)
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, tools.DocumentTools(docs, byteCounter{})...)
	all = append(all, tools.RequirementTools(reqstore.Open(job), nil)...)
	all = append(all, tools.SearchTools(job.Files, index.ScanOnly{FS: job.FS()})...)
	reg, err := tools.NewRegistry(all...)
	if err != nil {
		t.Fatal(err)
	}
	model := offlinemodel.New()
	journal := transcript.NewWriter(job)
	cfg := compaction.Config{ContextWindow: 20000, SummarizeAt: 6000, ClearAt: 3000, KeepToolResults: 3}
	cm := compaction.New(compaction.Options{Config: cfg, Model: model, Counter: byteCounter{}, Files: job, Journal: journal,
		Brief: compaction.WorkspaceBrief(job, pl.Load), System: templates.SystemPrompt, Tools: reg.Definitions()})
	a := &agent.Agent{Model: model, Tools: reg, Completion: donecheck.Checker{Plan: pl.Load, Output: func() ([]byte, error) { return job.ReadInternal(output.RequirementsFile) }}, Journal: journal,
		System: templates.SystemPrompt, Hook: cm, Limits: agent.Limits{MaxSteps: 500}}
	if reword {
		a.Tools = rewordedTools{reg}
	}
	var names []string
	for _, in := range info.Inputs {
		names = append(names, in.Name)
	}
	first := llm.Message{Content: "Job w. Source documents: " + strings.Join(names, ", ") + ".",
		Data: llm.MessageData{Value: llm.ValueOf(workspace.Assignment{Job: job.ID, Inputs: names})}}
	out, err := a.Start(context.Background(), first)
	if err != nil || out.Kind != agent.Completed {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	recs, err := transcript.Load(job)
	if err != nil {
		t.Fatal(err)
	}
	run := wordedRun{steps: out.Totals.Steps, stats: cm.Stats()}
	for _, r := range recs {
		switch {
		case r.Type != transcript.TypeMessage:
		case r.Message.Role == llm.RoleAssistant:
			run.answers = append(run.answers, *r.Message)
		case r.Message.Role == llm.RoleTool:
			run.results = append(run.results, r.Message.Content)
		}
	}
	data, err := os.ReadFile(filepath.Join(job.Dir, "output", "requirements.json"))
	if err != nil {
		t.Fatal(err)
	}
	run.requirements = string(data)
	return run
}

// The built-in model reads what the tools give as data, never the wording
// of their text: with every result and error reworded, a whole job takes
// the same steps, with the same calls, to the same output — clearings and
// summaries included.
func TestRewordedToolResultsChangeNothing(t *testing.T) {
	t.Parallel()
	doc := filepath.Join("..", "..", "testdata", "sample", "retention-policy.pdf")
	plain := runWorded(t, doc, false)
	reworded := runWorded(t, doc, true)
	if plain.stats.Clearings == 0 || plain.stats.Summaries == 0 {
		t.Fatalf("stats %+v: the job must clear and summarise", plain.stats)
	}
	if plain.steps != reworded.steps || plain.stats != reworded.stats {
		t.Fatalf("steps %d, %+v; reworded %d, %+v", plain.steps, plain.stats, reworded.steps, reworded.stats)
	}
	if len(plain.answers) != len(reworded.answers) {
		t.Fatalf("%d answers, reworded %d", len(plain.answers), len(reworded.answers))
	}
	for i := range plain.answers {
		if !sameAnswer(plain.answers[i], reworded.answers[i]) {
			t.Fatalf("answer %d differs:\n%+v\nreworded:\n%+v", i+1, plain.answers[i], reworded.answers[i])
		}
	}
	if plain.requirements != reworded.requirements || !strings.Contains(plain.requirements, `"id": "REQ-001"`) {
		t.Fatalf("outputs differ or are empty:\n%s\nreworded:\n%s", plain.requirements, reworded.requirements)
	}
	// The wording did change.
	same := 0
	for i := range plain.results {
		if plain.results[i] == reworded.results[i] {
			same++
		}
	}
	if same > len(plain.results)/10 {
		t.Fatalf("%d of %d results read the same reworded", same, len(plain.results))
	}
}

// sameAnswer compares answers of the two runs. The notes of complete_task
// may pass a tool's text on as it read (finalize_output's), and so read
// reworded.
func sameAnswer(plain, reworded llm.Message) bool {
	if plain.Content != reworded.Content || len(plain.ToolCalls) != len(reworded.ToolCalls) {
		return false
	}
	for i, c := range plain.ToolCalls {
		r := reworded.ToolCalls[i]
		if c.ID != r.ID || c.Name != r.Name {
			return false
		}
		var a, b map[string]any
		if json.Unmarshal([]byte(c.Arguments), &a) != nil || json.Unmarshal([]byte(r.Arguments), &b) != nil {
			return c.Arguments == r.Arguments
		}
		if c.Name == "complete_task" && a["notes"] != b["notes"] {
			if notes, ok := a["notes"].(string); !ok || rot13(notes) != b["notes"] {
				return false
			}
			delete(a, "notes")
			delete(b, "notes")
		}
		if !reflect.DeepEqual(a, b) {
			return false
		}
	}
	return true
}
