package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

// pullOptions are the flags of pull.
type pullOptions struct {
	*globalOptions
	jobID, output string
}

func newPullCmd(g *globalOptions, runF func(context.Context, *pullOptions) error) *cobra.Command {
	o := &pullOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:     "pull --job ID [-o DIR]",
		Short:   "Copy a job of a bucket workspace to a local folder",
		PreRunE: g.resolve,
		Args:    args(cobra.NoArgs),
		RunE:    func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), o) },
	}
	jobFlag(cmd, g, &o.jobID, "id of the job")
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "folder to copy the job to (default: the cache folder the job runs in on this machine)")
	return cmd
}

func runPull(ctx context.Context, o *pullOptions) error {
	dir, err := o.ws.Pull(ctx, o.jobID, o.output)
	if err != nil {
		return err
	}
	fmt.Fprintln(o.streams.Out, dir)
	return nil
}
