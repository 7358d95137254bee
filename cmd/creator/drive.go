package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"creator/compaction"
	"creator/internal/agent"
	"creator/internal/completion"
	"creator/internal/humanize"
	"creator/internal/index"
	"creator/internal/llm"
	"creator/internal/tokens"
	"creator/internal/transcript"
	"creator/planner"
	"creator/templates"
	"creator/tools"
	"creator/workspace"
)

func (o *runOptions) settings(baseURL string) workspace.Settings {
	s := workspace.Settings{
		MaxSteps: o.maxSteps, MaxTokens: o.maxTokens, ContextWindow: o.contextWindow,
		SummarizeAt: o.summarizeAt, KeepToolResults: o.keepToolResults, Tokenizer: o.tokenizer,
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
	recs, err := transcript.Load(job)
	if err != nil {
		return fmt.Errorf("job '%s': %w", job.ID, err)
	}
	return o.drive(ctx, job, m, recs)
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
	model := m.client()
	pl := planner.New(job, nil)
	prog := newProgress(o.streams, o.quiet, o.verbose, job)
	pl.OnChange = prog.planChanged
	counter, err := tokens.New(o.tokenizer)
	if err != nil {
		return err
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
	cm.OnCompaction = prog.compacted
	a.Limits = agent.Limits{MaxSteps: o.maxSteps, MaxTokens: o.maxTokens}
	a.Observer = prog

	if _, err := job.UpdateInfo(func(i *workspace.Info) {
		i.Status, i.StopReason, i.FinishedAt = workspace.StatusRunning, "", nil
		i.Model = m.name
		i.Settings = o.settings(m.baseURL)
	}); err != nil {
		return err
	}
	verb := "started"
	if resuming {
		verb = "resumed"
	}
	_ = pl.Log(fmt.Sprintf("job %s with model %s", verb, m.name))
	prog.start(verb, m.name, info)
	if o.verbose {
		c := cm.Config()
		prog.printf("creator: context window %s tokens; clearing from %s, summary at %s, %d tool results kept, results over %s tokens saved to .agent/results/; counted with %s",
			humanize.Int(c.ContextWindow), humanize.Int(c.ClearAt), humanize.Int(c.SummarizeAt), c.KeepToolResults, humanize.Int(c.ResultBudget), o.tokenizer)
	}

	var out agent.Outcome
	if resuming {
		out, err = a.Resume(ctx, recs, firstMessage(job.ID, info))
	} else {
		out, err = a.Start(ctx, firstMessage(job.ID, info))
	}
	if err != nil {
		o.finish(job, workspace.StatusFailed, err.Error(), a.Totals())
		return err
	}
	return o.conclude(job, pl, out)
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
		return tools.JobStats{Steps: t.Steps, PromptTokens: t.PromptTokens, CompletionTokens: t.CompletionTokens, Started: info.CreatedAt}
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

// firstMessage opens the conversation: the job and its input files.
func firstMessage(id string, info workspace.Info) string {
	var docs []string
	for _, in := range info.Inputs {
		docs = append(docs, fmt.Sprintf("input/%s (%s)", in.Name, humanize.Bytes(in.Bytes)))
	}
	return fmt.Sprintf("Job %s. Source documents: %s. Start by reading instructions.md.", id, strings.Join(docs, ", "))
}

// conclude records how the run ended and maps it to an exit code.
func (o *runOptions) conclude(job *workspace.Job, pl *planner.Planner, out agent.Outcome) error {
	hint := "creator resume --job " + job.ID
	switch out.Kind {
	case agent.Completed:
		o.finish(job, workspace.StatusCompleted, "", out.Totals)
		_ = pl.Log("job completed")
		fmt.Fprintf(o.streams.ErrOut, "creator: job '%s' completed in %s (%s tokens)\n", job.ID,
			humanize.Plural(out.Totals.Steps, "step"), humanize.Int(out.Totals.Tokens()))
		fmt.Fprintf(o.streams.Out, "%s/output/requirements.json\n", job.Dir)
		return nil
	case agent.Interrupted:
		o.finish(job, workspace.StatusInterrupted, "", out.Totals)
		_ = pl.Log("job interrupted")
		return &exitError{code: exitInterrupted, err: fmt.Errorf("interrupted; continue with: %s", hint)}
	case agent.ToolFailures:
		o.finish(job, workspace.StatusFailed, out.Reason, out.Totals)
		o.noteError(job, out)
	default:
		o.finish(job, workspace.StatusStopped, out.Reason, out.Totals)
	}
	_ = pl.Log("job stopped: " + out.Reason)
	switch {
	case out.Kind == agent.StepLimit:
		hint += fmt.Sprintf(" --max-steps %d", max(2*o.maxSteps, o.maxSteps+100))
	case out.Kind == agent.TokenLimit:
		hint += fmt.Sprintf(" --max-tokens %d", 2*o.maxTokens)
	}
	code := exitIncomplete
	if out.Kind == agent.ModelFailed && errors.Is(out.Err, llm.ErrUnreachable) {
		code = exitUsage
	}
	return &exitError{code: code, err: fmt.Errorf("job '%s' stopped before completion: %s; continue with: %s", job.ID, out.Reason, hint)}
}

// finish records the final state in job.json.
func (o *runOptions) finish(job *workspace.Job, status workspace.Status, reason string, t agent.Totals) {
	now := o.now().UTC()
	_, _ = job.UpdateInfo(func(i *workspace.Info) {
		i.Status, i.StopReason = status, reason
		i.Usage = workspace.Usage{Steps: t.Steps, PromptTokens: t.PromptTokens, CompletionTokens: t.CompletionTokens}
		i.FinishedAt = &now
	})
}

// noteError appends what stopped the job to notes/errors.md, for the
// person who looks at the job folder and for the agent after a resume.
func (o *runOptions) noteError(job *workspace.Job, out agent.Outcome) {
	entry := fmt.Sprintf("\n## %s — the job stopped\n\n%s.\n\nFix the cause if it is outside the job, then continue with `creator resume --job %s`.\n",
		o.now().UTC().Format(time.RFC3339), strings.TrimSuffix(out.Reason, "."), job.ID)
	_ = job.AppendInternal("notes/errors.md", []byte(entry))
}
