package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"creator/internal/app"
	"creator/internal/humanize"
	"creator/internal/job"
	"creator/internal/jobrun"
	"creator/internal/progress"
	"creator/internal/secret"
	"creator/internal/settings"
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
	o.settings = settings.Defaults(o.getenv)
	f := cmd.Flags()
	for _, s := range settings.Flags(&o.settings) {
		f.Var(s.Value, s.Name, s.Usage)
		if s.Value.Type() == "bool" {
			f.Lookup(s.Name).NoOptDefVal = "true"
		}
	}
	f.StringVar(&o.secrets.APIKey, "api-key", "", "API key (env OPENAI_API_KEY); never written to the job")
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
	app.ExtractOptions
	output string
}

func newExtractCmd(g *globalOptions, runF func(context.Context, *extractOptions) error) *cobra.Command {
	o := &extractOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "extract DOCUMENT [-o FILE]",
		Short: "Print a document's text as the agent gets it",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			o.Document = a[0]
			return runF(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "file to write (default: stdout)")
	o.MaxText = settings.Defaults(o.getenv).MaxText
	cmd.Flags().Var(settings.SizeValue(&o.MaxText), "max-text", "refuse a document whose text is larger than this (e.g. 64MB; env CREATOR_MAX_TEXT)")
	addPDFPasswordFlag(cmd, &o.PDFPassword)
	cmd.Flags().BoolVar(&o.Tokens, "tokens", false, "count the text's tokens (o200k_base) for the summary; loading the token table takes about 0.2 s")
	return cmd
}

func runExtract(ctx context.Context, o *extractOptions) error {
	x, err := app.Extract(ctx, o.ExtractOptions, o.getenv)
	if err != nil {
		return err
	}
	if _, err := o.streams.WriteOutput(o.output, []byte(x.Text)); err != nil {
		return err
	}
	summary := fmt.Sprintf("%s: %s, %s characters", filepath.Base(o.Document), humanize.Plural(x.Pages, "page"), humanize.Int(x.Characters))
	if o.Tokens {
		summary += ", " + humanize.Int(x.Tokens) + " tokens"
	}
	fmt.Fprintln(o.streams.ErrOut, summary)
	for _, n := range x.Notes {
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
	if code, msg := out.Ending(j.ID, m.ServerAdvice(out.Agent.Err)); msg != "" {
		return &exitError{code: code, err: errors.New(msg)}
	}
	return nil
}
