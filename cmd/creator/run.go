package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"creator/internal/app"
	"creator/internal/document"
	"creator/internal/humanize"
	"creator/internal/job"
	"creator/internal/jobrun"
	"creator/internal/progress"
	"creator/internal/secret"
	"creator/internal/settings"
	"creator/internal/tokens"
	"creator/workspace"
)

// runOptions are the flags of run and resume (docs/configuration.md): the
// job's settings, its secrets and the display's.
type runOptions struct {
	*globalOptions
	jobID          string
	documents      []string
	settings       settings.Settings
	secrets        app.Secrets
	quiet, verbose bool
}

// addRunFlags binds the settings' flags, their defaults the environment's
// (settings.Defaults).
func addRunFlags(cmd *cobra.Command, o *runOptions) {
	d := settings.Defaults(o.getenv)
	s := &o.settings
	*s = d
	f := cmd.Flags()
	f.IntVar(&s.MaxSteps, settings.SetMaxSteps, d.MaxSteps, "stop after this many model calls (env CREATOR_MAX_STEPS); the job stays resumable")
	f.Int64Var(&s.MaxTokens, settings.SetMaxTokens, 0, "stop when prompt+completion tokens of the job reach this total (0: no limit)")
	f.Float64Var(&s.MaxCost, settings.SetMaxCost, 0, "stop when the job has cost this many US dollars (0: no limit; needs the model's price)")
	f.Float64Var(&s.PriceIn, settings.SetPriceIn, d.PriceIn, "US dollars per million prompt tokens (env CREATOR_PRICE_IN); default: the built-in table of OpenAI models")
	f.Float64Var(&s.PriceOut, settings.SetPriceOut, d.PriceOut, "US dollars per million completion tokens (env CREATOR_PRICE_OUT)")
	f.IntVar(&s.ContextWindow, settings.SetContextWindow, d.ContextWindow, "the model's context window in tokens")
	f.IntVar(&s.SummarizeAt, settings.SetSummarizeAt, d.SummarizeAt, "summarise older turns when the prompt passes this many tokens")
	f.IntVar(&s.KeepToolResults, settings.SetKeepToolResults, d.KeepToolResults, "number of recent tool results kept whole in the prompt")
	f.Float64Var(&s.MinCoverage, settings.SetMinCoverage, d.MinCoverage, "share of the chunks that must be covered (read in full, and cited or declared empty) before the job can complete, e.g. 0.95")
	f.IntVar(&s.Parallel, settings.SetParallel, d.Parallel, "sub-agents that analyse chunks at once, each with a fresh context, and the most model requests in flight (env CREATOR_PARALLEL); 0: the main agent reads every chunk itself. A resume keeps the job's number unless given")
	f.Var(byteSize{&s.MaxText}, settings.SetMaxText, "refuse a document whose text is larger than this, before it is chunked and indexed (e.g. 64MB; env CREATOR_MAX_TEXT; about 8 million tokens)")
	f.BoolVar(&s.AllTools, settings.SetAllTools, false, "send every tool definition with every request instead of the core tools and those the model found with search_tools")
	f.StringVar(&s.Tokenizer, settings.SetTokenizer, d.Tokenizer, "token encoding that prompts are counted with: o200k_base, cl100k_base, p50k_base or r50k_base (env CREATOR_TOKENIZER)")
	f.DurationVar((*time.Duration)(&s.RequestTimeout), settings.SetRequestTimeout, time.Duration(d.RequestTimeout), "give up on one request to the model server after this long and retry (env CREATOR_REQUEST_TIMEOUT)")
	f.DurationVar((*time.Duration)(&s.RetryFor), settings.SetRetryFor, time.Duration(d.RetryFor), "how long to keep retrying a failing model server (rate limits, 5xx, timeouts, a restart) before the job stops, resumable; a server that asks to wait past the window, rejects the key or refuses the request stops it at once (env CREATOR_RETRY_FOR; 0: no retries)")
	f.BoolVar(&s.SendReasoning, settings.SetSendReasoning, d.SendReasoning, "send the model's reasoning (reasoning_content) back with its tool calls, as DeepSeek's thinking mode and some llama.cpp and vLLM models want; switched on or off by itself when the server asks for or refuses the field, and a resume keeps the job's last choice (env CREATOR_SEND_REASONING)")
	f.StringVar(&s.Model, settings.SetModel, "", "model name (env CREATOR_MODEL); 'builtin' for the offline model")
	f.StringVar(&s.BaseURL, settings.SetBaseURL, "", "OpenAI-compatible server URL (env CREATOR_BASE_URL or OPENAI_BASE_URL)")
	f.StringVar(&o.secrets.APIKey, "api-key", "", "API key (env OPENAI_API_KEY); never written to the job")
	f.StringVar(&s.EmbedModel, settings.SetEmbedModel, d.EmbedModel, "embedding model for semantic search_files (env CREATOR_EMBED_MODEL); none: keyword search only")
	f.StringVar(&s.EmbedBaseURL, settings.SetEmbedBaseURL, d.EmbedBaseURL, "OpenAI-compatible /v1/embeddings server (env CREATOR_EMBED_BASE_URL); default: the model server")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "print no progress on stderr")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "also print the model's reasoning and each tool call")
}

// given marks the settings the command line gave: a resume keeps them
// over the job's record, a queued job brings them to the worker.
func (o *runOptions) given(cmd *cobra.Command) {
	for _, name := range settings.Names() {
		if cmd.Flags().Changed(name) {
			o.settings.Give(name)
		}
	}
}

// jobs is the application's view of the jobs under these options.
func (o *runOptions) jobs() app.Jobs {
	return app.Jobs{Workspace: o.ws, Settings: o.settings, Secrets: o.secrets}
}

// addPDFPasswordFlag adds --pdf-password to the commands that extract
// documents. Its default stays empty, the environment being read when
// used (app.Secrets), so that --help never prints the password.
func addPDFPasswordFlag(cmd *cobra.Command, password *string) {
	cmd.Flags().StringVar(password, "pdf-password", "", "password of encrypted PDFs that need one to open (env "+app.PDFPasswordEnv+"); PDFs restricted by an owner password only open without it; never written to the job")
}

// byteSize is a flag of a size in bytes: a number with an optional unit,
// decimal (KB, MB, GB) or binary (KiB, MiB, GiB), as humanize prints them.
type byteSize struct{ n *int64 }

func (b byteSize) String() string {
	if b.n == nil || *b.n == 0 {
		return ""
	}
	return strings.ReplaceAll(humanize.Bytes(*b.n), " ", "")
}

func (b byteSize) Set(s string) error {
	n, err := humanize.ParseBytes(s)
	if err == nil {
		*b.n = n
	}
	return err
}

func (byteSize) Type() string { return "size" }

func newRunCmd(g *globalOptions, runF func(context.Context, *runOptions) error) *cobra.Command {
	o := &runOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:     "run [--job ID] [flags] DOCUMENT...",
		Short:   "Create a job for the documents and run it to completion",
		PreRunE: g.resolve,
		Args:    atLeastOne("give the document(s) to process, e.g. 'creator run policy.pdf'"),
		RunE: func(cmd *cobra.Command, docs []string) error {
			o.documents = docs
			o.given(cmd)
			return runF(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.jobID, "job", "", "job id (letters, digits, '.', '_', '-'); generated when not given")
	addRunFlags(cmd, o)
	addPDFPasswordFlag(cmd, &o.secrets.PDFPassword)
	return cmd
}

func newResumeCmd(g *globalOptions, runF func(context.Context, *runOptions) error) *cobra.Command {
	o := &runOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:     "resume --job ID [flags]",
		Short:   "Continue an interrupted, stopped or failed job",
		PreRunE: g.resolve,
		Args:    args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.given(cmd)
			return runF(cmd.Context(), o)
		},
	}
	jobFlag(cmd, g, &o.jobID, "id of the job to continue")
	addRunFlags(cmd, o)
	addPDFPasswordFlag(cmd, &o.secrets.PDFPassword)
	return cmd
}

type extractOptions struct {
	*globalOptions
	document    string
	output      string
	maxText     int64
	pdfPassword string
	tokens      bool
}

func newExtractCmd(g *globalOptions, runF func(context.Context, *extractOptions) error) *cobra.Command {
	o := &extractOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "extract DOCUMENT [-o FILE]",
		Short: "Print a document's text as the agent gets it",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			o.document = a[0]
			return runF(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "file to write (default: stdout)")
	o.maxText = settings.Defaults(o.getenv).MaxText
	cmd.Flags().Var(byteSize{&o.maxText}, "max-text", "refuse a document whose text is larger than this (e.g. 64MB; env CREATOR_MAX_TEXT)")
	addPDFPasswordFlag(cmd, &o.pdfPassword)
	cmd.Flags().BoolVar(&o.tokens, "tokens", false, "count the text's tokens (o200k_base) for the summary; loading the token table takes about 0.2 s")
	return cmd
}

func runExtract(ctx context.Context, o *extractOptions) error {
	// The token table is loaded only when the tokens are asked for (while
	// the document is read): loading it and counting took more time than
	// extracting (SP 800-53r3: 370 ms of CPU against 210).
	if o.tokens {
		go tokens.Default()
	}
	doc, err := document.ExtractContext(ctx, o.document, document.Options{MaxText: o.maxText, Password: app.Secrets{PDFPassword: o.pdfPassword}.Password(o.getenv)})
	if err != nil {
		return err
	}
	text := doc.Text()
	if _, err := o.writeOutput(o.output, []byte(text)); err != nil {
		return err
	}
	summary := fmt.Sprintf("%s: %s, %s characters", filepath.Base(o.document), humanize.Plural(len(doc.Pages), "page"), humanize.Int(utf8.RuneCountInString(text)))
	if o.tokens {
		n, err := tokens.Default().CountContext(ctx, text)
		if err != nil {
			return err
		}
		summary += ", " + humanize.Int(n) + " tokens"
	}
	fmt.Fprintln(o.streams.ErrOut, summary)
	for _, n := range doc.Notes {
		fmt.Fprintf(o.streams.ErrOut, "note: %s\n", n)
	}
	return nil
}

func runRun(ctx context.Context, o *runOptions) error {
	jobs := o.jobs()
	r, extracted, err := jobs.New(ctx, o.jobID, o.documents)
	if err != nil {
		return err
	}
	defer r.Job.Close()
	return o.drive(r, func(rep jobrun.Reporter) (jobrun.Outcome, error) { return jobs.RunNew(ctx, r, extracted, rep) })
}

func runResume(ctx context.Context, o *runOptions) error {
	jobs := o.jobs()
	r, done, err := jobs.Continue(ctx, o.jobID)
	if err != nil {
		return err
	}
	defer r.Job.Close()
	if done {
		fmt.Fprintf(o.streams.ErrOut, "creator: job '%s' is already completed; its output is in %s/output/\n", r.Job.ID, r.Job.Dir)
		return nil
	}
	return o.drive(r, func(rep jobrun.Reporter) (jobrun.Outcome, error) { return jobs.Run(ctx, r, nil, rep) })
}

// drive runs the agent on a locked job with run, and turns the outcome
// into output and an exit code.
func (o *runOptions) drive(r app.Resumed, run func(jobrun.Reporter) (jobrun.Outcome, error)) error {
	o.guardStderr(o.jobs(), r.Model)
	display := progress.New(progress.Options{Out: o.streams.ErrOut, Live: o.streams.ErrTTY, Width: o.streams.ErrWidth,
		Quiet: o.quiet, Verbose: o.verbose, RedrawEvery: o.redrawEvery, Now: o.now})
	out, err := run(display)
	if err != nil {
		return err
	}
	_, priced := r.Model.Pricing(r.Settings)
	return o.conclude(r.Job, r.Model, out, priced)
}

// noModelNote says that the built-in model stands in for one not
// configured.
const noModelNote = "creator: no model configured; using the built-in offline model (rules, no LLM). For an LLM give --model and --base-url, or set CREATOR_MODEL and CREATOR_BASE_URL."

// guardStderr keeps m's API key and the PDF password off stderr: a
// server that echoes the key, or a model that repeats it, must not get it
// onto the terminal (a log pasted into a bug report); the job keeps them
// out of its files. It also says when the built-in model stands in for
// one not configured.
func (o *runOptions) guardStderr(jobs app.Jobs, m app.Model) {
	var keys secret.Redactor
	keys.Set(m.APIKey, jobs.DocumentOptions().Password)
	o.streams.ErrOut = keys.Writer(o.streams.ErrOut)
	if m.Auto && !o.quiet {
		fmt.Fprintln(o.streams.ErrOut, noModelNote)
	}
}

// conclude tells how the run ended and returns the error that carries its
// exit code.
func (o *runOptions) conclude(j *job.Job, m app.Model, out jobrun.Outcome, priced bool) error {
	t := out.Agent.Totals
	switch {
	case out.Status == workspace.StatusCompleted:
		if !o.quiet {
			fmt.Fprintf(o.streams.ErrOut, "creator: job '%s' completed in %s (%s)\n", j.ID, humanize.Plural(t.Steps, "step"), humanize.Spent(t.Tokens(), t.CostUSD, priced))
		}
	case out.PartialErr != nil && !o.quiet:
		fmt.Fprintf(o.streams.ErrOut, "creator: no partial output yet: %v\n", strings.SplitN(out.PartialErr.Error(), "\n", 2)[0])
	case out.Partial != "" && !o.quiet:
		fmt.Fprintf(o.streams.ErrOut, "creator: partial output: %s\n", out.Partial)
	}
	if out.OutputWritten() {
		fmt.Fprintf(o.streams.Out, "%s/output/requirements.json\n", j.Dir)
	}
	switch out.Status {
	case workspace.StatusCompleted:
		return nil
	case workspace.StatusInterrupted:
		return &exitError{code: out.Exit, err: fmt.Errorf("interrupted; continue with: %s", out.Resume)}
	}
	if advice := m.ServerAdvice(out.Agent.Err); advice != "" {
		return &exitError{code: out.Exit, err: fmt.Errorf("job '%s' stopped: %s: %s; then continue with: %s", j.ID, out.Agent.Reason, advice, out.Resume)}
	}
	return &exitError{code: out.Exit, err: fmt.Errorf("job '%s' stopped before completion: %s; continue with: %s", j.ID, out.Agent.Reason, out.Resume)}
}
