package jobview

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"creator/internal/humanize"
	"creator/internal/markdown"
)

// WriteStatus writes the view of one job as `creator status` shows it.
func WriteStatus(w io.Writer, v View, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, a ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, a...)...) }
	row("Job", "%s", v.ID)
	row("Folder", "%s", v.Dir)
	state := v.State
	switch {
	case v.ReviewAddress != "":
		state += fmt.Sprintf(" (pid %d): open in creator review at %s", v.PID, v.ReviewAddress)
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
		inputs = append(inputs, fmt.Sprintf("%s (%s)", visible(in.Name), humanize.Bytes(in.Bytes)))
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
	if r := v.Review; r != nil {
		row("Review", "%s", r)
	}
	if c := v.Coverage; c != nil {
		row("Coverage", "%s", c.Detail())
	}
	if c := v.Chunks; c != nil && (c.Running > 0 || c.Failed > 0) {
		row("Chunks", "%d of %d done, %d being analysed by sub-agents, %d failed", c.Done, c.Total, c.Running, c.Failed)
	}
	if !v.CreatedAt.IsZero() {
		row("Created", "%s", when(v.CreatedAt, now))
		last := when(v.LastActivity, now)
		if v.LastEvent != "" {
			last += ": " + v.LastEvent
		}
		row("Last activity", "%s", last)
	}
	if v.Waiting != "" {
		row("Waiting", "%s", v.Waiting)
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

// WriteList writes the views of jobs as the table of `creator list`.
func WriteList(w io.Writer, views []View) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tINPUT\tTASKS\tREQS\tCOVERED\tTOKENS\tCOST\tUPDATED")
	for _, v := range views {
		var names []string
		for _, in := range v.Inputs {
			names = append(names, visible(in.Name))
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

// visible is a file name with each invisible character (markdown.Invisible)
// written as its escape, \u200b: in a terminal such a character would hide
// a part of the name, reorder it (policy\u202efdp.exe shows as
// policyexe.pdf) or, a tab or a new line, break the table.
func visible(name string) string {
	if !strings.ContainsFunc(name, markdown.Invisible) {
		return name
	}
	var b strings.Builder
	for _, r := range name {
		switch {
		case !markdown.Invisible(r):
			b.WriteRune(r)
		case r > 0xFFFF:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}
