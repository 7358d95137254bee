package main

import (
	"context"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"creator/internal/corpustest"

	"creator/compaction"
	"creator/internal/agent"
	"creator/internal/job"
	"creator/internal/jobrun"
	"creator/internal/llm"
	"creator/internal/offlinemodel"
	"creator/internal/tokens"
	"creator/templates"
	"creator/workspace"
)

// contextFigures is what a whole job cost in context.
type contextFigures struct {
	steps, summaryCalls     int
	peak, total             int // prompt tokens of the agent's calls, counted
	summaryTokens           int // prompt tokens of the summary calls
	prefixSame, comparisons int
	requirements            int
	stats                   compaction.Stats
	outcome                 agent.Outcome
}

func (f contextFigures) prefixShare() float64 {
	if f.comparisons == 0 {
		return 0
	}
	return float64(f.prefixSame) / float64(f.comparisons)
}

// recordingModel measures every request on its way to the model.
type recordingModel struct {
	llm.Model
	jobrun.Silent
	counter *tokens.Counter

	mu   sync.Mutex
	prev *llm.Request
	f    contextFigures
}

func (r *recordingModel) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	r.mu.Lock()
	if len(req.Tools) == 0 { // a summary request
		r.f.summaryCalls++
		n := r.counter.Count(req.System)
		for _, m := range req.Messages {
			n += r.counter.Count(m.Content)
		}
		r.f.summaryTokens += n
	} else {
		if r.prev != nil {
			r.f.comparisons++
			if startsWith(req, *r.prev) {
				r.f.prefixSame++
			}
		}
		kept := req
		kept.Messages = append([]llm.Message(nil), req.Messages...)
		r.prev = &kept
	}
	r.mu.Unlock()
	return r.Model.Complete(ctx, req)
}

// ModelCalled takes the prompt tokens of each step as context management
// counted them before the call.
func (r *recordingModel) ModelCalled(c agent.ModelCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.f.steps++
	r.f.peak = max(r.f.peak, c.Counted)
	r.f.total += c.Counted
}

// startsWith reports whether req begins with the whole of prev: the same
// system prompt and tools, and prev's messages unchanged — what a server
// with a prompt cache can reuse.
func startsWith(req, prev llm.Request) bool {
	if req.System != prev.System || !reflect.DeepEqual(req.Tools, prev.Tools) || len(prev.Messages) > len(req.Messages) {
		return false
	}
	for i := range prev.Messages {
		if !reflect.DeepEqual(prev.Messages[i], req.Messages[i]) {
			return false
		}
	}
	return true
}

// runContextJob runs the built-in model through a whole job on doc with
// the given context management, sending every tool with every request
// when allTools is set.
func runContextJob(tb testing.TB, doc string, cfg compaction.Config, allTools bool) contextFigures {
	tb.Helper()
	j, err := job.Create(filepath.Join(tb.TempDir(), "ws"), workspace.CreateOptions{
		ID: "ctx", Inputs: []string{doc}, Instructions: templates.Instructions, Model: "builtin"})
	if err != nil {
		tb.Fatal(err)
	}
	defer j.Close()
	model := &recordingModel{Model: offlinemodel.New(), counter: tokens.Default()}
	out, err := jobrun.Run(context.Background(), jobrun.Config{
		Job: j, Model: model, ModelName: offlinemodel.Name, Priced: true,
		Settings: workspace.Settings{MaxSteps: 5000, ContextWindow: cfg.ContextWindow, SummarizeAt: cfg.SummarizeAt,
			KeepToolResults: cfg.KeepToolResults, Tokenizer: tokens.DefaultEncoding, AllTools: allTools},
		Compaction: compaction.Config{ResultBudget: cfg.ResultBudget, ClearAt: cfg.ClearAt, RecentSteps: cfg.RecentSteps, Disabled: cfg.Disabled},
		Reporter:   model,
	})
	if err != nil {
		tb.Fatal(err)
	}
	f := model.f
	f.stats, f.outcome = out.Context, out.Agent
	reqs, _ := j.Workspace().Names("requirements")
	f.requirements = len(reqs)
	return f
}

// BenchmarkContextNIST80053 runs a whole job on the 237-page NIST SP
// 800-53 Rev. 3 three ways — no compaction (layers 2 and 3 off), the
// defaults, and --summarize-at 20000 --context-window 32000 — each with
// tool discovery and with --all-tools, and reports
// for each the peak and total prompt tokens of the agent's calls, the
// clearings and summaries, and the share of calls whose prompt starts with
// the previous call's prompt unchanged (what a prompt cache reuses).
//
// A smoke run (CREATOR_BENCH_SMOKE=1, as CI's) takes GoBD, a seventh of
// the text, which still takes the prompt past the defaults' clearing and
// 20,000 tokens' summaries. It holds the goals of the peaks and of the
// job's completion, not the two of the long document: that without
// compaction the prompt goes far past the defaults' peak, and the share
// of prompts that keep their prefix (in a short job each clearing weighs
// more: 0.80 on GoBD).
func BenchmarkContextNIST80053(b *testing.B) {
	name := "NIST.SP.800-53r3.pdf"
	if benchSmoke() {
		name = "GoBD.pdf"
	}
	doc := corpustest.Path(b, name)
	type contextCase struct {
		name     string
		cfg      compaction.Config
		peakMost int // 0: no goal
		allTools bool
	}
	cases := []contextCase{
		{"none", compaction.Config{Disabled: true}, 0, false},
		{"defaults", compaction.Config{}, 88000, false},
		{"summarize-at-20k", compaction.Config{SummarizeAt: 20000, ContextWindow: 32000}, 25000, false},
	}
	for _, c := range cases[:3] {
		c.name, c.allTools = c.name+"/all-tools", true
		cases = append(cases, c)
	}
	var peaks []int
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var f contextFigures
			for b.Loop() {
				f = runContextJob(b, doc, c.cfg, c.allTools)
			}
			b.ReportMetric(float64(f.steps), "steps")
			b.ReportMetric(float64(f.peak), "peak-prompt-tokens")
			b.ReportMetric(float64(f.total), "total-prompt-tokens")
			b.ReportMetric(float64(f.summaryTokens), "summary-prompt-tokens")
			b.ReportMetric(float64(f.stats.Clearings), "clearings")
			b.ReportMetric(float64(f.stats.Summaries), "summaries")
			b.ReportMetric(f.prefixShare(), "prefix-unchanged-share")
			b.ReportMetric(float64(f.requirements), "requirements")
			if f.outcome.Kind != agent.Completed {
				b.Errorf("the job did not complete: %s", f.outcome.Reason)
			}
			if c.peakMost > 0 && f.peak > c.peakMost {
				b.Errorf("peak prompt %d tokens, goal ≤ %d", f.peak, c.peakMost)
			}
			if c.name == "defaults" && f.prefixShare() < 0.80 && !benchSmoke() {
				b.Errorf("prefix unchanged in %.2f of the calls, goal ≥ 0.80", f.prefixShare())
			}
			peaks = append(peaks, f.peak)
		})
	}
	if len(peaks) >= 2 && peaks[0] <= 2*cases[1].peakMost && !benchSmoke() {
		b.Errorf("without compaction the prompt peaked at %d tokens; the document should take it far past %d", peaks[0], cases[1].peakMost)
	}
}
