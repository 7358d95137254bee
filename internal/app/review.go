package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"time"

	"creator/internal/job"
	"creator/internal/remote"
	"creator/internal/review"
	"creator/internal/usage"
)

// reviewCheckpoints is how often a review on a bucket sends its
// decisions.
const reviewCheckpoints = 5 * time.Second

// ReviewOptions say which job to review and where to serve its page.
type ReviewOptions struct {
	Job string
	// Addr is host:port to listen on; an address off loopback needs
	// AllowRemote, and then every reviewer gets a token.
	Addr        string
	AllowRemote bool
	// Reviewer names who decides when a decision names nobody;
	// Reviewers, when given, are the only names a decision may carry.
	Reviewer  string
	Reviewers []string
	// Log gets a line for each decision and the page's errors.
	Log io.Writer
	// Ready is told where the page is served, before it is.
	Ready func(ReviewReady)
}

// ReviewReady is a review about to be served.
type ReviewReady struct {
	Job string
	// URL is the page's address; Remote says it is reachable from other
	// machines.
	URL    string
	Remote bool
	// Tokens are the reviewers' tokens, by name; none
	// on loopback.
	Tokens   []ReviewerToken
	Progress review.Progress
}

// ReviewerToken is the token a reviewer's requests carry.
type ReviewerToken struct{ Token, Name string }

// Review serves the review of a job until ctx ends, holding the job's
// lock, and gives the progress when it stopped (nil when it could not be
// read).
func (w Workspace) Review(ctx context.Context, o ReviewOptions) (*review.Progress, error) {
	host, _, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return nil, usage.Errorf("--addr %q is not host:port: %v", o.Addr, err)
	}
	loopback := review.LoopbackHost(host)
	if !loopback && !o.AllowRemote {
		return nil, usage.Errorf("--addr %s is reachable from other machines, and without --allow-remote the review page has no authentication; use a loopback address such as 127.0.0.1:8080, or add --allow-remote (every reviewer then gets a token)", o.Addr)
	}
	if err := CheckJobID(o.Job); err != nil {
		return nil, err
	}
	reviewer, reviewers, err := w.reviewNames(o)
	if err != nil {
		return nil, err
	}
	mirror, err := w.pull(ctx, o.Job)
	if err != nil {
		return nil, err
	}
	j, err := job.Open(w.Root, o.Job)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	if err := j.Lock(); err != nil {
		return nil, err
	}
	if mirror != nil {
		// The decisions go to the bucket as they are taken (every few
		// seconds) and when the review stops.
		cp := mirror.Start(j.Workspace(), remote.CheckpointOptions{Every: reviewCheckpoints, Log: w.Env.Log})
		defer func() {
			if err := cp.Stop(context.WithoutCancel(ctx)); err != nil && w.Env.Log != nil {
				w.Env.Log("the review's last decisions could not be sent to %s (a resume or review here sends them): %v", w.Store.URL, err)
			}
		}()
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %w", o.Addr, err)
	}
	defer ln.Close()
	ready := ReviewReady{Job: j.ID, URL: "http://" + ln.Addr().String() + "/", Remote: !loopback}
	// A resume of the job meanwhile is refused, and told where the review runs.
	if err := j.RecordReview(ready.URL); err != nil {
		return nil, err
	}
	svc := review.ForJob(j, review.Config{Reviewer: reviewer, Reviewers: reviewers, Now: w.Env.Now, OutputDelay: time.Second, Log: o.Log})
	if err := svc.Sync(); err != nil {
		return nil, err
	}
	var tokens map[string]string
	if o.AllowRemote {
		names := reviewers
		if len(names) == 0 {
			names = []string{reviewer}
		}
		if tokens, err = reviewTokens(names); err != nil {
			return nil, err
		}
		for t, name := range tokens {
			ready.Tokens = append(ready.Tokens, ReviewerToken{Token: t, Name: name})
		}
		slices.SortFunc(ready.Tokens, func(a, b ReviewerToken) int { return strings.Compare(a.Name, b.Name) })
	}
	listing, err := svc.List()
	if err != nil {
		return nil, err
	}
	ready.Progress = listing.Progress
	if reviewer == "" && len(reviewers) == 0 && w.Env.Log != nil {
		w.Env.Log("warning: no default reviewer (no --reviewer, and $USER is not set): every change must name its reviewer; the page asks for a name, and an API request without \"reviewer\" is refused")
	}
	if o.Ready != nil {
		o.Ready(ready)
	}
	served := review.Serve(ctx, ln, review.Handler(svc, review.HandlerOptions{AnyHost: !loopback, Tokens: tokens, Log: o.Log, Job: j.View(), Version: w.Env.Version}))
	if err := svc.Flush(); err != nil {
		return nil, fmt.Errorf("cannot write the output files after the decisions (they are in the records; the next review writes them): %w", err)
	}
	if served != nil {
		return nil, served
	}
	if listing, err := svc.List(); err == nil {
		return &listing.Progress, nil
	}
	return nil, nil
}

// reviewNames are the review's default reviewer, who makes the changes
// that name nobody (--reviewer, else $USER; none when neither is given),
// and the only names a change may carry (--reviewers; any when none). A
// review always knows who decides: one with tokens needs a name to give a
// token to, and one without a default reviewer takes only changes that
// name theirs.
func (w Workspace) reviewNames(o ReviewOptions) (string, []string, error) {
	reviewers, err := ReviewerNames(o.Reviewers)
	if err != nil {
		return "", nil, err
	}
	reviewer, from := strings.TrimSpace(o.Reviewer), "--reviewer"
	if reviewer == "" {
		reviewer, from = strings.TrimSpace(w.Env.Getenv("USER")), "$USER"
	}
	if reviewer != "" {
		if err := review.CheckReviewerName(reviewer); err != nil {
			return "", nil, usage.Errorf("%s: %v; give the default reviewer with --reviewer NAME", from, err)
		}
	}
	if o.AllowRemote && reviewer == "" && len(reviewers) == 0 {
		return "", nil, usage.Errorf("--allow-remote gives each reviewer a token, and no reviewer is named (no --reviewer, and $USER is not set): give --reviewers alice,bob or --reviewer NAME")
	}
	return reviewer, reviewers, nil
}

// ReviewerNames are the reviewers' names given, each once; a name the
// review would refuse in a decision (review.CheckReviewerName) is refused
// at once.
func ReviewerNames(given []string) ([]string, error) {
	var names []string
	for _, n := range given {
		n = strings.TrimSpace(n)
		if n == "" {
			return nil, usage.Errorf("--reviewers holds an empty name: give names separated by commas, such as alice,bob")
		}
		if err := review.CheckReviewerName(n); err != nil {
			return nil, usage.Errorf("--reviewers: %v", err)
		}
		if !slices.Contains(names, n) {
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
