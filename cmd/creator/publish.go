package main

import (
	"cmp"
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"creator/internal/publish"
)

// publishOptions are the flags of publish.
type publishOptions struct {
	*globalOptions
	jobID, database, schema string
	partial                 bool
}

func newPublishCmd(g *globalOptions) *cobra.Command {
	o := &publishOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "publish --job ID [--database URL] [--schema NAME] [--partial]",
		Short: "Write a job's requirements to a PostgreSQL table",
		Long: `Write the requirements of a completed job (its output/requirements.json) to
the table requirement_cache of a PostgreSQL database, one row per requirement,
keyed on (job_id, requirement_id), in one transaction. The table is created,
or migrated, on first use. Publishing again updates changed rows (their status
back to pending), leaves unchanged ones alone and deletes the rows of
requirements the job no longer has. The publication is recorded in the job's
.agent/events.jsonl, without the password.

The database is --database, else $CREATOR_DATABASE_URL (keeps the password
off the command line). A job that has not completed is refused unless
--partial.`,
		Example: `  export CREATOR_DATABASE_URL=postgres://creator:secret@db:5432/reqs
  creator publish --job gobd
  creator publish --job gobd --schema compliance --partial`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runPublish(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.jobID, "job", "", "id of the job")
	completeJobs(cmd, g)
	cmd.Flags().StringVar(&o.database, "database", "", "postgres://user:password@host:port/database (env CREATOR_DATABASE_URL)")
	cmd.Flags().StringVar(&o.schema, "schema", publish.DefaultSchema, "schema of the table")
	cmd.Flags().BoolVar(&o.partial, "partial", false, "publish a job that has not completed")
	return cmd
}

func runPublish(ctx context.Context, o *publishOptions) error {
	url := cmp.Or(o.database, o.getenv("CREATOR_DATABASE_URL"))
	if url == "" {
		return usageErrorf("give the database with --database URL or $CREATOR_DATABASE_URL")
	}
	j, err := o.openJob(o.jobID)
	if err != nil {
		return err
	}
	defer j.Close()
	r, err := publish.Job(ctx, j, publish.JobOptions{URL: url, Schema: o.schema, Partial: o.partial, Now: o.now()})
	if err != nil {
		return err
	}
	fmt.Fprintf(o.streams.ErrOut, "creator: published job '%s' to %s, %s.%s: %d new, %d changed, %d unchanged, %d removed\n",
		j.ID, r.Database, r.Schema, publish.Table, r.Inserted, r.Updated, r.Unchanged, r.Removed)
	return nil
}
