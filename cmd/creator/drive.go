package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"creator/compaction"
	"creator/internal/agent"
	"creator/internal/completion"
	"creator/internal/cost"
	"creator/internal/document"
	"creator/internal/humanize"
	"creator/internal/index"
	"creator/internal/llm"
	"creator/internal/telemetry"
	"creator/internal/tokens"
	"creator/internal/transcript"
	"creator/planner"
	"creator/templates"
	"creator/tools"
	"creator/workspace"
)

func (o *runOptions) settings(baseURL string) workspace.Settings {
	s := workspace.Settings{
		MaxSteps: o.maxSteps, MaxTokens: o.maxTokens, MaxCost: o.maxCost, ContextWindow: o.contextWindow,
		SummarizeAt: o.summarizeAt, KeepToolResults: o.keepToolResults, Tokenizer: o.tokenizer,
		PriceIn: o.priceIn, PriceOut: o.priceOut,
	}
	if baseURL != "" {
		s.BaseURL = safeURL(baseURL)
	}
	return s
}

func runRun(ctx context.Context, o *runOptions) error {
	if o.jobID != "" {
		if err := workspace.ValidateID(o.jobID); err != nil {
			return usageErrorf("%v", err)
		}
	}
	if err := o.checkContextFlags(); err != nil {
		return err
	}
	m, err := o.chooseModel("", "")
	if err != nil {
		return err
	}
	if err := o.checkBudget(m); err != nil {
		return err
	}
	if err := checkDocuments(o.documents); err != nil {
		return err
	}
	root, err := o.root()
	if err != nil {
		return err
	}
	job, err := workspace.Create(root, workspace.CreateOptions{
		ID: o.jobID, Inputs: o.documents, Instructions: templates.Instructions,
		Model: m.name, Settings: o.settings(m.baseURL), Version: versionString(), Now: o.now,
	})
	if errors.Is(err, workspace.ErrJobExists) {
		return usageErrorf("%v", err)
	}
	if err != nil {
		return err
	}
	defer job.Close()
	if err := job.Lock(); err != nil {
		return err
	}
	return o.drive(ctx, job, m, nil)
}

func runResume(ctx context.Context, o *runOptions) error {
	job, err := o.openJob(o.jobID)
	if err != nil {
		return err
	}
	defer job.Close()
	if err := job.Lock(); err != nil {
		return err
	}
	info, err := job.Info()
	if err != nil {
		return err
	}
	if info.Status == workspace.StatusCompleted {
		fmt.Fprintf(o.streams.ErrOut, "creator: job '%s' is already completed; its output is in %s/output/\n", job.ID, job.Dir)
		return nil
	}
	// Limits not given on the command line are those the job was started with.
	o.inherit(info.Settings)
	if err := o.checkContextFlags(); err != nil {
		return err
	}
	m, err := o.chooseModel(info.Model, info.Settings.BaseURL)
	if err != nil {
		return err
	}
	if err := o.checkBudget(m); err != nil {
		return err
	}
	recs, err := transcript.Load(job)
	if err != nil {
		return fmt.Errorf("job '%s': %w", job.ID, err)
	}
	return o.drive(ctx, job, m, recs)
}

// checkDocuments reads each document as the agent's extraction will, so
// that one that cannot be used (damaged, encrypted, scanned, empty, too
// large) is refused before a job is made and any model call is paid for.
func checkDocuments(paths []string) error {
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			continue // workspace.Create says what is wrong with it
		} else if err != nil {
			continue
		}
		if _, err := document.Extract(p, document.Options{}); err != nil {
			return fmt.Errorf("%v — no job was created", err)
		}
	}
	return nil
}

// inherit takes the job's recorded settings for flags not given now.
func (o *runOptions) inherit(s workspace.Settings) {
	set := func(name string, dst *int, v int) {
		if !o.changed(name) && v > 0 {
			*dst = v
		}
	}
	set("max-steps", &o.maxSteps, s.MaxSteps)
	set("context-window", &o.contextWindow, s.ContextWindow)
	set("summarize-at", &o.summarizeAt, s.SummarizeAt)
	set("keep-tool-results", &o.keepToolResults, s.KeepToolResults)
	if !o.changed("max-tokens") && s.MaxTokens > 0 {
		o.maxTokens = s.MaxTokens
	}
	if !o.changed("tokenizer") && s.Tokenizer != "" {
		o.tokenizer = s.Tokenizer
	}
	setFloat := func(name string, dst *float64, v float64) {
		if !o.changed(name) && *dst == 0 && v > 0 {
			*dst = v
		}
	}
	setFloat("max-cost", &o.maxCost, s.MaxCost)
	setFloat("price-in", &o.priceIn, s.PriceIn)
	setFloat("price-out", &o.priceOut, s.PriceOut)
}

// checkContextFlags rejects context figures that cannot work, before a job
// is created.
func (o *runOptions) checkContextFlags() error {
	switch {
	case o.contextWindow < 1000:
		return usageErrorf("--context-window must be at least 1000 tokens, not %d", o.contextWindow)
	case o.summarizeAt < 500:
		return usageErrorf("--summarize-at must be at least 500 tokens, not %d", o.summarizeAt)
	case o.keepToolResults < 1:
		return usageErrorf("--keep-tool-results must be at least 1, not %d", o.keepToolResults)
	case o.requestTimeout < time.Second:
		return usageErrorf("--request-timeout must be at least 1s, not %s", o.requestTimeout)
	case o.maxCost < 0 || o.priceIn < 0 || o.priceOut < 0:
		return usageErrorf("--max-cost, --price-in and --price-out cannot be negative")
	}
	if _, err := tokens.New(o.tokenizer); err != nil {
		return usageErrorf("--tokenizer: %v", err)
	}
	return nil
}

// drive runs the agent on a locked job, records the outcome in job.json and
// turns it into an exit code. recs is the transcript to resume from; nil
// starts the job.
func (o *runOptions) drive(ctx context.Context, job *workspace.Job, m modelChoice, recs []transcript.Record) error {
	resuming := recs != nil
	info, err := job.Info()
	if err != nil {
		return err
	}
	if m.auto && !o.quiet {
		fmt.Fprintln(o.streams.ErrOut, "creator: no model configured; using the built-in offline model (rules, no LLM). For an LLM give --model and --base-url, or set CREATOR_MODEL and CREATOR_BASE_URL.")
	}
	price, priced := o.pricing(m)
	model := m.client(o.requestTimeout)
	pl := planner.New(job, nil)
	counter, err := tokens.New(o.tokenizer)
	if err != nil {
		return err
	}
	events, err := os.OpenFile(filepath.Join(job.Dir, filepath.FromSlash(telemetry.File)), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("cannot open the job's events file: %w", err)
	}
	defer events.Close()
	rec := telemetry.New(events, counter, o.now, priced)
	prog := newProgress(o.streams, o.quiet, o.verbose, job, priced, o.now)
	defer prog.stop()
	pl.OnChange = func(e planner.Event) {
		prog.planChanged(e)
		kind := telemetry.TypeTaskStarted
		if e.Kind == "task_completed" {
			kind = telemetry.TypeTaskCompleted
		}
		rec.Task(kind, e.Task.Number, e.Task.Text)
	}
	searcher := o.openIndex(job, prog)
	if idx, ok := searcher.(*index.Index); ok {
		job.Watch(idx)
		defer func() {
			job.Watch(nil)
			_ = idx.Close()
		}()
	}
	a, cm, err := assemble(job, pl, model, counter, searcher, o.compactionConfig(), info)
	if err != nil {
		return err
	}
	cm.OnCompaction = func(e compaction.Event) {
		prog.compacted(e)
		rec.Compaction(e.Kind, e.Before, e.After, e.Note)
	}
	a.Limits = agent.Limits{MaxSteps: o.maxSteps, MaxTokens: o.maxTokens, MaxCost: o.maxCost}
	a.Observer = observers{prog, rec}
	if priced {
		a.Price = func(_ string, u llm.Usage) float64 { return price.Of(u) }
	}

	settings := o.settings(m.baseURL)
	if _, err := job.UpdateInfo(func(i *workspace.Info) {
		i.Status, i.StopReason, i.FinishedAt = workspace.StatusRunning, "", nil
		i.Model = m.name
		i.Settings = settings
	}); err != nil {
		return err
	}
	verb := "started"
	if resuming {
		verb = "resumed"
	}
	_ = pl.Log(fmt.Sprintf("job %s with model %s", verb, m.name))
	conv, startTotals := agent.Rebuild(recs)
	rec.JobStarted(m.name, resuming, startTotals.Steps, settings)
	prog.start(verb, m.name, info, startTotals)
	if o.verbose {
		c := cm.Config()
		prog.printf("creator: context window %s tokens; clearing from %s, summary at %s, %d tool results kept, results over %s tokens saved to .agent/results/; counted with %s",
			humanize.Int(c.ContextWindow), humanize.Int(c.ClearAt), humanize.Int(c.SummarizeAt), c.KeepToolResults, humanize.Int(c.ResultBudget), o.tokenizer)
		if priced && !m.builtin() {
			prog.printf("creator: priced at $%g in, $%g out per million tokens", price.In, price.Out)
		}
	}

	var out agent.Outcome
	if resuming {
		out, err = a.ResumeRebuilt(ctx, conv, startTotals, firstMessage(job.ID, info))
	} else {
		out, err = a.Start(ctx, firstMessage(job.ID, info))
	}
	prog.stop()
	if err != nil {
		o.finish(job, workspace.StatusFailed, err.Error(), a.Totals(), priced)
		rec.JobFinished(string(workspace.StatusFailed), exitFailure, err.Error(), a.Totals())
		return err
	}
	status, cerr := o.conclude(job, pl, out, priced)
	rec.JobFinished(string(status), exitCode(ctx, cerr), out.Reason, out.Totals)
	return cerr
}

// observers hands every model and tool call to each of its members.
type observers []agent.Observer

func (obs observers) ModelCalled(c agent.ModelCall) {
	for _, o := range obs {
		o.ModelCalled(c)
	}
}

func (obs observers) ToolCalled(c agent.ToolCall) {
	for _, o := range obs {
		o.ToolCalled(c)
	}
}

// pricing is the price of the job's model and whether it is known: from
// --price-in/--price-out, nothing for the built-in model, else the table.
func (o *runOptions) pricing(m modelChoice) (cost.Price, bool) {
	switch {
	case o.priceIn > 0 || o.priceOut > 0:
		return cost.Price{In: o.priceIn, Out: o.priceOut}, true
	case m.builtin():
		return cost.Price{}, true
	}
	return cost.Lookup(m.name)
}

// checkBudget refuses --max-cost for a model whose price is unknown.
func (o *runOptions) checkBudget(m modelChoice) error {
	if _, ok := o.pricing(m); o.maxCost > 0 && !ok {
		return usageErrorf("--max-cost needs the price of %s: give --price-in and --price-out (US dollars per million tokens); known prices: %s",
			m.name, strings.Join(cost.Models(), ", "))
	}
	return nil
}

// openIndex opens the job's search index, brought up to date with its files.
// Without it, search_files still scans with regular expressions.
func (o *runOptions) openIndex(job *workspace.Job, prog *progress) tools.Searcher {
	idx, err := index.Open(job.Dir, job.FS())
	if err != nil {
		prog.printf("creator: warning: %v; search_files works with regex: true only", err)
		return index.ScanOnly{FS: job.FS(), Reason: err}
	}
	st := idx.Stats()
	switch {
	case st.Rebuilt && st.Reason != "no index yet":
		prog.printf("creator: search index rebuilt (%s): %d files", st.Reason, st.Files)
	case st.Indexed+st.Removed > 0 && o.verbose:
		prog.printf("creator: search index: %d changed files indexed again, %d removed", st.Indexed, st.Removed)
	}
	return idx
}

func (o *runOptions) compactionConfig() compaction.Config {
	return compaction.Config{ContextWindow: o.contextWindow, SummarizeAt: o.summarizeAt, KeepToolResults: o.keepToolResults}
}

// assemble builds the agent for a job: the tools, the completion check, the
// transcript and context management, around a model.
func assemble(job *workspace.Job, pl *planner.Planner, model llm.Model, counter *tokens.Counter, searcher tools.Searcher, cc compaction.Config, info workspace.Info) (*agent.Agent, *compaction.Manager, error) {
	journal := transcript.NewWriter(job)
	a := &agent.Agent{
		Model:      model,
		Completion: completion.Checker{Planner: pl, Files: job},
		Journal:    journal,
		System:     templates.SystemPrompt,
	}
	stats := func() tools.JobStats {
		t := a.Totals()
		st := tools.JobStats{Steps: t.Steps, PromptTokens: t.PromptTokens, CompletionTokens: t.CompletionTokens, Started: info.CreatedAt,
			MaxSteps: a.Limits.MaxSteps, MaxTokens: a.Limits.MaxTokens, MaxCost: a.Limits.MaxCost}
		if a.Price != nil {
			st.CostUSD = &t.CostUSD
		}
		return st
	}
	all := append(tools.WorkspaceTools(job), tools.PlanningTools(pl, stats, nil)...)
	all = append(all, tools.DocumentTools(job, counter)...)
	all = append(all, tools.RequirementTools(job)...)
	all = append(all, tools.SearchTools(job, searcher)...)
	reg, err := tools.NewRegistry(all...)
	if err != nil {
		return nil, nil, err
	}
	a.Tools = reg
	cm := compaction.New(cc, model, counter, job, journal, compaction.WorkspaceBrief(job), a.System, reg.Definitions())
	a.Hook = cm
	return a, cm, nil
}

// firstMessage opens the conversation: the job and its input files, also
// as data.
func firstMessage(id string, info workspace.Info) llm.Message {
	var docs, names []string
	for _, in := range info.Inputs {
		docs = append(docs, fmt.Sprintf("input/%s (%s)", in.Name, humanize.Bytes(in.Bytes)))
		names = append(names, in.Name)
	}
	return llm.Message{Content: fmt.Sprintf("Job %s. Source documents: %s. Start by reading instructions.md.", id, strings.Join(docs, ", ")),
		Data: llm.MessageData{Value: llm.ValueOf(workspace.Assignment{Job: id, Inputs: names})}}
}

// conclude records how the run ended, writes the output of a job stopped
// at a budget, and maps the outcome to an exit code.
func (o *runOptions) conclude(job *workspace.Job, pl *planner.Planner, out agent.Outcome, priced bool) (workspace.Status, error) {
	hint := "creator resume --job " + job.ID
	var status workspace.Status
	switch out.Kind {
	case agent.Completed:
		o.finish(job, workspace.StatusCompleted, "", out.Totals, priced)
		_ = pl.Log("job completed")
		if !o.quiet {
			fmt.Fprintf(o.streams.ErrOut, "creator: job '%s' completed in %s (%s)\n", job.ID,
				humanize.Plural(out.Totals.Steps, "step"), spent(out.Totals, priced))
		}
		fmt.Fprintf(o.streams.Out, "%s/output/requirements.json\n", job.Dir)
		return workspace.StatusCompleted, nil
	case agent.Interrupted:
		o.finish(job, workspace.StatusInterrupted, "", out.Totals, priced)
		_ = pl.Log("job interrupted")
		return workspace.StatusInterrupted, &exitError{code: exitInterrupted, err: fmt.Errorf("interrupted; continue with: %s", hint)}
	case agent.ToolFailures:
		status = workspace.StatusFailed
		o.finish(job, status, out.Reason, out.Totals, priced)
		o.noteError(job, out)
	default:
		status = workspace.StatusStopped
		o.finish(job, status, out.Reason, out.Totals, priced)
	}
	_ = pl.Log("job stopped: " + out.Reason)
	switch out.Kind {
	case agent.StepLimit:
		hint += fmt.Sprintf(" --max-steps %d", max(2*o.maxSteps, o.maxSteps+100))
	case agent.TokenLimit:
		hint += fmt.Sprintf(" --max-tokens %d", max(2*o.maxTokens, 2*out.Totals.Tokens()))
	case agent.CostLimit:
		// Twice the budget, or twice what was spent (one call can overshoot).
		hint += fmt.Sprintf(" --max-cost %g", max(2*o.maxCost, math.Ceil(200*out.Totals.CostUSD)/100))
	}
	switch out.Kind {
	case agent.StepLimit, agent.TokenLimit, agent.CostLimit:
		// A budget is not a failure: what exists so far becomes the output.
		note := fmt.Sprintf("Partial result: the job stopped before completion (%s). Continue it with `%s`.", out.Reason, hint)
		msg, err := tools.FinalizePartial(job, note)
		switch {
		case err != nil && !o.quiet:
			fmt.Fprintf(o.streams.ErrOut, "creator: no partial output yet: %v\n", firstLine(err.Error()))
		case err == nil:
			if !o.quiet {
				fmt.Fprintf(o.streams.ErrOut, "creator: partial output: %s\n", msg)
			}
			fmt.Fprintf(o.streams.Out, "%s/output/requirements.json\n", job.Dir)
		}
	}
	code := exitIncomplete
	if out.Kind == agent.ModelFailed && errors.Is(out.Err, llm.ErrUnreachable) {
		code = exitUsage
	}
	return status, &exitError{code: code, err: fmt.Errorf("job '%s' stopped before completion: %s; continue with: %s", job.ID, out.Reason, hint)}
}

// spent says what a run used: tokens, and the cost when it is known.
func spent(t agent.Totals, priced bool) string {
	s := humanize.Int(t.Tokens()) + " tokens"
	if priced && t.CostUSD > 0 {
		s += ", " + dollars(t.CostUSD)
	}
	return s
}

// dollars shows an amount of US dollars: cents, or tenths of a cent below
// ten cents.
func dollars(v float64) string {
	if v < 0.1 {
		return fmt.Sprintf("$%.3f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// finish records the final state in job.json.
func (o *runOptions) finish(job *workspace.Job, status workspace.Status, reason string, t agent.Totals, priced bool) {
	now := o.now().UTC()
	_, _ = job.UpdateInfo(func(i *workspace.Info) {
		i.Status, i.StopReason = status, reason
		i.Usage = usageOf(t, priced, i.Usage.Compactions)
		i.FinishedAt = &now
	})
}

// usageOf is the job.json form of the totals.
func usageOf(t agent.Totals, priced bool, compactions int) workspace.Usage {
	u := workspace.Usage{Steps: t.Steps, PromptTokens: t.PromptTokens, CompletionTokens: t.CompletionTokens, CachedTokens: t.CachedTokens, Compactions: compactions}
	if priced {
		c := t.CostUSD
		u.CostUSD = &c
	}
	return u
}

// noteError appends what stopped the job to notes/errors.md, for the
// person who looks at the job folder and for the agent after a resume.
func (o *runOptions) noteError(job *workspace.Job, out agent.Outcome) {
	entry := fmt.Sprintf("\n## %s — the job stopped\n\n%s.\n\nFix the cause if it is outside the job, then continue with `creator resume --job %s`.\n",
		o.now().UTC().Format(time.RFC3339), strings.TrimSuffix(out.Reason, "."), job.ID)
	_ = job.AppendInternal("notes/errors.md", []byte(entry))
}
