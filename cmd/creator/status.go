package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"creator/internal/app"
	"creator/internal/jobview"
)

type statusOptions struct {
	*globalOptions
	jobID string
	json  bool
}

func newStatusCmd(g *globalOptions, runF func(context.Context, *statusOptions) error) *cobra.Command {
	o := &statusOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:     "status [--job ID] [--json]",
		Short:   "Show a job's state, plan progress, steps, tokens and cost",
		PreRunE: g.resolve,
		Args:    args(cobra.NoArgs),
		RunE:    func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), o) },
	}
	jobFlag(cmd, g, &o.jobID, "show this job in detail")
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return cmd
}

func runStatus(ctx context.Context, o *statusOptions) error {
	if o.jobID == "" {
		return runList(ctx, o)
	}
	st, err := o.ws.Status(ctx, o.jobID, o.getenv(app.DatabaseEnv))
	if err != nil {
		return err
	}
	for _, w := range st.Warnings() {
		fmt.Fprintf(o.streams.ErrOut, "creator: %s\n", w)
	}
	if o.json {
		return o.streams.WriteJSON(st.View)
	}
	return jobview.WriteStatus(o.streams.Out, st.View, o.now())
}

func newListCmd(g *globalOptions, runF func(context.Context, *statusOptions) error) *cobra.Command {
	o := &statusOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:     "list [--json]",
		Short:   "List the jobs under the workspace root",
		PreRunE: g.resolve,
		Args:    args(cobra.NoArgs),
		RunE:    func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return cmd
}

func runList(ctx context.Context, o *statusOptions) error {
	views, err := o.ws.List(ctx)
	if err != nil {
		return err
	}
	if o.json {
		return o.streams.WriteJSON(views)
	}
	if len(views) == 0 {
		fmt.Fprintf(o.streams.ErrOut, "no jobs in %s\n", o.ws.Where())
		return nil
	}
	return jobview.WriteList(o.streams.Out, views)
}
