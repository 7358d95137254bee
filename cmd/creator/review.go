package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"creator/internal/app"
)

// reviewOptions are the flags of review.
type reviewOptions struct {
	*globalOptions
	jobID, addr, reviewer string
	reviewers             []string
	open, allowRemote     bool
}

func newReviewCmd(g *globalOptions, runF func(context.Context, *reviewOptions) error) *cobra.Command {
	o := &reviewOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:     "review --job ID [--addr 127.0.0.1:8080] [--open]",
		Short:   "Review a job's requirements in the browser: accept, reject or edit each",
		PreRunE: g.resolve,
		Args:    args(cobra.NoArgs),
		RunE:    func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), o) },
	}
	jobFlag(cmd, g, &o.jobID, "id of the job")
	cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on (port 0: any free port)")
	cmd.Flags().BoolVar(&o.open, "open", false, "open the page in the web browser")
	cmd.Flags().BoolVar(&o.allowRemote, "allow-remote", false, "allow an address other than loopback (each reviewer gets a token)")
	cmd.Flags().StringVar(&o.reviewer, "reviewer", "", "name recorded with a decision that names no reviewer (default: $USER)")
	cmd.Flags().StringSliceVar(&o.reviewers, "reviewers", nil, "the only reviewers' names a decision may carry (a,b,c); with --allow-remote each gets a token")
	return cmd
}

func runReview(ctx context.Context, o *reviewOptions) error {
	stopped, err := o.ws.Review(ctx, app.ReviewOptions{Job: o.jobID, Addr: o.addr, AllowRemote: o.allowRemote,
		Reviewer: o.reviewer, Reviewers: o.reviewers, Log: o.streams.ErrOut, Ready: o.ready})
	if err == nil && stopped != nil {
		fmt.Fprintf(o.streams.ErrOut, "creator: review of job '%s' stopped: %d of %d reviewed\n", o.jobID, stopped.Reviewed, stopped.Total)
	}
	return err
}

// ready says where the review is served, and opens it with --open.
func (o *reviewOptions) ready(r app.ReviewReady) {
	if r.Remote {
		fmt.Fprintf(o.streams.ErrOut, "creator: warning: the review of job '%s' is served on %s, over plain HTTP: anyone who reaches this address and holds a token can change its requirements, and the tokens travel unencrypted\n", r.Job, strings.TrimSuffix(strings.TrimPrefix(r.URL, "http://"), "/"))
	}
	fmt.Fprintf(o.streams.ErrOut, "creator: reviewing job '%s' (%d requirements, %d reviewed); press Ctrl-C to stop\n", r.Job, r.Progress.Total, r.Progress.Reviewed)
	if len(r.Tokens) == 0 {
		fmt.Fprintln(o.streams.Out, r.URL)
	}
	for _, t := range r.Tokens {
		fmt.Fprintf(o.streams.Out, "%s#token=%s  (%s)\n", r.URL, t.Token, t.Name)
	}
	if o.open && o.openURL != nil {
		if err := o.openURL(r.URL); err != nil {
			fmt.Fprintf(o.streams.ErrOut, "creator: cannot open a browser (%v); open %s\n", err, r.URL)
		}
	}
}
