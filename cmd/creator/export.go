package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"creator/internal/app"
	"creator/internal/export"
	"creator/internal/humanize"
)

// exportOptions are the flags of export.
type exportOptions struct {
	*globalOptions
	jobID, format, output string
	formatGiven           bool
	reviewedOnly          bool
}

func newExportCmd(g *globalOptions, runF func(context.Context, *exportOptions) error) *cobra.Command {
	o := &exportOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:     "export --job ID [--format json|csv|xlsx|md|reqif|cypher|oscal|audit-json|audit-csv] [-o FILE]",
		Short:   "Write a job's requirements as JSON, CSV, XLSX, Markdown, ReqIF, Cypher or an OSCAL catalog",
		PreRunE: g.resolve,
		Args:    args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.formatGiven = cmd.Flags().Changed("format")
			return runF(cmd.Context(), o)
		},
	}
	jobFlag(cmd, g, &o.jobID, "id of the job")
	cmd.Flags().StringVar(&o.format, "format", "json", "json, csv, xlsx, md, reqif, cypher, oscal; audit-json or audit-csv for the review log")
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "file to write (default: stdout)")
	cmd.Flags().BoolVar(&o.reviewedOnly, "reviewed-only", false, "export only the requirements a reviewer accepted (with or without edits)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(export.AllFormats, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runExport(ctx context.Context, o *exportOptions) error {
	out, err := o.ws.Export(ctx, app.ExportOptions{Job: o.jobID, Format: o.format, FormatGiven: o.formatGiven, Output: o.output, ReviewedOnly: o.reviewedOnly})
	if err != nil {
		return err
	}
	if left := out.Left; left.Total > 0 {
		fmt.Fprintf(o.streams.ErrOut, "creator: --reviewed-only leaves out %s: %d pending, %d rejected\n",
			humanize.Plural(left.Total, "requirement"), left.Pending, left.Rejected)
	}
	if toFile, err := o.streams.WriteOutput(o.output, out.Data); !toFile || err != nil {
		return err
	}
	fmt.Fprintf(o.streams.ErrOut, "creator: wrote %s as %s to %s\n", out.What, out.Format, o.output)
	return nil
}
