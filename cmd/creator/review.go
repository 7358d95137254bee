package main

import (
	"context"
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"creator/internal/review"
)

// reviewOptions are the flags of review.
type reviewOptions struct {
	*globalOptions
	jobID, addr, reviewer string
	open, allowRemote     bool
}

func newReviewCmd(g *globalOptions) *cobra.Command {
	o := &reviewOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "review --job ID [--addr 127.0.0.1:8080] [--open]",
		Short: "Review a job's requirements in the browser: accept, reject or edit each",
		Long: `Serve a local web page on which a person reviews the requirements of a job:
each one next to its source passage (the quote highlighted in its chunk, with
the page and the section), filtered by type, category, priority, framework,
review status or text. Accept it, reject it with a reason, or edit its title,
text, type, category or priority (the quote cannot be edited: it must stand
verbatim in the source, and every decision checks it again).

Keys: a accept, r reject, e edit, j/k next/previous, n next pending, / search.

Each decision is written at once, atomically, into the requirement's
requirements/req_NNN/final.json ("review": status, note, by, at and the
changed fields with their extracted values) and its validation.md, and the
job's output files are brought up to date, so a kill loses nothing and 'cat'
shows every decision. 'creator export', 'publish' and 'status' carry the
review status; 'export --reviewed-only' exports the accepted requirements.

The page uses a JSON API (docs/review.md): GET /api/requirements,
GET /api/requirements/{id}, POST /api/requirements/{id}/review.

The server listens on the loopback interface, and holds the job's lock while
it runs (a run of the job cannot write meanwhile). It has no authentication:
an address other than loopback needs --allow-remote. Stop it with Ctrl-C.`,
		Example: `  creator review --job gobd --open
  creator review --job gobd --addr 127.0.0.1:9000 --reviewer alice
  curl -s localhost:8080/api/requirements | jq .progress`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runReview(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.jobID, "job", "", "id of the job")
	completeJobs(cmd, g)
	cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on (port 0: any free port)")
	cmd.Flags().BoolVar(&o.open, "open", false, "open the page in the web browser")
	cmd.Flags().BoolVar(&o.allowRemote, "allow-remote", false, "allow an address other than loopback (the page has no authentication)")
	cmd.Flags().StringVar(&o.reviewer, "reviewer", "", "name recorded with each decision (default: $USER)")
	return cmd
}

func runReview(ctx context.Context, o *reviewOptions) error {
	host, _, err := net.SplitHostPort(o.addr)
	if err != nil {
		return usageErrorf("--addr %q is not host:port: %v", o.addr, err)
	}
	loopback := review.LoopbackHost(host)
	if !loopback && !o.allowRemote {
		return usageErrorf("--addr %s is reachable from other machines, and the review page has no authentication; use a loopback address such as 127.0.0.1:8080, or add --allow-remote", o.addr)
	}
	j, err := o.openJob(o.jobID)
	if err != nil {
		return err
	}
	defer j.Close()
	if err := j.Lock(); err != nil {
		return err
	}
	reviewer := o.reviewer
	if reviewer == "" {
		reviewer = o.getenv("USER")
	}
	svc := review.ForJob(j, reviewer, o.now)
	if err := svc.Sync(); err != nil {
		return err
	}
	listing, err := svc.List()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", o.addr, err)
	}
	url := "http://" + ln.Addr().String() + "/"
	if !loopback {
		fmt.Fprintf(o.streams.ErrOut, "creator: warning: the review of job '%s' is served on %s without authentication: anyone who reaches this address can change its requirements\n", j.ID, ln.Addr())
	}
	p := listing.Progress
	fmt.Fprintf(o.streams.ErrOut, "creator: reviewing job '%s' (%d requirements, %d reviewed); press Ctrl-C to stop\n", j.ID, p.Total, p.Reviewed)
	fmt.Fprintln(o.streams.Out, url)
	if o.open && o.openURL != nil {
		if err := o.openURL(url); err != nil {
			fmt.Fprintf(o.streams.ErrOut, "creator: cannot open a browser (%v); open %s\n", err, url)
		}
	}
	if err := review.Serve(ctx, ln, review.Handler(svc, review.HandlerOptions{AnyHost: !loopback, Log: o.streams.ErrOut, Job: j.View(), Version: versionString()})); err != nil {
		return err
	}
	if listing, err := svc.List(); err == nil {
		p := listing.Progress
		fmt.Fprintf(o.streams.ErrOut, "creator: review of job '%s' stopped: %d of %d reviewed\n", j.ID, p.Reviewed, p.Total)
	}
	return nil
}
