package jobrun_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"creator/internal/agent"
	"creator/internal/coverage"
	"creator/internal/document"
	"creator/internal/job"
	"creator/internal/jobrun"
	"creator/internal/offlinemodel"
	"creator/internal/telemetry"
	"creator/planner"
	"creator/templates"
	"creator/workspace"
)

const policy = `Retention policy

1. Scope

This policy applies to all business records.

2. Rules

Records must be kept for ten years.
Invoices shall be archived in a format that cannot be altered.
Staff must not delete records before the end of the retention period.
`

// newJob creates a job for a small policy document.
func newJob(t *testing.T) *job.Job {
	t.Helper()
	dir := t.TempDir()
	doc := filepath.Join(dir, "policy.txt")
	if err := os.WriteFile(doc, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	return lockedJob(t, filepath.Join(dir, "ws"), "t", doc)
}

// lockedJob makes job id on doc in the workspace root, locked as a run
// locks it and closed when t ends.
func lockedJob(t *testing.T, root, id, doc string) *job.Job {
	t.Helper()
	j, err := job.Create(root, workspace.CreateOptions{
		ID: id, Inputs: []string{doc}, Instructions: templates.Instructions, Model: offlinemodel.Name})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	if err := j.Lock(); err != nil {
		t.Fatal(err)
	}
	return j
}

// recorder is a reporter that remembers what it was told.
type recorder struct {
	jobrun.Silent
	coverage []coverage.Report
	mu       sync.Mutex
	started  []jobrun.Start
	models   int
	tools    []string
	plan     []planner.Event
	stopped  int
}

func (r *recorder) Started(s jobrun.Start) {
	r.mu.Lock()
	r.started = append(r.started, s)
	r.mu.Unlock()
}
func (r *recorder) ModelCalled(agent.ModelCall) {
	r.mu.Lock()
	r.models++
	r.mu.Unlock()
}
func (r *recorder) ToolCalled(c agent.ToolCall) {
	r.mu.Lock()
	r.tools = append(r.tools, c.Name)
	r.mu.Unlock()
}
func (r *recorder) CoverageChanged(c coverage.Report) {
	r.mu.Lock()
	r.coverage = append(r.coverage, c)
	r.mu.Unlock()
}
func (r *recorder) PlanChanged(e planner.Event) {
	r.mu.Lock()
	r.plan = append(r.plan, e)
	r.mu.Unlock()
}
func (r *recorder) Stop() { r.mu.Lock(); r.stopped++; r.mu.Unlock() }

func config(job *job.Job, rep jobrun.Reporter, maxSteps int) jobrun.Config {
	return jobrun.Config{Job: job, Model: offlinemodel.New(), ModelName: offlinemodel.Name, Priced: true,
		Settings: workspace.Settings{MaxSteps: maxSteps, Tokenizer: "o200k_base"}, Reporter: rep}
}

// measure is the coverage of a job as status measures it, from a ledger
// that must be there.
func measure(t *testing.T, job *job.Job) coverage.Report {
	t.Helper()
	if _, ok := coverage.Load(job.Workspace().Internal); !ok {
		t.Fatal("no coverage ledger")
	}
	r, err := job.View().Coverage()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func events(t *testing.T, job *job.Job) []telemetry.Event {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(job.Dir, filepath.FromSlash(telemetry.File)))
	if err != nil {
		t.Fatal(err)
	}
	var out []telemetry.Event
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e telemetry.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("events line %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

func TestRunCompletesAndRecords(t *testing.T) {
	t.Parallel()
	job := newJob(t)
	rep := &recorder{}
	out, err := jobrun.Run(context.Background(), config(job, rep, 200))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != workspace.StatusCompleted || out.Exit != jobrun.ExitOK || out.Resume != "" || !out.OutputWritten() {
		t.Fatalf("outcome %+v", out)
	}
	info, err := job.Info()
	if err != nil {
		t.Fatal(err)
	}
	if info.Status != workspace.StatusCompleted || info.FinishedAt == nil || info.Usage.Steps != out.Agent.Totals.Steps || info.Usage.CostUSD == nil {
		t.Fatalf("job.json %+v", info)
	}
	if len(rep.started) != 1 || rep.started[0].Resumed || rep.models != out.Agent.Totals.Steps || len(rep.plan) == 0 || rep.stopped == 0 {
		t.Fatalf("reporter heard %d starts, %d model calls of %d steps, %d plan changes, %d stops",
			len(rep.started), rep.models, out.Agent.Totals.Steps, len(rep.plan), rep.stopped)
	}
	if v := rep.started[0].View; v == nil || v.ID != job.ID {
		t.Errorf("the reporter got no view of the job: %+v", rep.started[0])
	} else if saved, err := v.Saved(); err != nil || len(saved) == 0 {
		t.Errorf("the view lists %d saved requirements, %v", len(saved), err)
	}
	ev := events(t, job)
	first, last := ev[0], ev[len(ev)-1]
	if first.Type != telemetry.TypeJobStarted || last.Type != telemetry.TypeJobFinished || last.Status != "completed" || last.ExitCode == nil || *last.ExitCode != 0 {
		t.Fatalf("events from %+v to %+v", first, last)
	}
	if _, err := os.Stat(filepath.Join(job.Dir, "output", "requirements.json")); err != nil {
		t.Fatal(err)
	}
}

// A budget stops the job with partial output and the command that goes
// on; resuming from the transcript completes it.
func TestRunStopsAtABudgetAndResumes(t *testing.T) {
	t.Parallel()
	job := newJob(t)
	out, err := jobrun.Run(context.Background(), config(job, nil, 8))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != workspace.StatusStopped || out.Exit != jobrun.ExitIncomplete || out.Agent.Kind != agent.StepLimit ||
		out.Resume != "creator resume --job t --max-steps 108" {
		t.Fatalf("outcome %+v", out)
	}
	if out.Partial == "" && out.PartialErr == nil {
		t.Fatal("no word on partial output")
	}
	if info, _ := job.Info(); info.Status != workspace.StatusStopped || info.StopReason != out.Agent.Reason {
		t.Fatalf("job.json %+v", info)
	}
	// The ledger is rebuilt from the transcript when it is lost: status
	// measures the same coverage from the transcript, and so does the
	// resumed run.
	stopped := measure(t, job)
	if err := os.Remove(filepath.Join(job.Dir, coverage.File)); err != nil {
		t.Fatal(err)
	}
	if got, err := job.View().Coverage(); err != nil || !reflect.DeepEqual(got, stopped) || stopped.Read == 0 {
		t.Fatalf("coverage without the ledger %+v, %v; with it %+v", got, err, stopped)
	}
	recs, err := job.Transcript()
	if err != nil || recs == nil {
		t.Fatalf("transcript: %v", err)
	}
	rep := &recorder{}
	out, err = jobrun.Run(context.Background(), func() jobrun.Config {
		c := config(job, rep, 200)
		c.Transcript = recs
		return c
	}())
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != workspace.StatusCompleted || !rep.started[0].Resumed || rep.started[0].Totals.Steps != 8 {
		t.Fatalf("resumed: %+v, start %+v", out, rep.started)
	}
	// The coverage equals that of a job never stopped.
	whole := newJob(t)
	if _, err := jobrun.Run(context.Background(), config(whole, nil, 200)); err != nil {
		t.Fatal(err)
	}
	if got, want := measure(t, job), measure(t, whole); !reflect.DeepEqual(got, want) || want.Covered() != want.Chunks || want.Chunks == 0 {
		t.Errorf("coverage after a stop and a resume %+v, without %+v", got, want)
	}
	if len(rep.coverage) == 0 || rep.coverage[len(rep.coverage)-1].Covered() != measure(t, job).Chunks {
		t.Errorf("the reporter heard coverage %+v", rep.coverage)
	}
}

func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	job := newJob(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := jobrun.Run(ctx, config(job, nil, 200))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != workspace.StatusInterrupted || out.Exit != jobrun.ExitInterrupted || out.OutputWritten() {
		t.Fatalf("outcome %+v", out)
	}
}

// A document checked before the job is made is not extracted again in the
// job: the text the agent's extraction writes is the check's, byte for
// byte, and the same as a fresh extraction of the job's copy.
func TestCheckedDocumentsAreExtractedOnce(t *testing.T) {
	t.Parallel()
	src := filepath.Join("..", "..", "testdata", "sample", "retention-policy.pdf")
	extracted, err := jobrun.CheckDocuments([]string{src}, document.Options{})
	if err != nil {
		t.Fatal(err)
	}
	job := lockedJob(t, filepath.Join(t.TempDir(), "ws"), "once", src)
	cfg := config(job, nil, 200)
	cfg.Extracted = extracted
	out, err := jobrun.Run(context.Background(), cfg)
	if err != nil || out.Status != workspace.StatusCompleted {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	if n, found := extracted.Counts(); n != 1 || found == 0 {
		t.Errorf("the run extracted the document %d times and took it from the check %d times", n, found)
	}
	written, err := os.ReadFile(filepath.Join(job.Dir, "input", "retention-policy.txt"))
	if err != nil {
		t.Fatal(err)
	}
	checked, err := extracted.Extract(src)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := document.Extract(filepath.Join(job.Dir, "input", "retention-policy.pdf"), document.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if string(written) != checked.Text() || string(written) != fresh.Text() {
		t.Error("the text written in the job differs from the check's or from a fresh extraction")
	}
}
