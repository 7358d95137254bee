package main

import (
	"creator/internal/jobview"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"creator/internal/humanize"
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
at a limit; its plan as a checklist; steps, tokens and requirements saved.
Without --job, show a table of all jobs.

With --json the same facts are printed as one JSON object (an array of them
without --job). Fields: id, dir, state, pid, stop_reason, inputs[{name,bytes}],
model, plan{done,total,current,tasks[{number,text,status,notes}]}, steps,
tokens{prompt,completion,cached}, cost_usd (absent when the model's price is
unknown), compactions, limits{max_steps,max_tokens,max_cost}, requirements,
created_at, updated_at, last_activity, last_event, resume_hint, error,
published{time,database,schema,requirements,inserted,updated,unchanged,
removed,partial} (the last publish). Fields
are only ever added, never renamed or removed.`,
		Example: `  creator status --job gobd
  creator status --json | jq '.[] | select(.state=="interrupted") | .id'`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runStatus(o) },
	}
	cmd.Flags().StringVar(&o.jobID, "job", "", "show this job in detail")
	completeJobs(cmd, g)
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return cmd
}

func runStatus(o *statusOptions) error {
	if o.jobID == "" {
		return runList(&listOptions{globalOptions: o.globalOptions, json: o.json})
	}
	j, err := o.openJob(o.jobID)
	if err != nil {
		return err
	}
	defer j.Close()
	v := jobview.Of(j, true)
	if o.json {
		return writeJSON(o.streams.Out, v)
	}
	return printStatus(o.streams.Out, v, o.now())
}

func printStatus(w io.Writer, v jobview.View, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, a ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, a...)...) }
	row("Job", "%s", v.ID)
	row("Folder", "%s", v.Dir)
	state := v.State
	switch {
	case v.PID > 0:
		state += fmt.Sprintf(" (pid %d)", v.PID)
	case v.StopReason != "":
		state += " — " + v.StopReason
	}
	row("State", "%s", state)
	if v.Error != "" {
		row("Problem", "%s", v.Error)
	}
	var inputs []string
	for _, in := range v.Inputs {
		inputs = append(inputs, fmt.Sprintf("%s (%s)", in.Name, humanize.Bytes(in.Bytes)))
	}
	row("Input", "%s", strings.Join(inputs, ", "))
	if v.Model != "" {
		row("Model", "%s", v.Model)
	}
	steps := humanize.Int(v.Steps)
	if v.Limits.MaxSteps > 0 {
		steps += " of at most " + humanize.Int(v.Limits.MaxSteps)
	}
	row("Steps", "%s", steps)
	tokens := fmt.Sprintf("%s prompt + %s completion", humanize.Int(v.Tokens.Prompt), humanize.Int(v.Tokens.Completion))
	if v.Tokens.Cached > 0 {
		tokens = fmt.Sprintf("%s prompt (%s cached) + %s completion", humanize.Int(v.Tokens.Prompt), humanize.Int(v.Tokens.Cached), humanize.Int(v.Tokens.Completion))
	}
	if v.Limits.MaxTokens > 0 {
		tokens += fmt.Sprintf(", budget %s", humanize.Int(v.Limits.MaxTokens))
	}
	row("Tokens", "%s", tokens)
	switch {
	case v.CostUSD != nil && v.Limits.MaxCost > 0:
		row("Cost", "%s of a %s budget", humanize.Dollars(*v.CostUSD), humanize.Dollars(v.Limits.MaxCost))
	case v.CostUSD != nil:
		row("Cost", "%s", humanize.Dollars(*v.CostUSD))
	case v.Model != "":
		row("Cost", "unknown (no price for %s; give --price-in and --price-out)", v.Model)
	}
	if v.Compactions > 0 {
		row("Compactions", "%s", humanize.Int(v.Compactions))
	}
	row("Requirements", "%s", humanize.Int(v.Requirements))
	if c := v.Coverage; c != nil {
		row("Coverage", "%s", c.Detail())
	}
	if !v.CreatedAt.IsZero() {
		row("Created", "%s", when(v.CreatedAt, now))
		last := when(v.LastActivity, now)
		if v.LastEvent != "" {
			last += ": " + v.LastEvent
		}
		row("Last activity", "%s", last)
	}
	if p := v.Published; p != nil {
		row("Published", "%s to %s, %s.requirement_cache (%d requirements)", when(p.Time, now), p.Database, p.Schema, p.Requirements)
	}
	if v.Plan.Total == 0 {
		row("Plan", "none yet")
	} else {
		row("Plan", "%d of %d tasks completed", v.Plan.Done, v.Plan.Total)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, t := range v.Plan.Tasks {
		mark := map[string]string{"completed": "[x]", "in_progress": "[>]"}[t.Status]
		if mark == "" {
			mark = "[ ]"
		}
		fmt.Fprintf(w, "  %s %d. %s\n", mark, t.Number, t.Text)
	}
	if v.ResumeHint != "" {
		fmt.Fprintf(w, "\nContinue with: %s\n", v.ResumeHint)
	}
	return nil
}

// when shows a time in local time with its age: 2026-11-21 05:34 (12m ago).
func when(t, now time.Time) string {
	return fmt.Sprintf("%s (%s ago)", t.Local().Format("2006-01-02 15:04"), humanize.Duration(now.Sub(t)))
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
		j, err := workspace.Open(root, id)
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
	tw := tabwriter.NewWriter(o.streams.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tINPUT\tTASKS\tREQS\tCOVERED\tTOKENS\tCOST\tUPDATED")
	for _, v := range views {
		var names []string
		for _, in := range v.Inputs {
			names = append(names, in.Name)
		}
		updated := "-"
		if !v.UpdatedAt.IsZero() {
			updated = v.UpdatedAt.Local().Format("2006-01-02 15:04")
		}
		cost := "-"
		if v.CostUSD != nil {
			cost = humanize.Dollars(*v.CostUSD)
		}
		covered := "-"
		if c := v.Coverage; c != nil && c.Chunks > 0 {
			covered = fmt.Sprintf("%d/%d", c.Covered(), c.Chunks)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%d\t%s\t%s\t%s\t%s\n", v.ID, v.State, strings.Join(names, ","),
			v.Plan.Done, v.Plan.Total, v.Requirements, covered, humanize.Int(v.Tokens.Prompt+v.Tokens.Completion), cost, updated)
	}
	return tw.Flush()
}
