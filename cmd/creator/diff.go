package main

import (
	"errors"

	"github.com/spf13/cobra"

	"creator/internal/export"
	"creator/internal/reqdiff"
)

type diffOptions struct {
	*globalOptions
	oldJob, newJob, format string
	json                   bool
}

func newDiffCmd(g *globalOptions) *cobra.Command {
	o := &diffOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "diff OLD_JOB NEW_JOB [--json] [--format md|json]",
		Short: "Compare the requirements of two jobs (two versions of a document)",
		Long: `Say which requirements of NEW_JOB were added, removed, changed or kept since
OLD_JOB. Requirements pair by their quotes (at least half of the words in
common, best pairs first, the same section preferred), not by id. A pair is
changed when text, type, category, priority or quotes differ; text and quote
changes are given word by word ("ten" → "eight").

Markdown by default; --json prints {added, removed, changed[{old, new,
fields, changes[{field, old, new}]}], unchanged}.`,
		Example: `  creator diff gobd-2019 gobd-2024
  creator diff gobd-2019 gobd-2024 --json | jq '.changed[].changes'`,
		Args: args(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, a []string) error {
			o.oldJob, o.newJob = a[0], a[1]
			return runDiff(o)
		},
	}
	cmd.Flags().StringVar(&o.format, "format", "md", "md or json")
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON (overrides --format)")
	return cmd
}

func runDiff(o *diffOptions) error {
	if o.json {
		o.format = "json"
	}
	if o.format != "md" && o.format != "json" {
		return usageErrorf("unknown format %q: use md or json", o.format)
	}
	old, err := o.source(o.oldJob)
	new, err2 := o.source(o.newJob)
	if err = errors.Join(err, err2); err != nil {
		return err
	}
	res := reqdiff.Compare(old, new)
	if o.format == "json" {
		return writeJSON(o.streams.Out, res)
	}
	_, err = o.streams.Out.Write(reqdiff.Markdown(res))
	return err
}

// source reads a job's validated requirements and the sections they stand in.
func (o *diffOptions) source(id string) (export.Source, error) {
	job, err := o.openView(id)
	if err != nil {
		return export.Source{}, err
	}
	defer job.Close()
	return export.Load(job)
}
