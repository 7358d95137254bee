package main

import (
	"fmt"
	"strings"
	"sync"

	"creator/compaction"
	"creator/internal/agent"
	"creator/internal/humanize"
	"creator/planner"
	"creator/workspace"
)

// progress reports a running job on stderr: one line per task change and
// per stop, and with --verbose every tool call and the model's reasoning.
// It also keeps the usage in job.json current after every model call.
type progress struct {
	streams *IOStreams
	quiet   bool
	verbose bool
	job     *workspace.Job

	mu   sync.Mutex
	step int
}

func newProgress(streams *IOStreams, quiet, verbose bool, job *workspace.Job) *progress {
	return &progress{streams: streams, quiet: quiet, verbose: verbose && !quiet, job: job}
}

func (p *progress) printf(format string, a ...any) {
	if !p.quiet {
		fmt.Fprintf(p.streams.ErrOut, format+"\n", a...)
	}
}

func (p *progress) start(verb, model string, info workspace.Info) {
	var names []string
	for _, in := range info.Inputs {
		names = append(names, in.Name)
	}
	p.printf("creator: job '%s' %s with model %s on %s (folder %s)", p.job.ID, verb, model, strings.Join(names, ", "), p.job.Dir)
}

func (p *progress) ModelCalled(c agent.ModelCall) {
	p.mu.Lock()
	p.step = c.Step
	p.mu.Unlock()
	_, _ = p.job.UpdateInfo(func(i *workspace.Info) {
		i.Usage = workspace.Usage{Steps: c.Totals.Steps, PromptTokens: c.Totals.PromptTokens, CompletionTokens: c.Totals.CompletionTokens}
	})
	if p.verbose {
		p.printf("[step %d] %s prompt (%s counted) + %s completion tokens, %s", c.Step, humanize.Int(c.Usage.PromptTokens), humanize.Int(c.Counted), humanize.Int(c.Usage.CompletionTokens), c.Latency.Round(1e6))
		if r := strings.TrimSpace(c.Reasoning); r != "" {
			p.printf("  reasoning: %s", oneLine(r, 400))
		}
		if t := strings.TrimSpace(c.Content); t != "" {
			p.printf("  text: %s", oneLine(t, 400))
		}
	}
}

func (p *progress) ToolCalled(c agent.ToolCall) {
	if !p.verbose {
		return
	}
	status := "ok"
	if c.Err != nil {
		status = "error: " + oneLine(c.Err.Error(), 200)
	}
	p.printf("  %s %s → %s (%s)", c.Name, oneLine(c.Arguments, 160), status, c.Duration.Round(1e5))
}

func (p *progress) compacted(e compaction.Event) {
	if !p.verbose {
		return
	}
	p.mu.Lock()
	step := p.step
	p.mu.Unlock()
	p.printf("[step %d] context %s: %s → %s tokens (%s)", step, e.Kind, humanize.Int(e.Before), humanize.Int(e.After), e.Note)
}

func (p *progress) planChanged(e planner.Event) {
	p.mu.Lock()
	step := p.step
	p.mu.Unlock()
	verb := "started"
	if e.Kind == "task_completed" {
		verb = "completed"
	}
	p.printf("[step %d] task %d %s: %s", step, e.Task.Number, verb, e.Task.Text)
}

func oneLine(s string, most int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > most {
		return string(r[:most]) + "…"
	}
	return s
}
