package main

import (
	"context"

	"github.com/spf13/cobra"

	"creator/internal/reqdiff"
	"creator/internal/usage"
)

type diffOptions struct {
	*globalOptions
	oldJob, newJob, format string
	json                   bool
}

func newDiffCmd(g *globalOptions, runF func(context.Context, *diffOptions) error) *cobra.Command {
	o := &diffOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:     "diff OLD_JOB|CATALOG NEW_JOB|CATALOG [--json] [--format md|json]",
		Short:   "Compare the requirements of two jobs (two versions of a document)",
		PreRunE: g.resolve,
		Args:    args(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, a []string) error {
			o.oldJob, o.newJob = a[0], a[1]
			return runF(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.format, "format", "md", "md or json")
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON (overrides --format)")
	return cmd
}

func runDiff(ctx context.Context, o *diffOptions) error {
	if o.json {
		o.format = "json"
	}
	if o.format != "md" && o.format != "json" {
		return usage.Errorf("unknown format %q: use md or json", o.format)
	}
	res, err := o.ws.Diff(ctx, o.oldJob, o.newJob)
	if err != nil {
		return err
	}
	if o.format == "json" {
		return o.streams.WriteJSON(res)
	}
	_, err = o.streams.Out.Write(reqdiff.Markdown(res))
	return err
}
