package jobrun_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"creator/internal/agent"
	"creator/internal/cost"
	"creator/internal/job"
	"creator/internal/jobrun"
	"creator/internal/telemetry"
	"creator/workspace"
)

// A spent budget stops the fan-out: once the job's step, token or cost
// budget is reached, or its context is cancelled (Ctrl-C), a few
// sub-agents into a fan-out of 100 chunks, no sub-agent starts any more,
// nothing is written for the chunks never started, the run stops
// resumably within 5 s, and a resume with room to spare finishes the job
// with the requirements of a run that never stopped.
func TestASpentBudgetStopsTheFanOut(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("whole jobs of 100 chunks")
	}
	chunks, parallel := 100, 4
	if raceDetector {
		chunks = 40 // still ten times the sub-agents at once
	}
	price := cost.Price{In: 2, Out: 8}
	ref := sectionedJob(t, chunks)
	runJob(t, ref, budgetConfig(ref, parallel, price, workspace.Settings{}), workspace.StatusCompleted)
	want := readJobFile(t, ref, "output/requirements.json")

	// The budgets run out after the main agent's calls before the fan-out
	// and spent more calls of sub-agents: what the reference run had spent
	// by then.
	const spent = 12
	evs := events(t, ref)
	mainCalls := 0
	for _, e := range evs {
		if e.Type == telemetry.TypeSubagentStarted {
			break
		}
		if e.Type == telemetry.TypeLLMCall {
			mainCalls++
		}
	}
	calls := callTotals(evs)
	if mainCalls == 0 || len(calls) < mainCalls+chunks {
		t.Fatalf("%d calls, %d of them before the first sub-agent: the test proves nothing", len(calls), mainCalls)
	}
	at := calls[mainCalls+spent-1]

	cases := []struct {
		name   string
		budget workspace.Settings
		kind   agent.StopKind
		cancel bool // Ctrl-C at that call instead of a budget
	}{
		{"steps", workspace.Settings{MaxSteps: at.Steps}, agent.StepLimit, false},
		{"tokens", workspace.Settings{MaxTokens: at.Tokens()}, agent.TokenLimit, false},
		{"cost", workspace.Settings{MaxCost: at.CostUSD}, agent.CostLimit, false},
		{"interrupt", workspace.Settings{}, agent.Interrupted, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			j := sectionedJob(t, chunks)
			cfg := budgetConfig(j, parallel, price, c.budget)
			ctx := context.Background()
			var stopper *cancelAt
			if c.cancel {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
				stopper = &cancelAt{steps: at.Steps, cancel: cancel}
				cfg.Reporter = stopper
			}
			out, err := jobrun.Run(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			wantExit := jobrun.ExitIncomplete
			if c.cancel {
				wantExit = jobrun.ExitInterrupted
			}
			if out.Agent.Kind != c.kind || out.Exit != wantExit || !out.Agent.Kind.Resumable() {
				t.Fatalf("stopped with %v (%s), exit %d; want %v, exit %d", out.Agent.Kind, out.Agent.Reason, out.Exit, c.kind, wantExit)
			}

			evs := events(t, j)
			var stop int
			if c.cancel {
				stop = lastBefore(evs, stopper.when())
			} else {
				stop = budgetSpentAt(t, evs, c.budget)
			}
			started := map[string]bool{}
			late := 0
			for i, e := range evs {
				if e.Type != telemetry.TypeSubagentStarted {
					continue
				}
				started[e.Chunk] = true
				if i > stop {
					late++
				}
			}
			// A sub-agent whose start was decided just before the budget
			// ran out may say so just after; each of the other workers
			// can have one such.
			t.Logf("%d sub-agents started, %d after the budget ran out", len(started), late)
			if late > parallel-1 {
				t.Errorf("%d sub-agents started after the budget ran out (of %d chunks)", late, chunks)
			}
			for _, name := range subagentFiles(t, j) {
				chunk, _, _ := strings.Cut(name, ".")
				if !started[chunk] {
					t.Errorf(".agent/subagents/%s: written for a chunk whose sub-agent never started", name)
				}
			}
			last := evs[len(evs)-1]
			took := last.Time.Sub(evs[stop].Time)
			if c.cancel {
				took = last.Time.Sub(stopper.when())
			}
			t.Logf("the job finished %v after the budget ran out", took.Round(time.Millisecond))
			if last.Type != telemetry.TypeJobFinished || took > 5*time.Second {
				t.Errorf("the job finished %v after the budget ran out (%s), at most 5 s", took, last.Type)
			}

			if raceDetector && c.name != cases[0].name {
				return // the resume is shown once there
			}
			resumeGives(t, j, parallel, price, want)
		})
	}
}

// resumeGives resumes the stopped job j without budgets, and checks that
// it completes with the requirements want, a run's that never stopped.
func resumeGives(t *testing.T, j *job.Job, parallel int, price cost.Price, want string) {
	t.Helper()
	recs, err := j.Transcript()
	if err != nil {
		t.Fatal(err)
	}
	cfg := budgetConfig(j, parallel, price, workspace.Settings{})
	cfg.Transcript = recs
	runJob(t, j, cfg, workspace.StatusCompleted)
	if got := readJobFile(t, j, "output/requirements.json"); got != want {
		t.Error("the resumed job's requirements differ from those of a run without a budget")
	}
}

// budgetConfig runs j with the built-in model, parallel sub-agents, a
// price and the budgets of b; without them, room for every chunk.
func budgetConfig(j *job.Job, parallel int, price cost.Price, b workspace.Settings) jobrun.Config {
	cfg := config(j, &recorder{}, b.MaxSteps)
	if b.MaxSteps == 0 {
		cfg.Settings.MaxSteps = 100_000
	}
	cfg.Settings.MaxTokens, cfg.Settings.MaxCost = b.MaxTokens, b.MaxCost
	cfg.Settings.Parallel = &parallel
	cfg.Price = price
	return cfg
}

func runJob(t *testing.T, j *job.Job, cfg jobrun.Config, want workspace.Status) {
	t.Helper()
	out, err := jobrun.Run(context.Background(), cfg)
	if err != nil || out.Status != want {
		t.Fatalf("%s: outcome %+v, %v; want %s", j.ID, out, err, want)
	}
}

func readJobFile(t *testing.T, j *job.Job, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(j.Dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// callTotals are the job's totals after each llm_call event, in the
// events' order.
func callTotals(evs []telemetry.Event) []agent.Totals {
	var out []agent.Totals
	var t agent.Totals
	for _, e := range evs {
		if e.Type != telemetry.TypeLLMCall {
			continue
		}
		addCall(&t, e)
		out = append(out, t)
	}
	return out
}

// addCall adds the llm_call event e to the totals t.
func addCall(t *agent.Totals, e telemetry.Event) {
	t.Steps++
	t.PromptTokens += int64(e.PromptTokens)
	t.CompletionTokens += int64(e.CompletionTokens)
	if e.CostUSD != nil {
		t.CostUSD += *e.CostUSD
	}
}

// budgetSpentAt is the index of the llm_call event by which the job had
// reached a budget of b: when it was written, every call before it in the
// file had been counted, and so had its own.
func budgetSpentAt(t *testing.T, evs []telemetry.Event, b workspace.Settings) int {
	t.Helper()
	var tot agent.Totals
	for i, e := range evs {
		if e.Type != telemetry.TypeLLMCall {
			continue
		}
		addCall(&tot, e)
		if (b.MaxSteps > 0 && tot.Steps >= b.MaxSteps) || (b.MaxTokens > 0 && tot.Tokens() >= b.MaxTokens) || (b.MaxCost > 0 && tot.CostUSD >= b.MaxCost) {
			return i
		}
	}
	t.Fatal("the events show no call that reached the budget")
	return -1
}

// lastBefore is the index of the last event written before at.
func lastBefore(evs []telemetry.Event, at time.Time) int {
	i := -1
	for k, e := range evs {
		if !e.Time.After(at) {
			i = k
		}
	}
	return i
}

// subagentFiles are the names of the files in .agent/subagents.
func subagentFiles(t *testing.T, j *job.Job) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(j.Dir, filepath.FromSlash(job.SubagentDir)))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// cancelAt is a reporter that cancels the run (as Ctrl-C does) when the
// job's calls reach steps, and remembers when.
type cancelAt struct {
	jobrun.Silent
	steps  int
	cancel context.CancelFunc

	mu sync.Mutex
	at time.Time
}

func (c *cancelAt) ModelCalled(m agent.ModelCall) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m.Totals.Steps >= c.steps && c.at.IsZero() {
		c.at = time.Now()
		c.cancel()
	}
}

func (c *cancelAt) when() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}
