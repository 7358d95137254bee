package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"creator/internal/job"
	"creator/internal/jobview"
	"creator/internal/publish"
	"creator/workspace"
)

type statusOptions struct {
	*globalOptions
	jobID string
	json  bool
}

func newStatusCmd(g *globalOptions) *cobra.Command {
	o := &statusOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "status [--job ID] [--json]",
		Short: "Show a job's state, plan progress, steps, tokens and cost",
		Long: `Show the state of a job: running, completed, failed, interrupted, or stopped
at a limit; its plan as a checklist; steps, tokens, requirements saved and the
coverage of the documents (chunks read in full, and cited or declared empty)
and how many requirements a person has reviewed ('creator review').
Without --job, show a table of all jobs.

With --json the same facts are printed as one JSON object (an array of them
without --job). Fields: id, dir, state, pid, stop_reason, inputs[{name,bytes}],
model, plan{done,total,current,tasks[{number,text,status,notes}]}, steps,
tokens{prompt,completion,cached}, cost_usd (absent when the model's price is
unknown), compactions, limits{max_steps,max_tokens,max_cost}, requirements,
review{total,reviewed,accepted,edited,rejected,pending} (the decisions of
'creator review'; absent without requirements), created_at, updated_at,
last_activity, last_event, resume_hint, error, published{time,database,
schema,requirements,inserted,updated,unchanged,removed,partial,publish_id}
(the last publish). Fields are only ever added, never renamed or removed.

A publish of the job left pending by a publish killed around its COMMIT is
settled first, with the database of $CREATOR_DATABASE_URL when it is the
publish's (see creator publish).`,
		Example: `  creator status --job gobd
  creator status --json | jq '.[] | select(.state=="interrupted") | .id'`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runStatus(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.jobID, "job", "", "show this job in detail")
	completeJobs(cmd, g)
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return cmd
}

func runStatus(ctx context.Context, o *statusOptions) error {
	if o.jobID == "" {
		return runList(&listOptions{globalOptions: o.globalOptions, json: o.json})
	}
	if err := settlePublications(ctx, o.globalOptions, o.jobID); err != nil {
		return err
	}
	j, err := o.openView(o.jobID)
	if err != nil {
		return err
	}
	defer j.Close()
	v := jobview.Of(j, true)
	if o.json {
		return writeJSON(o.streams.Out, v)
	}
	return jobview.WriteStatus(o.streams.Out, v, o.now())
}

// settlePublications records, or drops, the publishes of the job that a
// killed publish left pending, with the database of
// $CREATOR_DATABASE_URL when it is theirs; it says which remain.
func settlePublications(ctx context.Context, o *globalOptions, id string) error {
	j, err := o.openJob(id)
	if err != nil {
		return err
	}
	defer j.Close()
	unsettled, err := publish.Settle(ctx, j, o.getenv("CREATOR_DATABASE_URL"))
	if err != nil {
		fmt.Fprintf(o.streams.ErrOut, "creator: %v\n", err)
		return nil
	}
	for _, p := range unsettled {
		fmt.Fprintf(o.streams.ErrOut, "creator: the publish of %s to %s is not known to have committed: "+
			"'creator publish --job %s' to that database settles it (or status with $CREATOR_DATABASE_URL set to it)\n",
			p.Time.UTC().Format(time.RFC3339), p.Database, id)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

type listOptions struct {
	*globalOptions
	json bool
}

func newListCmd(g *globalOptions) *cobra.Command {
	o := &listOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the jobs under the workspace root",
		Long: `List the jobs under the workspace root with their state, input, plan
progress, requirements, tokens, cost and last update. --json prints an array
of the objects described in 'creator status --help'.`,
		Example: `  creator list
  creator list --workspace /data/jobs --json | jq -r '.[] | select(.state=="stopped") | .id'`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runList(o) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return cmd
}

func runList(o *listOptions) error {
	root, err := o.root()
	if err != nil {
		return err
	}
	ids, err := workspace.List(root)
	if err != nil {
		return err
	}
	views := make([]jobview.View, 0, len(ids))
	for _, id := range ids {
		j, err := job.OpenView(root, id)
		if err != nil {
			views = append(views, jobview.View{ID: id, State: "broken", Error: err.Error(), Inputs: []jobview.Input{}})
			continue
		}
		views = append(views, jobview.Of(j, false))
		j.Close()
	}
	if o.json {
		return writeJSON(o.streams.Out, views)
	}
	if len(views) == 0 {
		fmt.Fprintf(o.streams.ErrOut, "no jobs in %s\n", root)
		return nil
	}
	return jobview.WriteList(o.streams.Out, views)
}
