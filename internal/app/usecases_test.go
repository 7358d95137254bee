package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"creator/internal/settings"
	"creator/internal/usage"
)

// completedJob runs the built-in model on the sample under a new root and
// returns the workspace and the job's id.
func completedJob(t *testing.T, id string) Workspace {
	t.Helper()
	jobs := Jobs{Workspace: Workspace{Root: t.TempDir(), Env: testEnv(map[string]string{"USER": "tester"})}, Settings: settings.Defaults(func(string) string { return "" })}
	r, extracted, err := jobs.New(context.Background(), id, []string{sampleMarkdown})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Job.Close()
	if out, err := jobs.Run(context.Background(), r, extracted, nil); err != nil || out.Status != "completed" {
		t.Fatalf("run: %v, %v", out.Status, err)
	}
	return jobs.Workspace
}

// A batch's options and settings that cannot work are usage errors, said
// before any job is made.
func TestNewBatch(t *testing.T) {
	t.Parallel()
	docs := filepath.Dir(sampleMarkdown)
	jobs := Jobs{Workspace: Workspace{Root: filepath.Join(t.TempDir(), "ws"), Env: testEnv(nil)}, Settings: settings.Defaults(func(string) string { return "" })}
	unpriced := jobs
	unpriced.Settings.Model, unpriced.Settings.BaseURL = "unpriced", "http://127.0.0.1:9/v1"
	for _, c := range []struct {
		jobs Jobs
		o    BatchOptions
		want string
	}{
		{jobs, BatchOptions{Paths: []string{filepath.Join(docs, "missing")}, Jobs: 1}, "does not exist"},
		{jobs, BatchOptions{Paths: []string{t.TempDir()}, Jobs: 1}, "no documents in"},
		{jobs, BatchOptions{Paths: []string{docs}, Jobs: 0}, "--jobs"},
		{jobs, BatchOptions{Paths: []string{docs}, Jobs: 1, MaxTokens: -1}, "cannot be negative"},
		{jobs, BatchOptions{Paths: []string{docs}, Jobs: 1, Include: []string{"["}}, "bad glob"},
		{unpriced, BatchOptions{Paths: []string{docs}, Jobs: 1, MaxCost: 1}, "needs the price"},
	} {
		_, err := c.jobs.NewBatch(context.Background(), c.o)
		var ue *usage.Error
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want a usage error with %q", c.o, err, c.want)
		}
	}
	if _, err := os.Stat(jobs.Root); err == nil {
		t.Error("a refused batch made the workspace")
	}
	b, err := jobs.NewBatch(context.Background(), BatchOptions{Paths: []string{docs}, Include: []string{"*.md"}, Jobs: 2})
	if err != nil || b.Batch == nil || !b.Model.Auto || !b.Priced {
		t.Fatalf("NewBatch: %+v, %v", b, err)
	}
}

// An export's format is the one given, else the one -o's extension
// names; a mismatch or an unknown one is refused.
func TestExportFormat(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		o    ExportOptions
		want string
	}{
		{ExportOptions{Format: "json"}, "json"},
		{ExportOptions{Format: "json", Output: "x.csv"}, "csv"},
		{ExportOptions{Format: "json", Output: "x.cql"}, "cypher"},
		{ExportOptions{Format: "json", Output: "nist.OSCAL.json"}, "oscal"},
		{ExportOptions{Format: "json", FormatGiven: true, Output: "x.oscal.json"}, "error: is named as oscal, not json"},
		{ExportOptions{Format: "md", FormatGiven: true, Output: "-"}, "md"},
		{ExportOptions{Format: "audit-csv", FormatGiven: true, Output: "log.csv"}, "audit-csv"},
		{ExportOptions{Format: "json", Output: "x.docx"}, "error: no format is written as .docx"},
		{ExportOptions{Format: "csv", FormatGiven: true, Output: "x.xlsx"}, "error: is named as xlsx, not csv"},
		{ExportOptions{Format: "docx", FormatGiven: true}, `error: unknown format "docx"`},
		{ExportOptions{Format: "audit-json", FormatGiven: true, ReviewedOnly: true}, "error: --reviewed-only is for the requirements"},
	} {
		got, err := c.o.ExportFormat()
		wantErr, refused := strings.CutPrefix(c.want, "error: ")
		var ue *usage.Error
		switch {
		case refused && (!errors.As(err, &ue) || !strings.Contains(err.Error(), wantErr)):
			t.Errorf("%+v: %q, %v; want a usage error with %q", c.o, got, err, wantErr)
		case !refused && (err != nil || got != c.want):
			t.Errorf("%+v: %q, %v; want %q", c.o, got, err, c.want)
		}
	}
}

// Off loopback a review needs AllowRemote; with it each reviewer gets a
// token, and the API answers only to a token and as its reviewer.
func TestReviewTokens(t *testing.T) {
	t.Parallel()
	w := completedJob(t, "tokens")
	ctx := context.Background()
	if _, err := w.Review(ctx, ReviewOptions{Job: "tokens", Addr: "0.0.0.0:0"}); err == nil || !strings.Contains(err.Error(), "--allow-remote") {
		t.Errorf("a remote address without AllowRemote: %v", err)
	}
	r := startReview(t, w, ReviewOptions{Job: "tokens", Addr: "127.0.0.1:0", AllowRemote: true, Reviewers: []string{"bob", "alice"}})
	if len(r.Tokens) != 2 || r.Tokens[0].Name != "alice" || r.Tokens[1].Name != "bob" || len(r.Tokens[0].Token) < 32 || r.Progress.Total == 0 {
		t.Fatalf("ready: %+v", r)
	}
	send := func(method, path, body, token string) (int, map[string]any) {
		req, _ := http.NewRequest(method, r.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var v map[string]any
		json.NewDecoder(res.Body).Decode(&v)
		return res.StatusCode, v
	}
	alice := r.Tokens[0].Token
	if status, _ := send("GET", "api/requirements", "", ""); status != 401 {
		t.Errorf("without a token: %d", status)
	}
	if status, v := send("GET", "api/session", "", alice); status != 200 || v["reviewer"] != "alice" || v["auth"] != true {
		t.Errorf("session: %d %v", status, v)
	}
	if status, _ := send("POST", "api/requirements/REQ-001/review", `{"decision": "accepted", "reviewer": "bob"}`, alice); status != 403 {
		t.Errorf("alice as bob: %d", status)
	}
	if status, _ := send("POST", "api/requirements/REQ-001/review", `{"decision": "accepted"}`, alice); status != 200 {
		t.Errorf("alice: %d", status)
	}
}

// A review always knows who decides. With $USER unset and no --reviewer
// a review with tokens has no one to give a token to: it does not start,
// and says what to give. On loopback it starts, warns, and refuses a
// change that names nobody rather than record it as nobody's; a name
// given with --reviewer or --reviewers must be one people can read.
func TestReviewWithoutAReviewersName(t *testing.T) {
	t.Parallel()
	w := completedJob(t, "nameless")
	var logged strings.Builder
	w.Env = testEnv(nil)
	w.Env.Log = func(format string, args ...any) { fmt.Fprintf(&logged, format+"\n", args...) }
	ctx := context.Background()
	// A review that starts when it should not stops at this deadline.
	refused, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var ue *usage.Error
	for _, o := range []ReviewOptions{
		{Job: "nameless", Addr: "127.0.0.1:0", AllowRemote: true},
		{Job: "nameless", Addr: "0.0.0.0:0", AllowRemote: true},
	} {
		_, err := w.Review(refused, o)
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--reviewers") || !strings.Contains(err.Error(), "--reviewer NAME") {
			t.Errorf("%s --allow-remote without a name: %v; want a usage error naming --reviewers and --reviewer", o.Addr, err)
		}
	}
	for _, o := range []ReviewOptions{
		{Job: "nameless", Addr: "127.0.0.1:0", Reviewer: "al\u200Bice"},
		{Job: "nameless", Addr: "127.0.0.1:0", AllowRemote: true, Reviewers: []string{"b\u2028ob"}},
	} {
		if _, err := w.Review(refused, o); !errors.As(err, &ue) || !strings.Contains(err.Error(), "invisible character") {
			t.Errorf("%+q %+q: %v; want a usage error", o.Reviewer, o.Reviewers, err)
		}
	}

	r := startReview(t, w, ReviewOptions{Job: "nameless", Addr: "127.0.0.1:0"})
	if !strings.Contains(logged.String(), "warning: no default reviewer") {
		t.Errorf("no warning of the missing name: %q", logged.String())
	}
	post := func(body string) (int, string) {
		res, err := http.Post(r.URL+"api/requirements/REQ-001/review", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var v struct{ Error string }
		json.NewDecoder(res.Body).Decode(&v)
		return res.StatusCode, v.Error
	}
	if status, msg := post(`{"decision": "accepted"}`); status != 400 || !strings.Contains(msg, `"reviewer" is missing`) {
		t.Errorf("a decision naming nobody: %d %q", status, msg)
	}
	if status, msg := post(`{"decision": "accepted", "reviewer": "carol"}`); status != 200 {
		t.Errorf("carol's decision: %d %q", status, msg)
	}
}

// A catalog exported from a job, then edited elsewhere, compares with
// the job: the edited control is changed, the rest unchanged.
func TestDiffWithACatalog(t *testing.T) {
	t.Parallel()
	w := completedJob(t, "p")
	ctx := context.Background()
	exp, err := w.Export(ctx, ExportOptions{Job: "p", Format: "oscal"})
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(exp.Data), "ten years", "twelve years", 1)
	file := filepath.Join(t.TempDir(), "edited.oscal.json")
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := w.Diff(ctx, "p", file)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changed) != 1 || len(res.Added)+len(res.Removed) != 0 || res.Unchanged == 0 {
		t.Errorf("diff with the edited catalog: %d changed, %d added, %d removed, %d unchanged", len(res.Changed), len(res.Added), len(res.Removed), res.Unchanged)
	}
	if _, err := w.Diff(ctx, "p", filepath.Join(filepath.Dir(file), "missing.json")); err == nil {
		t.Error("a missing file was taken")
	}
}

// startReview starts the review o asks for and returns what it said when
// ready; the test's cleanup stops it and reports its error.
func startReview(t *testing.T, w Workspace, o ReviewOptions) ReviewReady {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	ready := make(chan ReviewReady, 1)
	done := make(chan error, 1)
	o.Ready = func(r ReviewReady) { ready <- r }
	go func() {
		_, err := w.Review(ctx, o)
		done <- err
	}()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	select {
	case r := <-ready:
		return r
	case err := <-done:
		done <- err
		t.Fatal(err)
		return ReviewReady{}
	}
}
