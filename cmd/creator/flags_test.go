package main

import (
	"bytes"
	"context"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"creator/internal/app"
	"creator/internal/iostreams"
	"creator/internal/settings"
)

// parseFlags runs the command newCmd makes on args, with the environment
// env, and returns the options its run function got: the flag → option
// mapping, without running anything.
func parseFlags[O any](t *testing.T, newCmd func(*globalOptions, func(context.Context, *O) error) *cobra.Command, env map[string]string, args ...string) *O {
	t.Helper()
	var got *O
	g := &globalOptions{factory: testFactory(&iostreams.IOStreams{Out: io.Discard, ErrOut: io.Discard}, env, nil)}
	cmd := newCmd(g, func(_ context.Context, o *O) error { got = o; return nil })
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	if got == nil {
		t.Fatalf("%v: the run function was not called", args)
	}
	return got
}

// Each flag of run sets its setting and marks it given; the others keep
// the environment's defaults, not given; the secrets are no settings.
func TestRunFlags(t *testing.T) {
	t.Parallel()
	env := map[string]string{"CREATOR_MAX_STEPS": "9", "CREATOR_PARALLEL": "6"}
	o := parseFlags(t, newRunCmd, env, "--job", "j1", "--max-steps", "5", "--parallel", "0", "--max-text", "2MB", "--request-timeout", "30s",
		"--send-reasoning", "--model", "m", "--base-url", "http://h/v1", "--api-key", "k", "--pdf-password", "p", "-q", "a.md", "b.pdf")
	s := o.settings
	if o.jobID != "j1" || !slices.Equal(o.documents, []string{"a.md", "b.pdf"}) || !o.quiet {
		t.Errorf("job %q, documents %q, quiet %v", o.jobID, o.documents, o.quiet)
	}
	if s.MaxSteps != 5 || s.Parallel != 0 || s.MaxText != 2e6 || time.Duration(s.RequestTimeout) != 30*time.Second || !s.SendReasoning ||
		s.Model != "m" || s.BaseURL != "http://h/v1" {
		t.Errorf("settings %+v", s)
	}
	want := []string{settings.SetModel, settings.SetBaseURL, settings.SetMaxSteps, settings.SetParallel, settings.SetMaxText,
		settings.SetRequestTimeout, settings.SetSendReasoning}
	if !sameSet(s.Given, want) {
		t.Errorf("given %q, want %q", s.Given, want)
	}
	if o.secrets.APIKey != "k" || o.secrets.PDFPassword != "p" {
		t.Errorf("secrets %+v", o.secrets)
	}
	d := parseFlags(t, newRunCmd, env, "a.md").settings
	if d.MaxSteps != 9 || d.Parallel != 6 || len(d.Given) != 0 {
		t.Errorf("defaults from the environment: %+v", d)
	}
	// resume marks as given only what its command line gives, so the
	// job's record fills the rest.
	if r := parseFlags(t, newResumeCmd, nil, "--job", "j1", "--max-steps", "1000"); r.jobID != "j1" || !slices.Equal(r.settings.Given, []string{settings.SetMaxSteps}) {
		t.Errorf("resume: job %q, settings %+v", r.jobID, r.settings)
	}
}

// batch takes run's settings and its own options, and the command line
// that runs it again leaves the secrets out.
func TestBatchFlags(t *testing.T) {
	t.Parallel()
	o := parseFlags(t, newBatchCmd, nil, "-j", "3", "--parallel", "2", "--include", "*.pdf", "--include", "x/*", "--batch-max-cost", "20",
		"--api-key", "secret-key", "--pdf-password", "secret-pw", "docs/", "my file.pdf")
	if o.atOnce != 3 || o.settings.Parallel != 2 || !slices.Equal(o.include, []string{"*.pdf", "x/*"}) || o.batchMaxCost != 20 ||
		!slices.Equal(o.paths, []string{"docs/", "my file.pdf"}) || !slices.Equal(o.settings.Given, []string{settings.SetParallel}) {
		t.Errorf("batch options %+v", o)
	}
	if want := "creator batch --batch-max-cost 20 --include '*.pdf' --include 'x/*' --jobs 3 --parallel 2 docs/ 'my file.pdf'"; o.again != want {
		t.Errorf("again: %q, want %q", o.again, want)
	}
}

// enqueue takes run's settings (they travel with each job) and the
// database's flag.
func TestEnqueueFlags(t *testing.T) {
	t.Parallel()
	o := parseFlags(t, newEnqueueCmd, nil, "--database", "postgres://db", "--max-cost", "5", "--model", "gpt-4.1", "docs/")
	if o.database != "postgres://db" || o.settings.MaxCost != 5 || o.settings.Model != "gpt-4.1" ||
		!sameSet(o.settings.Given, []string{settings.SetMaxCost, settings.SetModel}) || !slices.Equal(o.documents, []string{"docs/"}) {
		t.Errorf("enqueue options %+v", o)
	}
}

// export knows whether --format was given, so -o's extension can choose.
func TestExportFlags(t *testing.T) {
	t.Parallel()
	if o := parseFlags(t, newExportCmd, nil, "--job", "j", "-o", "x.csv"); o.formatGiven || o.format != "json" || o.output != "x.csv" {
		t.Errorf("export without --format: %+v", o)
	}
	if o := parseFlags(t, newExportCmd, nil, "--job", "j", "--format", "json", "--reviewed-only"); !o.formatGiven || !o.reviewedOnly {
		t.Errorf("export --format json: %+v", o)
	}
}

// review splits --reviewers at commas.
func TestReviewFlags(t *testing.T) {
	t.Parallel()
	o := parseFlags(t, newReviewCmd, nil, "--job", "j", "--reviewers", "alice,bob", "--addr", "0.0.0.0:9000", "--allow-remote")
	if !slices.Equal(o.reviewers, []string{"alice", "bob"}) || o.addr != "0.0.0.0:9000" || !o.allowRemote || o.jobID != "j" {
		t.Errorf("review options %+v", o)
	}
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// review prints its address, or one address per reviewer with their token.
func TestReviewReadyLines(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	o := &reviewOptions{globalOptions: &globalOptions{factory: testFactory(&iostreams.IOStreams{Out: &out, ErrOut: io.Discard}, nil, nil)}}
	o.ready(app.ReviewReady{Job: "j", URL: "http://127.0.0.1:1/", Tokens: []app.ReviewerToken{{Token: "t1", Name: "alice"}, {Token: "t2", Name: "bob"}}})
	o.ready(app.ReviewReady{Job: "j", URL: "http://127.0.0.1:2/"})
	if want := "http://127.0.0.1:1/#token=t1  (alice)\nhttp://127.0.0.1:1/#token=t2  (bob)\nhttp://127.0.0.1:2/\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}
