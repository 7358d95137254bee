package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"creator/internal/settings"
	"creator/internal/usage"
	"creator/workspace"
)

// The model comes from the settings, then the environment, then the job's
// record; what cannot run is a usage error that names the setting.
func TestChooseModel(t *testing.T) {
	t.Parallel()
	builtin := settings.Defaults(func(string) string { return "" })
	with := func(change func(*settings.Settings)) settings.Settings { s := builtin; change(&s); return s }
	cases := []struct {
		name             string
		s                settings.Settings
		env              map[string]string
		sec              Secrets
		recModel, recURL string
		want             Model
		err              string
	}{
		{name: "nothing configured", s: builtin, want: Model{Name: "builtin", Auto: true}},
		{name: "builtin named", s: with(func(s *settings.Settings) { s.Model = "builtin"; s.BaseURL = "http://x/v1" }), want: Model{Name: "builtin"}},
		{name: "server without model", s: with(func(s *settings.Settings) { s.BaseURL = "http://h:8080/v1" }), err: "give --model"},
		{name: "model without server", s: with(func(s *settings.Settings) { s.Model = "gpt-x" }), err: "no server for model gpt-x"},
		{name: "not a URL", s: with(func(s *settings.Settings) { s.Model = "m"; s.BaseURL = "localhost:8080" }), err: "is not an http(s) URL"},
		{name: "from the environment", s: builtin, env: map[string]string{"CREATOR_MODEL": "m", "CREATOR_BASE_URL": "http://h/v1", "OPENAI_API_KEY": "k"},
			want: Model{Name: "m", BaseURL: "http://h/v1", APIKey: "k", KeySource: "OPENAI_API_KEY"}},
		{name: "the key given wins", s: with(func(s *settings.Settings) { s.Model = "m" }), env: map[string]string{"OPENAI_API_KEY": "k"}, sec: Secrets{APIKey: "given"},
			want: Model{Name: "m", APIKey: "given", KeySource: "--api-key"}},
		{name: "the job's record on resume", s: builtin, recModel: "m", recURL: "http://rec/v1", want: Model{Name: "m", BaseURL: "http://rec/v1"}},
		{name: "the settings over the record", s: with(func(s *settings.Settings) { s.BaseURL = "http://new/v1" }), recModel: "m", recURL: "http://rec/v1",
			want: Model{Name: "m", BaseURL: "http://new/v1"}},
		{name: "a budget without a price", s: with(func(s *settings.Settings) { s.Model = "local-llm"; s.BaseURL = "http://h/v1"; s.MaxCost = 5 }), err: "--max-cost needs the price of local-llm"},
		{name: "settings checked first", s: with(func(s *settings.Settings) { s.ContextWindow = 5 }), err: "--context-window"},
	}
	for _, c := range cases {
		m, err := ChooseModel(c.s, c.sec, func(k string) string { return c.env[k] }, c.recModel, c.recURL)
		var ue *usage.Error
		switch {
		case c.err != "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %v, want a usage error with %q", c.name, err, c.err)
		case c.err == "" && (err != nil || m != c.want):
			t.Errorf("%s: %+v, %v; want %+v", c.name, m, err, c.want)
		}
	}
}

// A new job is made only from settings and documents that can work; an id
// taken says how to go on with it.
func TestNew(t *testing.T) {
	t.Parallel()
	jobs := Jobs{Workspace: Workspace{Root: t.TempDir(), Env: testEnv(nil)}, Settings: settings.Defaults(func(string) string { return "" })}
	ctx := context.Background()
	bad := jobs
	bad.Settings.SummarizeAt = 10
	for name, try := range map[string]func() error{
		"a bad id":       func() error { _, _, err := jobs.New(ctx, "../x", []string{sampleMarkdown}); return err },
		"a bad setting":  func() error { _, _, err := bad.New(ctx, "bad", []string{sampleMarkdown}); return err },
		"a missing file": func() error { _, _, err := jobs.New(ctx, "missing", []string{"missing.pdf"}); return err },
	} {
		if err := try(); err == nil {
			t.Errorf("%s: taken", name)
		}
	}
	if ids, _ := workspace.List(jobs.Root); len(ids) != 0 {
		t.Fatalf("jobs made by refused settings or documents: %v", ids)
	}
	r, extracted, err := jobs.New(ctx, "p", []string{sampleMarkdown})
	if err != nil || extracted == nil || r.Model.Name != "builtin" {
		t.Fatalf("New: %+v, %v", r, err)
	}
	r.Job.Close()
	_, _, err = jobs.New(ctx, "p", []string{sampleMarkdown})
	var ue *usage.Error
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "creator resume --job p") {
		t.Errorf("the same id again: %v", err)
	}
}

// A resume goes on with the settings the job was made with, but those
// given now; a completed job is left as it is.
func TestContinue(t *testing.T) {
	t.Parallel()
	s := settings.Defaults(func(string) string { return "" })
	s.KeepToolResults, s.Tokenizer, s.MaxSteps = 3, "cl100k_base", 2
	jobs := Jobs{Workspace: Workspace{Root: t.TempDir(), Env: testEnv(nil)}, Settings: s}
	r, extracted, err := jobs.New(context.Background(), "p", []string{sampleMarkdown})
	if err != nil {
		t.Fatal(err)
	}
	out, err := jobs.Run(context.Background(), r, extracted, nil)
	r.Job.Close()
	if err != nil || out.Status != workspace.StatusStopped {
		t.Fatalf("run with 2 steps: %+v, %v", out.Status, err)
	}
	later := jobs
	later.Settings = settings.Defaults(func(string) string { return "" })
	later.Settings.KeepToolResults, later.Settings.MaxSteps = 4, 1000
	later.Settings.Give(settings.SetKeepToolResults, settings.SetMaxSteps)
	r, done, err := later.Continue(context.Background(), "p")
	if err != nil || done {
		t.Fatalf("Continue: done %v, %v", done, err)
	}
	if got := r.Settings; got.KeepToolResults != 4 || got.Tokenizer != "cl100k_base" || got.MaxSteps != 1000 || r.Model.Name != "builtin" || len(r.Transcript) == 0 {
		t.Errorf("resumed with %+v, model %s, %d records", got, r.Model.Name, len(r.Transcript))
	}
	out, err = later.Run(context.Background(), r, nil, nil)
	r.Job.Close()
	if err != nil || out.Status != workspace.StatusCompleted {
		t.Fatalf("resume: %+v, %v", out.Status, err)
	}
	r, done, err = later.Continue(context.Background(), "p")
	if err != nil || !done {
		t.Fatalf("Continue of a completed job: done %v, %v", done, err)
	}
	r.Job.Close()
	if _, err := os.Stat(filepath.Join(jobs.Root, "job_p", "output", "requirements.json")); err != nil {
		t.Error(err)
	}
}
