package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"creator/internal/batch"
	"creator/internal/document"
	"creator/internal/humanize"
	"creator/internal/jobrun"
	"creator/workspace"
)

// batchOptions are the flags of batch: those of run, and the batch's own.
type batchOptions struct {
	runOptions
	paths            []string
	jobs             int
	include, exclude []string
	json             bool
	batchMaxTokens   int64
	batchMaxCost     float64
	// again is the command line that runs the batch again.
	again string
}

func newBatchCmd(g *globalOptions) *cobra.Command {
	o := &batchOptions{runOptions: runOptions{globalOptions: g}}
	cmd := &cobra.Command{
		Use:   "batch [flags] DIR|FILE...",
		Short: "Run one job per document, several at once",
		Long: `Run one job per document: the files given, and in each folder given the
documents it holds, sub-folders included (` + strings.Join(document.Extensions(), " ") + `;
hidden files and folders and the workspace root are left out). --include and
--exclude filter them by glob: a glob without '/' matches the file name, one
with '/' the path below the folder given.

Each document's job id is its name's stem (at most 48 letters, digits, '.',
'_' or '-'; any other character becomes '-') and the first 8 hex digits of
the SHA-256 of its bytes: policy.pdf → policy-1a2b3c4d. Running the same
batch again skips the jobs that completed, resumes those that stopped or
were interrupted, and runs a changed document as a new job; the old one is
kept, so 'creator diff OLD NEW' compares them.

--jobs documents are worked on at once (default 2); each job keeps its own
--parallel, so at most jobs × max(1, parallel) model requests are in flight.
A document that cannot be used (damaged, encrypted, scanned, empty) is
refused with its reason and no job; the others go on.

Budgets: --max-steps, --max-tokens and --max-cost are each job's, as for
run; --batch-max-tokens and --batch-max-cost bound what this batch spends,
all its jobs together: when reached, no job starts and the running ones stop,
resumably.

On a terminal stderr shows a table kept up to date (document, state, chunks
done/total, requirements, requests, elapsed), elsewhere one line per change;
--quiet shows neither. At the end batch.json and batch.md at the workspace
root describe the batch (--json prints the same object on stdout), stderr
gets a one-line total, and stdout lists the requirements.json of each
completed job unless --json is given.

Exit codes: 0 every document completed; 1 a document was refused or its job
could not run (even if others stopped); 2 usage, or no model server could be
reached; 3 a job stopped or did not start, resumably: run the same batch
again; 130 interrupted by Ctrl-C: every job stops resumably, and running the
batch again continues.`,
		Example: `  creator batch docs/
  creator batch --jobs 4 --parallel 2 --model gpt-4.1-mini --batch-max-cost 20 regulations/
  creator batch --include '*.pdf' --exclude 'drafts/*' contracts/ extra.docx
  creator batch --json docs/ > batch-summary.json`,
		Args: func(cmd *cobra.Command, paths []string) error {
			if len(paths) == 0 {
				return usageErrorf("give the documents or folders to process, e.g. 'creator batch docs/'")
			}
			return nil
		},
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveDefault // files and folders
		},
		RunE: func(cmd *cobra.Command, paths []string) error {
			o.paths = paths
			o.changed = cmd.Flags().Changed
			o.again = againCommand(cmd, paths)
			return runBatch(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&o.jobs, "jobs", "j", batch.DefaultJobs, "documents worked on at once; each job keeps its own --parallel")
	f.StringArrayVar(&o.include, "include", nil, "take only files that match this glob (repeatable)")
	f.StringArrayVar(&o.exclude, "exclude", nil, "leave out files that match this glob (repeatable)")
	f.BoolVar(&o.json, "json", false, "print the batch's summary as JSON on stdout")
	f.Int64Var(&o.batchMaxTokens, "batch-max-tokens", 0, "stop the batch when its jobs have used this many tokens together in this batch (0: no limit)")
	f.Float64Var(&o.batchMaxCost, "batch-max-cost", 0, "stop the batch when its jobs have cost this many US dollars together in this batch (0: no limit; needs the model's price)")
	addRunFlags(cmd, &o.runOptions)
	addPDFPasswordFlag(cmd, &o.pdfPassword)
	_ = cmd.RegisterFlagCompletionFunc("include", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("exclude", cobra.NoFileCompletions)
	return cmd
}

// safeArg is an argument the shell takes as it is.
var safeArg = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

func shellQuote(s string) string {
	if safeArg.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// againCommand is the command line that runs the batch again: the flags
// given and the paths, the API key and the PDF password left out (it is
// written to batch.json and batch.md).
func againCommand(cmd *cobra.Command, paths []string) string {
	parts := []string{"creator", "batch"}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if f.Name == "api-key" || f.Name == "pdf-password" {
			return
		}
		values := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			values = sv.GetSlice()
		}
		for _, v := range values {
			if f.Value.Type() == "bool" {
				parts = append(parts, "--"+f.Name+"="+v)
			} else {
				parts = append(parts, "--"+f.Name, shellQuote(v))
			}
		}
	})
	for _, p := range paths {
		parts = append(parts, shellQuote(p))
	}
	return strings.Join(parts, " ")
}

// discover finds the documents of paths as batch and enqueue do
// (batch.Discover); a bad glob, a missing path or no documents at all is
// a usage error.
func discover(paths, include, exclude []string, skip ...string) ([]string, error) {
	docs, err := batch.Discover(paths, include, exclude, skip...)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	if len(docs) == 0 {
		return nil, usageErrorf("no documents in %s (searched for %s)", strings.Join(paths, ", "), strings.Join(document.Extensions(), " "))
	}
	return docs, nil
}

func runBatch(ctx context.Context, o *batchOptions) error {
	switch {
	case o.jobs < 1 || o.jobs > MaxParallel:
		return usageErrorf("--jobs is how many documents are worked on at once, 1 to %d, not %d", MaxParallel, o.jobs)
	case o.batchMaxTokens < 0 || o.batchMaxCost < 0:
		return usageErrorf("--batch-max-tokens and --batch-max-cost cannot be negative")
	case o.verbose:
		return usageErrorf("--verbose is not available with batch; follow one job with 'creator status --job ID' or its .agent/events.jsonl")
	}
	m, err := o.checkedModel("", "")
	if err != nil {
		return err
	}
	_, priced := o.pricing(m)
	if o.batchMaxCost > 0 && !priced {
		return usageErrorf("--batch-max-cost needs the price of %s: give --price-in and --price-out (US dollars per million tokens)", m.name)
	}
	root, err := o.root()
	if err != nil {
		return err
	}
	docs, err := discover(o.paths, o.include, o.exclude, root)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	o.guardStderr(m)
	display := batch.NewDisplay(batch.DisplayOptions{Out: o.streams.ErrOut, Live: o.streams.ErrTTY, Width: o.streams.ErrWidth,
		Quiet: o.quiet, RedrawEvery: o.redrawEvery})
	b, err := batch.New(batch.Options{Root: root, Documents: docs, Jobs: o.jobs, Runner: batchRunner{o: &o.runOptions, root: root},
		MaxTokens: o.batchMaxTokens, MaxCost: o.batchMaxCost, Changed: display.Changed, Now: o.now})
	if err != nil {
		return err
	}
	if !o.quiet {
		for _, n := range b.Notes {
			fmt.Fprintf(o.streams.ErrOut, "creator: note: %s\n", n)
		}
	}
	display.Watch(b)
	s := b.Run(ctx)
	display.Stop()
	return o.concludeBatch(root, s, priced)
}

// concludeBatch writes batch.json and batch.md, prints the summary and
// returns the error that carries the batch's exit code.
func (o *batchOptions) concludeBatch(root string, s batch.Summary, priced bool) error {
	writeErr := batch.Write(root, s, o.again, priced)
	if o.json {
		data, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(o.streams.Out, "%s\n", data)
	} else {
		for _, e := range s.Documents {
			if e.State == batch.Completed {
				fmt.Fprintln(o.streams.Out, filepath.Join(root, "job_"+e.Job, "output", "requirements.json"))
			}
		}
	}
	for _, e := range s.Documents {
		// The reasons are errors: shown even with --quiet, and again after
		// a live table, which has no room for them.
		if (e.State == batch.Refused || e.State == batch.Failed) && (o.quiet || o.streams.ErrTTY) {
			fmt.Fprintf(o.streams.ErrOut, "creator: %s\n", batch.Line(e))
		}
	}
	if !o.quiet {
		fmt.Fprintf(o.streams.ErrOut, "creator: batch: %s; summary in %s\n", s.Total(priced), filepath.Join(root, batch.MarkdownFile))
	}
	code := s.Exit()
	if writeErr != nil {
		writeErr = fmt.Errorf("cannot write the batch's summary: %w", writeErr)
		if code == exitOK {
			return writeErr
		}
		fmt.Fprintf(o.streams.ErrOut, "creator: %v\n", writeErr)
	}
	next := batch.Continue(s, o.again)
	switch code {
	case exitOK:
		return nil
	case exitInterrupted:
		return &exitError{code: code, err: fmt.Errorf("interrupted; %s", next)}
	case exitFailure:
		n := s.Count(batch.Refused) + s.Count(batch.Failed)
		msg := fmt.Sprintf("%s of %d failed (see above)", humanize.Plural(n, "document"), len(s.Documents))
		if next != "" {
			msg += "; " + next
		}
		return &exitError{code: code, err: fmt.Errorf("%s", msg)}
	}
	return &exitError{code: code, err: fmt.Errorf("%s", next)}
}

// batchRunner runs a batch's jobs as run and resume do: each with its own
// copy of the options, its model client and its --parallel gate.
type batchRunner struct {
	o    *runOptions
	root string
}

func (r batchRunner) Start(ctx context.Context, id, path string, extracted *document.Cache, rep jobrun.Reporter) (jobrun.Outcome, error) {
	o := *r.o
	m, err := o.checkedModel("", "")
	if err != nil {
		return jobrun.Outcome{}, err
	}
	j, err := o.createJob(r.root, id, []string{path}, m)
	if err != nil {
		return jobrun.Outcome{}, err
	}
	defer j.Close()
	return o.runJob(ctx, j, m, nil, extracted, rep)
}

func (r batchRunner) Check(path string) (*document.Cache, error) {
	return jobrun.CheckDocuments([]string{path}, r.o.documentOptions())
}

func (r batchRunner) Resume(ctx context.Context, id string, rep jobrun.Reporter) (jobrun.Outcome, error) {
	o := *r.o
	j, info, err := openToResume(r.root, id)
	if err != nil {
		return jobrun.Outcome{}, err
	}
	defer j.Close()
	if info.Status == workspace.StatusCompleted {
		return jobrun.Outcome{Status: workspace.StatusCompleted}, nil
	}
	m, recs, err := o.prepareResume(j, info)
	if err != nil {
		return jobrun.Outcome{}, err
	}
	return o.runJob(ctx, j, m, recs, nil, rep)
}
