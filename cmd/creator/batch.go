package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"creator/internal/app"
	"creator/internal/batch"
	"creator/internal/secret"
	"creator/internal/usage"
)

// batchOptions are the flags of batch: those of run, and the batch's own.
type batchOptions struct {
	runOptions
	paths            []string
	atOnce           int
	include, exclude []string
	json             bool
	batchMaxTokens   int64
	batchMaxCost     float64
	// again is the command line that runs the batch again.
	again string
}

func newBatchCmd(g *globalOptions, runF func(context.Context, *batchOptions) error) *cobra.Command {
	o := &batchOptions{runOptions: runOptions{globalOptions: g}}
	cmd := &cobra.Command{
		Use:     "batch [flags] DIR|FILE...",
		Short:   "Run one job per document, several at once",
		PreRunE: g.resolve,
		Args:    atLeastOne("give the documents or folders to process, e.g. 'creator batch docs/'"),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveDefault // files and folders
		},
		RunE: func(cmd *cobra.Command, paths []string) error {
			o.paths = paths
			o.given(cmd)
			o.again = againCommand(cmd, paths)
			return runF(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&o.atOnce, "jobs", "j", batch.DefaultJobs, "documents worked on at once; each job keeps its own --parallel")
	f.StringArrayVar(&o.include, "include", nil, "take only files that match this glob (repeatable)")
	f.StringArrayVar(&o.exclude, "exclude", nil, "leave out files that match this glob (repeatable)")
	f.BoolVar(&o.json, "json", false, "print the batch's summary as JSON on stdout")
	f.Int64Var(&o.batchMaxTokens, "batch-max-tokens", 0, "stop the batch when its jobs have used this many tokens together in this batch (0: no limit)")
	f.Float64Var(&o.batchMaxCost, "batch-max-cost", 0, "stop the batch when its jobs have cost this many US dollars together in this batch (0: no limit; needs the model's price)")
	addRunFlags(cmd, &o.runOptions)
	addPDFPasswordFlag(cmd, &o.secrets.PDFPassword)
	_ = cmd.RegisterFlagCompletionFunc("include", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("exclude", cobra.NoFileCompletions)
	return cmd
}

// againCommand is the command line that runs the batch again: the flags
// given and the paths, the API key and the PDF password left out (it is
// written to batch.json and batch.md).
func againCommand(cmd *cobra.Command, paths []string) string {
	words := []string{"creator", "batch"}
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
				words = append(words, "--"+f.Name+"="+v)
			} else {
				words = append(words, "--"+f.Name, v)
			}
		}
	})
	return batch.CommandLine(append(words, paths...)...)
}

func runBatch(ctx context.Context, o *batchOptions) error {
	if o.verbose {
		return usage.Errorf("--verbose is not available with batch; follow one job with 'creator status --job ID' or its .agent/events.jsonl")
	}
	jobs := o.jobs()
	// The job's secrets are kept off stderr before anything is shown.
	var keys secret.Redactor
	keys.Set(jobs.Secrets.Values(o.getenv)...)
	o.streams.ErrOut = keys.Writer(o.streams.ErrOut)
	display := batch.NewDisplay(batch.DisplayOptions{Out: o.streams.ErrOut, Live: o.streams.ErrTTY, Width: o.streams.ErrWidth,
		Quiet: o.quiet, RedrawEvery: o.redrawEvery})
	b, err := jobs.NewBatch(ctx, app.BatchOptions{Paths: o.paths, Include: o.include, Exclude: o.exclude, Jobs: o.atOnce,
		MaxTokens: o.batchMaxTokens, MaxCost: o.batchMaxCost, Changed: display.Changed})
	if err != nil {
		return err
	}
	if !o.quiet {
		if b.Model.Auto {
			fmt.Fprintln(o.streams.ErrOut, noModelNote)
		}
		for _, n := range b.Notes {
			fmt.Fprintf(o.streams.ErrOut, "creator: note: %s\n", n)
		}
	}
	display.Watch(b.Batch)
	s := b.Run(ctx)
	display.Stop()
	return o.concludeBatch(jobs.Root, s, b.Priced)
}

// concludeBatch writes batch.json and batch.md, prints the summary and
// returns the error that carries the batch's exit code.
func (o *batchOptions) concludeBatch(root string, s batch.Summary, priced bool) error {
	writeErr := batch.Write(root, s, o.again, priced)
	if o.json {
		if err := o.streams.WriteJSON(s); err != nil {
			return err
		}
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
	code, msg := s.Ending(o.again)
	if writeErr != nil {
		writeErr = fmt.Errorf("cannot write the batch's summary: %w", writeErr)
		if code == exitOK {
			return writeErr
		}
		fmt.Fprintf(o.streams.ErrOut, "creator: %v\n", writeErr)
	}
	if code != exitOK {
		return &exitError{code: code, err: errors.New(msg)}
	}
	return nil
}
