package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"creator/internal/markdown"
	"creator/internal/review"
)

// reviewOptions are the flags of review.
type reviewOptions struct {
	*globalOptions
	jobID, addr, reviewer string
	reviewers             []string
	open, allowRemote     bool
}

func newReviewCmd(g *globalOptions) *cobra.Command {
	o := &reviewOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "review --job ID [--addr 127.0.0.1:8080] [--open]",
		Short: "Review a job's requirements in the browser: accept, reject or edit each",
		Long: `Serve a local web page on which a person reviews the requirements of a job:
each one next to its source passage (the quote highlighted in its chunk, with
the page and the section), filtered by section, type, category, priority,
framework, confidence, review status or text, and sorted. Accept it, reject it with a reason, or edit its title,
text, type, category or priority (the quote cannot be edited: it must stand
verbatim in the source, and every decision checks it again).

Keys: a accept, r reject, e edit, u undo, j/k next/previous, n next pending,
/ search. The page also decides on every requirement a filter shows at
once, downloads the export (CSV, Excel, Markdown, ReqIF, JSON, the review
log) and opens the source documents, a PDF at the cited page.

Each decision is logged in review/decisions.jsonl (who, when, the status
before and after, the fields changed, the version it made) and written at
once, atomically, into the requirement's requirements/req_NNN/final.json
("review": status, note, by, at and the changed fields with their extracted
values), so a kill loses nothing. A decision can be undone, a requirement
set back to pending; comments go to review/comments.jsonl. Its validation.md
(where 'cat' shows the decision) and the job's output files are written
again once decisions pause for a second, and when the review stops.
'creator export', 'publish' and 'status' carry the review status; 'export
--reviewed-only' exports the accepted requirements, 'export --format
audit-csv' the log.

The page uses a JSON API (docs/review.md): GET /api/requirements,
GET /api/requirements/{id}, POST /api/requirements/{id}/review, …/undo,
GET …/history, GET and POST …/comments, POST /api/review/bulk,
GET /api/export?format=csv, GET /api/documents/{name}, GET /api/sections.

The server listens on the loopback interface, and holds the job's lock while
it runs: a resume of the job meanwhile fails at once (exit 1), naming the
review's pid and address. On loopback it has no authentication; an address
other than loopback needs --allow-remote, which prints an address with a
token for each reviewer (--reviewers, else the one of --reviewer): every API
request then needs a token. Stop it with Ctrl-C.`,
		Example: `  creator review --job gobd --open
  creator review --job gobd --addr 127.0.0.1:9000 --reviewer alice
  creator review --job gobd --addr 0.0.0.0:8080 --allow-remote --reviewers alice,bob
  curl -s localhost:8080/api/requirements | jq .progress`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runReview(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.jobID, "job", "", "id of the job")
	completeJobs(cmd, g)
	cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on (port 0: any free port)")
	cmd.Flags().BoolVar(&o.open, "open", false, "open the page in the web browser")
	cmd.Flags().BoolVar(&o.allowRemote, "allow-remote", false, "allow an address other than loopback (each reviewer gets a token)")
	cmd.Flags().StringVar(&o.reviewer, "reviewer", "", "name recorded with a decision that names no reviewer (default: $USER)")
	cmd.Flags().StringSliceVar(&o.reviewers, "reviewers", nil, "the only reviewers' names a decision may carry (a,b,c); with --allow-remote each gets a token")
	return cmd
}

func runReview(ctx context.Context, o *reviewOptions) error {
	host, _, err := net.SplitHostPort(o.addr)
	if err != nil {
		return usageErrorf("--addr %q is not host:port: %v", o.addr, err)
	}
	loopback := review.LoopbackHost(host)
	if !loopback && !o.allowRemote {
		return usageErrorf("--addr %s is reachable from other machines, and without --allow-remote the review page has no authentication; use a loopback address such as 127.0.0.1:8080, or add --allow-remote (every reviewer then gets a token)", o.addr)
	}
	j, err := o.openJob(o.jobID)
	if err != nil {
		return err
	}
	defer j.Close()
	if err := j.Lock(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", o.addr, err)
	}
	defer ln.Close()
	url := "http://" + ln.Addr().String() + "/"
	// A resume of the job meanwhile is refused, and told where the review runs.
	if err := j.RecordReview(url); err != nil {
		return err
	}
	reviewer := o.reviewer
	if reviewer == "" {
		reviewer = o.getenv("USER")
	}
	reviewers, err := reviewerNames(o.reviewers)
	if err != nil {
		return err
	}
	svc := review.ForJob(j, review.Config{Reviewer: reviewer, Reviewers: reviewers, Now: o.now, OutputDelay: time.Second, Log: o.streams.ErrOut})
	if err := svc.Sync(); err != nil {
		return err
	}
	// Away from loopback every reviewer gets a token of their own.
	var tokens map[string]string
	if o.allowRemote {
		names := reviewers
		if len(names) == 0 {
			names = []string{reviewer}
		}
		if tokens, err = reviewTokens(names); err != nil {
			return err
		}
	}
	listing, err := svc.List()
	if err != nil {
		return err
	}
	if !loopback {
		fmt.Fprintf(o.streams.ErrOut, "creator: warning: the review of job '%s' is served on %s, over plain HTTP: anyone who reaches this address and holds a token can change its requirements, and the tokens travel unencrypted\n", j.ID, ln.Addr())
	}
	p := listing.Progress
	fmt.Fprintf(o.streams.ErrOut, "creator: reviewing job '%s' (%d requirements, %d reviewed); press Ctrl-C to stop\n", j.ID, p.Total, p.Reviewed)
	if tokens == nil {
		fmt.Fprintln(o.streams.Out, url)
	}
	byName := slices.SortedFunc(maps.Keys(tokens), func(a, b string) int { return strings.Compare(tokens[a], tokens[b]) })
	for _, t := range byName {
		fmt.Fprintf(o.streams.Out, "%s#token=%s  (%s)\n", url, t, tokens[t])
	}
	if o.open && o.openURL != nil {
		if err := o.openURL(url); err != nil {
			fmt.Fprintf(o.streams.ErrOut, "creator: cannot open a browser (%v); open %s\n", err, url)
		}
	}
	served := review.Serve(ctx, ln, review.Handler(svc, review.HandlerOptions{AnyHost: !loopback, Tokens: tokens, Log: o.streams.ErrOut, Job: j.View(), Version: versionString()}))
	if err := svc.Flush(); err != nil {
		return fmt.Errorf("cannot write the output files after the decisions (they are in the records; the next review writes them): %w", err)
	}
	if served != nil {
		return served
	}
	if listing, err := svc.List(); err == nil {
		p := listing.Progress
		fmt.Fprintf(o.streams.ErrOut, "creator: review of job '%s' stopped: %d of %d reviewed\n", j.ID, p.Reviewed, p.Total)
	}
	return nil
}

// reviewerNames are the names of --reviewers, each once.
func reviewerNames(given []string) ([]string, error) {
	var names []string
	for _, n := range given {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
			return nil, usageErrorf("--reviewers holds an empty name: give names separated by commas, such as alice,bob")
		case strings.ContainsFunc(n, markdown.Hidden):
			// As the review checks a change's reviewer: a name it would refuse.
			return nil, usageErrorf("--reviewers: %q holds a control or bidirectional formatting character", n)
		case !slices.Contains(names, n):
			names = append(names, n)
		}
	}
	return names, nil
}

// reviewTokens gives each reviewer a random token: token → name.
func reviewTokens(names []string) (map[string]string, error) {
	tokens := map[string]string{}
	for _, n := range names {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("cannot make a token: %w", err)
		}
		tokens[hex.EncodeToString(b)] = n
	}
	return tokens, nil
}
