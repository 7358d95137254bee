package main

import (
	"context"
	"path/filepath"

	"github.com/spf13/cobra"

	"creator/internal/evaluate"
)

type evalOptions struct {
	*globalOptions
	jobID  string
	gold   string
	json   bool
	strict bool
}

func newEvalCmd(g *globalOptions, runF func(context.Context, *evalOptions) error) *cobra.Command {
	o := &evalOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:     "eval --job ID --gold GOLD.json [--json]",
		Short:   "Compare a job's requirements with a gold list",
		PreRunE: g.resolve,
		Args:    args(cobra.NoArgs),
		RunE:    func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), o) },
	}
	jobFlag(cmd, g, &o.jobID, "the job to evaluate")
	cmd.Flags().StringVar(&o.gold, "gold", "", "the gold list (JSON)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	cmd.Flags().BoolVar(&o.strict, "strict", false, "count a quote only when it is at most 1.5× the gold item's words + 8")
	return cmd
}

func runEval(ctx context.Context, o *evalOptions) error {
	res, err := o.ws.Eval(ctx, o.jobID, o.gold, evaluate.Options{Strict: o.strict})
	if err != nil {
		return err
	}
	if o.json {
		return o.streams.WriteJSON(res)
	}
	return evaluate.WriteText(o.streams.Out, res, filepath.Base(o.gold), o.jobID)
}
