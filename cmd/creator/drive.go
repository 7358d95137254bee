package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"creator/compaction"
	"creator/internal/agent"
	"creator/internal/cost"
	"creator/internal/humanize"
	"creator/internal/jobrun"
	"creator/internal/llm"
	"creator/internal/progress"
	"creator/internal/tokens"
	"creator/internal/transcript"
	"creator/templates"
	"creator/workspace"
)

func (o *runOptions) settings(baseURL string) workspace.Settings {
	s := workspace.Settings{
		MaxSteps: o.maxSteps, MaxTokens: o.maxTokens, MaxCost: o.maxCost, ContextWindow: o.contextWindow,
		SummarizeAt: o.summarizeAt, KeepToolResults: o.keepToolResults, Tokenizer: o.tokenizer,
		PriceIn: o.priceIn, PriceOut: o.priceOut, MinCoverage: o.minCoverage, AllTools: o.allTools,
	}
	if baseURL != "" {
		s.BaseURL = llm.SafeURL(baseURL)
	}
	s.EmbedModel = o.embedModel
	if o.embedBaseURL != "" {
		s.EmbedBaseURL = llm.SafeURL(o.embedBaseURL)
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
	if err := jobrun.CheckDocuments(o.documents); err != nil {
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
	if !o.changed("min-coverage") && s.MinCoverage > 0 {
		o.minCoverage = s.MinCoverage
	}
	if !o.changed("all-tools") && s.AllTools {
		o.allTools = true
	}
	setString := func(name string, dst *string, v string) {
		if !o.changed(name) && *dst == "" {
			*dst = v
		}
	}
	setString("embed-model", &o.embedModel, s.EmbedModel)
	setString("embed-base-url", &o.embedBaseURL, s.EmbedBaseURL)
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
	case o.minCoverage <= 0 || o.minCoverage > 1:
		return usageErrorf("--min-coverage is the share of chunks that must be covered, more than 0 and at most 1, not %g", o.minCoverage)
	case o.maxCost < 0 || o.priceIn < 0 || o.priceOut < 0:
		return usageErrorf("--max-cost, --price-in and --price-out cannot be negative")
	}
	if _, err := tokens.New(o.tokenizer); err != nil {
		return usageErrorf("--tokenizer: %v", err)
	}
	if o.embedBaseURL != "" && !httpURL(o.embedBaseURL) {
		return usageErrorf("--embed-base-url %q is not an http(s) URL such as http://localhost:8080/v1", llm.SafeURL(o.embedBaseURL))
	}
	return nil
}

// drive runs the agent on a locked job and turns the outcome into output
// and an exit code. recs is the transcript to resume from; nil starts the
// job.
func (o *runOptions) drive(ctx context.Context, job *workspace.Job, m modelChoice, recs []transcript.Record) error {
	if m.auto && !o.quiet {
		fmt.Fprintln(o.streams.ErrOut, "creator: no model configured; using the built-in offline model (rules, no LLM). For an LLM give --model and --base-url, or set CREATOR_MODEL and CREATOR_BASE_URL.")
	}
	price, priced := o.pricing(m)
	display := progress.New(progress.Options{Out: o.streams.ErrOut, Live: o.streams.ErrTTY, Width: o.streams.ErrWidth,
		Quiet: o.quiet, Verbose: o.verbose, RedrawEvery: o.redrawEvery, Now: o.now})
	out, err := jobrun.Run(ctx, jobrun.Config{
		Job: job, Model: m.client(o.requestTimeout, o.retryBaseDelay), ModelName: m.name,
		Price: price, Priced: priced,
		Limits:    agent.Limits{MaxSteps: o.maxSteps, MaxTokens: o.maxTokens, MaxCost: o.maxCost},
		Context:   compaction.Config{ContextWindow: o.contextWindow, SummarizeAt: o.summarizeAt, KeepToolResults: o.keepToolResults},
		Tokenizer: o.tokenizer, MinCoverage: o.minCoverage, AllTools: o.allTools, Settings: o.settings(m.baseURL), Transcript: recs,
		Embedder: o.embedder(m), Reporter: display, Now: o.now,
	})
	if err != nil {
		return err
	}
	return o.conclude(job, out, priced)
}

// conclude tells how the run ended and returns the error that carries its
// exit code.
func (o *runOptions) conclude(job *workspace.Job, out jobrun.Outcome, priced bool) error {
	t := out.Agent.Totals
	switch {
	case out.Status == workspace.StatusCompleted:
		if !o.quiet {
			fmt.Fprintf(o.streams.ErrOut, "creator: job '%s' completed in %s (%s)\n", job.ID, humanize.Plural(t.Steps, "step"), humanize.Spent(t.Tokens(), t.CostUSD, priced))
		}
	case out.PartialErr != nil && !o.quiet:
		fmt.Fprintf(o.streams.ErrOut, "creator: no partial output yet: %v\n", firstLine(out.PartialErr.Error()))
	case out.Partial != "" && !o.quiet:
		fmt.Fprintf(o.streams.ErrOut, "creator: partial output: %s\n", out.Partial)
	}
	if out.OutputWritten() {
		fmt.Fprintf(o.streams.Out, "%s/output/requirements.json\n", job.Dir)
	}
	switch out.Status {
	case workspace.StatusCompleted:
		return nil
	case workspace.StatusInterrupted:
		return &exitError{code: out.Exit, err: fmt.Errorf("interrupted; continue with: %s", out.Resume)}
	}
	return &exitError{code: out.Exit, err: fmt.Errorf("job '%s' stopped before completion: %s; continue with: %s", job.ID, out.Agent.Reason, out.Resume)}
}

// pricing is the price of the job's model and whether it is known.
func (o *runOptions) pricing(m modelChoice) (cost.Price, bool) {
	return cost.For(m.name, o.priceIn, o.priceOut, m.builtin())
}

// checkBudget refuses --max-cost for a model whose price is unknown.
func (o *runOptions) checkBudget(m modelChoice) error {
	if _, ok := o.pricing(m); o.maxCost > 0 && !ok {
		return usageErrorf("--max-cost needs the price of %s: give --price-in and --price-out (US dollars per million tokens); known prices: %s",
			m.name, strings.Join(cost.Models(), ", "))
	}
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
