package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"creator/internal/app"
	"creator/internal/publish"
)

// publishOptions are the flags of publish.
type publishOptions struct {
	*globalOptions
	jobID, database, schema string
	partial                 bool
}

func newPublishCmd(g *globalOptions, runF func(context.Context, *publishOptions) error) *cobra.Command {
	o := &publishOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:     "publish --job ID [--database URL] [--schema NAME] [--partial]",
		Short:   "Write a job's requirements to a PostgreSQL table",
		PreRunE: g.resolve,
		Args:    args(cobra.NoArgs),
		RunE:    func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), o) },
	}
	jobFlag(cmd, g, &o.jobID, "id of the job")
	cmd.Flags().StringVar(&o.database, "database", "", databaseHelp)
	cmd.Flags().StringVar(&o.schema, "schema", publish.DefaultSchema, "schema of the table")
	cmd.Flags().BoolVar(&o.partial, "partial", false, "publish a job that has not completed")
	return cmd
}

func runPublish(ctx context.Context, o *publishOptions) error {
	r, err := o.ws.Publish(ctx, o.jobID, publish.JobOptions{URL: app.DatabaseOf(o.database, o.getenv).URL, Schema: o.schema, Partial: o.partial})
	if err != nil {
		return err
	}
	fmt.Fprintf(o.streams.ErrOut, "creator: published job '%s' to %s, %s.%s: %d new, %d changed, %d unchanged, %d removed\n",
		o.jobID, r.Database, r.Schema, publish.Table, r.Inserted, r.Updated, r.Unchanged, r.Removed)
	return nil
}
