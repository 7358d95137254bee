package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"creator/internal/cost"
	"creator/internal/document"
	"creator/internal/humanize"
	"creator/internal/job"
	"creator/internal/jobrun"
	"creator/internal/llm"
	"creator/internal/progress"
	"creator/internal/secret"
	"creator/internal/tokens"
	"creator/internal/transcript"
	"creator/templates"
	"creator/workspace"
)

// MaxParallel bounds --parallel: more sub-agents than this only queue at
// the server.
const MaxParallel = 64

func (o *runOptions) settings(baseURL string) workspace.Settings {
	s := workspace.Settings{
		MaxSteps: o.maxSteps, MaxTokens: o.maxTokens, MaxCost: o.maxCost, ContextWindow: o.contextWindow,
		SummarizeAt: o.summarizeAt, KeepToolResults: o.keepToolResults, Tokenizer: o.tokenizer,
		PriceIn: o.priceIn, PriceOut: o.priceOut, MinCoverage: o.minCoverage, AllTools: o.allTools,
		SendReasoning: o.sendReasoning, Parallel: &o.parallel, MaxText: o.maxText,
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
	m, err := o.checkedModel("", "")
	if err != nil {
		return err
	}
	extracted, err := jobrun.CheckDocumentsContext(ctx, o.documents, o.documentOptions())
	if err != nil {
		if errors.Is(err, ctx.Err()) {
			return err // interrupted: exit 130, nothing made
		}
		return fmt.Errorf("%v — no job was created", err)
	}
	root, err := o.root()
	if err != nil {
		return err
	}
	job, err := o.createJob(root, o.jobID, o.documents, m)
	if err != nil {
		return err
	}
	defer job.Close()
	return o.drive(ctx, job, m, nil, extracted)
}

// createJob makes the job folder for the documents and takes its lock.
func (o *runOptions) createJob(root, id string, documents []string, m modelChoice) (*job.Job, error) {
	j, err := job.Create(root, workspace.CreateOptions{
		ID: id, Inputs: documents, Instructions: templates.Instructions,
		Model: m.name, Settings: o.settings(m.baseURL), Version: versionString(), Now: o.now,
	})
	if errors.Is(err, workspace.ErrJobExists) {
		return nil, usageErrorf("%v", err)
	}
	if err != nil {
		return nil, err
	}
	if err := j.Lock(); err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}

func runResume(ctx context.Context, o *runOptions) error {
	root, err := o.jobRoot(o.jobID)
	if err != nil {
		return err
	}
	job, info, err := openToResume(root, o.jobID)
	if err != nil {
		return err
	}
	defer job.Close()
	if info.Status == workspace.StatusCompleted {
		fmt.Fprintf(o.streams.ErrOut, "creator: job '%s' is already completed; its output is in %s/output/\n", job.ID, job.Dir)
		return nil
	}
	m, recs, err := o.prepareResume(job, info)
	if err != nil {
		return err
	}
	return o.drive(ctx, job, m, recs, nil)
}

// openToResume opens the job id under root, takes its lock and reads its
// job.json.
func openToResume(root, id string) (*job.Job, workspace.Info, error) {
	j, err := job.Open(root, id)
	if err != nil {
		return nil, workspace.Info{}, err
	}
	var info workspace.Info
	err = j.Lock()
	if err == nil {
		info, err = j.Info()
	}
	if err != nil {
		j.Close()
		return nil, workspace.Info{}, err
	}
	return j, info, nil
}

// prepareResume takes the job's settings for the flags not given, chooses
// the model and reads the transcript to resume from.
func (o *runOptions) prepareResume(j *job.Job, info workspace.Info) (modelChoice, []transcript.Record, error) {
	// Limits not given on the command line are those the job was started with.
	o.inherit(info.Settings)
	m, err := o.checkedModel(info.Model, info.Settings.BaseURL)
	if err != nil {
		return m, nil, err
	}
	recs, err := j.Transcript()
	if err != nil {
		return m, nil, fmt.Errorf("job '%s': %w", j.ID, err)
	}
	// The agent may extract the documents again: a PDF that needs a
	// password is said before any model call, as run says it.
	for _, in := range info.Inputs {
		if err := document.CheckPassword(filepath.Join(j.Dir, "input", in.Name), o.documentOptions().Password); err != nil {
			return m, nil, fmt.Errorf("%v — job '%s' was not resumed", err, j.ID)
		}
	}
	return m, recs, nil
}

// inherit takes the job's recorded settings for flags not given now.
func (o *runOptions) inherit(s workspace.Settings) {
	override(o, "max-steps", &o.maxSteps, s.MaxSteps)
	override(o, "context-window", &o.contextWindow, s.ContextWindow)
	override(o, "summarize-at", &o.summarizeAt, s.SummarizeAt)
	override(o, "keep-tool-results", &o.keepToolResults, s.KeepToolResults)
	override(o, "max-tokens", &o.maxTokens, s.MaxTokens)
	override(o, "tokenizer", &o.tokenizer, s.Tokenizer)
	override(o, "min-coverage", &o.minCoverage, s.MinCoverage)
	override(o, "all-tools", &o.allTools, s.AllTools)
	override(o, "send-reasoning", &o.sendReasoning, s.SendReasoning)
	override(o, "max-text", &o.maxText, s.MaxText)
	if !o.changed("parallel") {
		// A job recorded without the number ran before sub-agents: its
		// main agent reads the chunks.
		o.parallel = 0
		if s.Parallel != nil {
			o.parallel = *s.Parallel
		}
	}
	fill(o, "max-cost", &o.maxCost, s.MaxCost)
	fill(o, "price-in", &o.priceIn, s.PriceIn)
	fill(o, "price-out", &o.priceOut, s.PriceOut)
	fill(o, "embed-model", &o.embedModel, s.EmbedModel)
	fill(o, "embed-base-url", &o.embedBaseURL, s.EmbedBaseURL)
}

// override takes the recorded v for a flag not given now.
func override[T comparable](o *runOptions, flag string, dst *T, v T) {
	var zero T
	if !o.changed(flag) && v != zero {
		*dst = v
	}
}

// fill takes the recorded v for a flag neither given nor set otherwise:
// for these flags (the price, the embedding model and its server) the
// environment (CREATOR_PRICE_IN, CREATOR_EMBED_MODEL…) wins over the
// record, where override takes the record over the environment.
func fill[T comparable](o *runOptions, flag string, dst *T, v T) {
	var zero T
	if !o.changed(flag) && *dst == zero && v != zero {
		*dst = v
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
	case o.requestTimeout < time.Second:
		return usageErrorf("--request-timeout must be at least 1s, not %s", o.requestTimeout)
	case o.retryFor < 0:
		return usageErrorf("--retry-for cannot be negative, not %s", o.retryFor)
	case o.parallel < 0 || o.parallel > MaxParallel:
		return usageErrorf("--parallel is how many sub-agents work at once, 0 to %d, not %d", MaxParallel, o.parallel)
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
// job. extracted are the documents checked before the job was made; nil
// when resuming.
func (o *runOptions) drive(ctx context.Context, job *job.Job, m modelChoice, recs []transcript.Record, extracted *document.Cache) error {
	o.guardStderr(m)
	display := progress.New(progress.Options{Out: o.streams.ErrOut, Live: o.streams.ErrTTY, Width: o.streams.ErrWidth,
		Quiet: o.quiet, Verbose: o.verbose, RedrawEvery: o.redrawEvery, Now: o.now})
	out, err := o.runJob(ctx, job, m, recs, extracted, display)
	if err != nil {
		return err
	}
	_, priced := o.pricing(m)
	return o.conclude(job, m, out, priced)
}

// guardStderr keeps m's API key off stderr: a server that echoes the key,
// or a model that repeats it, must not get it onto the terminal (a log
// pasted into a bug report); runJob keeps it out of the job. It also says
// when the built-in model stands in for one not configured.
func (o *runOptions) guardStderr(m modelChoice) {
	var keys secret.Redactor
	keys.Set(m.apiKey, o.documentOptions().Password)
	o.streams.ErrOut = keys.Writer(o.streams.ErrOut)
	if m.auto && !o.quiet {
		fmt.Fprintln(o.streams.ErrOut, "creator: no model configured; using the built-in offline model (rules, no LLM). For an LLM give --model and --base-url, or set CREATOR_MODEL and CREATOR_BASE_URL.")
	}
}

// runJob runs the agent on a locked job with its own model client (so its
// own --parallel gate) and reports to rep. It is the one path from the
// options to jobrun.Run: run, resume and each job of a batch take it.
func (o *runOptions) runJob(ctx context.Context, job *job.Job, m modelChoice, recs []transcript.Record, extracted *document.Cache, rep jobrun.Reporter) (jobrun.Outcome, error) {
	password := o.documentOptions().Password
	job.Redact(m.apiKey, password)
	price, priced := o.pricing(m)
	return jobrun.Run(ctx, jobrun.Config{
		Job: job, Model: o.client(m), ModelName: m.name,
		Price: price, Priced: priced, Settings: o.settings(m.baseURL), Transcript: recs,
		Embedder: o.embedder(m), Extracted: extracted, PDFPassword: password, Reporter: rep, Now: o.now,
	})
}

// conclude tells how the run ended and returns the error that carries its
// exit code.
func (o *runOptions) conclude(job *job.Job, m modelChoice, out jobrun.Outcome, priced bool) error {
	t := out.Agent.Totals
	switch {
	case out.Status == workspace.StatusCompleted:
		if !o.quiet {
			fmt.Fprintf(o.streams.ErrOut, "creator: job '%s' completed in %s (%s)\n", job.ID, humanize.Plural(t.Steps, "step"), humanize.Spent(t.Tokens(), t.CostUSD, priced))
		}
	case out.PartialErr != nil && !o.quiet:
		fmt.Fprintf(o.streams.ErrOut, "creator: no partial output yet: %v\n", strings.SplitN(out.PartialErr.Error(), "\n", 2)[0])
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
	if advice := m.serverAdvice(out.Agent.Err); advice != "" {
		return &exitError{code: out.Exit, err: fmt.Errorf("job '%s' stopped: %s: %s; then continue with: %s", job.ID, out.Agent.Reason, advice, out.Resume)}
	}
	return &exitError{code: out.Exit, err: fmt.Errorf("job '%s' stopped before completion: %s; continue with: %s", job.ID, out.Agent.Reason, out.Resume)}
}

// pricing is the price of the job's model and whether it is known.
func (o *runOptions) pricing(m modelChoice) (cost.Price, bool) {
	return cost.For(m.name, o.priceIn, o.priceOut, m.builtin())
}

// checkedModel checks the flags and chooses the model (recorded: what the job
// ran with); --max-cost needs the model's price.
func (o *runOptions) checkedModel(recordedModel, recordedURL string) (modelChoice, error) {
	if err := o.checkContextFlags(); err != nil {
		return modelChoice{}, err
	}
	m, err := o.chooseModel(recordedModel, recordedURL)
	if _, ok := o.pricing(m); err == nil && o.maxCost > 0 && !ok {
		err = usageErrorf("--max-cost needs the price of %s: give --price-in and --price-out (US dollars per million tokens); known prices: %s",
			m.name, strings.Join(cost.Models(), ", "))
	}
	return m, err
}
