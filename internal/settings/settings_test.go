package settings

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"creator/workspace"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// The environment's settings stand over the built-in ones; a value that
// cannot be read is left at the default.
func TestDefaults(t *testing.T) {
	t.Parallel()
	d := Defaults(env(nil))
	if d.MaxSteps <= 0 || d.Parallel <= 0 || d.MaxText <= 0 || d.Tokenizer == "" || d.RequestTimeout <= 0 || d.Version != SettingsVersion {
		t.Fatalf("built-in defaults %+v", d)
	}
	e := Defaults(env(map[string]string{"CREATOR_MAX_STEPS": "7", "CREATOR_PARALLEL": "0", "CREATOR_MAX_TEXT": "1.5MB",
		"CREATOR_RETRY_FOR": "30s", "CREATOR_SEND_REASONING": "yes", "CREATOR_PRICE_IN": "0.5", "CREATOR_TOKENIZER": "cl100k_base"}))
	if e.MaxSteps != 7 || e.Parallel != 0 || e.MaxText != 1_500_000 || time.Duration(e.RetryFor) != 30*time.Second ||
		!e.SendReasoning || e.PriceIn != 0.5 || e.Tokenizer != "cl100k_base" {
		t.Errorf("from the environment %+v", e)
	}
	if bad := Defaults(env(map[string]string{"CREATOR_MAX_STEPS": "-3", "CREATOR_PARALLEL": "x"})); bad.MaxSteps != d.MaxSteps || bad.Parallel != d.Parallel {
		t.Errorf("unreadable values taken: %+v", bad)
	}
}

// A queued job's given settings stand over the worker's defaults, the
// others are the worker's; a given zero is given.
func TestOver(t *testing.T) {
	t.Parallel()
	worker := Defaults(env(map[string]string{"CREATOR_MAX_STEPS": "900", "CREATOR_PARALLEL": "8"}))
	q := Settings{Parallel: 0, MaxCost: 3, Given: []string{SetParallel, SetMaxCost}}
	got := q.Over(worker)
	if got.Parallel != 0 || got.MaxCost != 3 || got.MaxSteps != 900 || !got.IsGiven(SetParallel) || got.IsGiven(SetMaxSteps) {
		t.Errorf("over the worker's defaults: %+v", got)
	}
}

// A resume takes the job's record for the settings not given, the
// environment's price and embedding model over the record's, and a job
// recorded before sub-agents goes on without them.
func TestInherit(t *testing.T) {
	t.Parallel()
	parallel := 2
	rec := workspace.Settings{MaxSteps: 40, ContextWindow: 64000, Parallel: &parallel, EmbedModel: "nomic-embed-text",
		EmbedBaseURL: "http://localhost:11434/v1", PriceIn: 1}
	s := Defaults(env(nil))
	got := s.Inherit(rec)
	if got.MaxSteps != 40 || got.ContextWindow != 64000 || got.Parallel != 2 || got.PriceIn != 1 ||
		got.EmbedModel != "nomic-embed-text" || got.EmbedBaseURL != "http://localhost:11434/v1" {
		t.Errorf("inherited %+v", got)
	}
	s.MaxSteps, s.EmbedModel, s.PriceIn = 100, "from-env", 2
	s.Give(SetMaxSteps)
	got = s.Inherit(rec)
	if got.MaxSteps != 100 || got.EmbedModel != "from-env" || got.PriceIn != 2 {
		t.Errorf("given or the environment's replaced: %+v", got)
	}
	if got := Defaults(env(nil)).Inherit(workspace.Settings{}); got.Parallel != 0 {
		t.Errorf("a job recorded without sub-agents resumes with %d", got.Parallel)
	}
}

// Settings that cannot work are refused before a job is made.
func TestCheck(t *testing.T) {
	t.Parallel()
	if err := Defaults(env(nil)).Check(); err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	for name, change := range map[string]func(*Settings){
		"--context-window":    func(s *Settings) { s.ContextWindow = 10 },
		"--summarize-at":      func(s *Settings) { s.SummarizeAt = 10 },
		"--keep-tool-results": func(s *Settings) { s.KeepToolResults = 0 },
		"--request-timeout":   func(s *Settings) { s.RequestTimeout = Duration(time.Millisecond) },
		"--retry-for":         func(s *Settings) { s.RetryFor = -1 },
		"--parallel":          func(s *Settings) { s.Parallel = MaxParallel + 1 },
		"--min-coverage":      func(s *Settings) { s.MinCoverage = 1.5 },
		"--max-cost":          func(s *Settings) { s.PriceOut = -1 },
		"--tokenizer":         func(s *Settings) { s.Tokenizer = "nope" },
		"--embed-base-url":    func(s *Settings) { s.EmbedBaseURL = "localhost:1" },
		"newer":               func(s *Settings) { s.Version = SettingsVersion + 1 },
	} {
		s := Defaults(env(nil))
		change(&s)
		if err := s.Check(); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A queued record holds the given settings only, in one order, so two
// machines queue the same job alike; it survives JSON.
func TestQueued(t *testing.T) {
	t.Parallel()
	a := Defaults(env(map[string]string{"CREATOR_MAX_STEPS": "7"}))
	b := Defaults(env(nil))
	for _, s := range []*Settings{&a, &b} {
		s.RequestTimeout, s.Model = Duration(90*time.Second), "m"
		s.Give(SetModel, SetRequestTimeout)
	}
	b.Given = []string{SetRequestTimeout, SetModel}
	ja, _ := json.Marshal(a.Queued())
	jb, _ := json.Marshal(b.Queued())
	if string(ja) != string(jb) || !strings.Contains(string(ja), `"request_timeout":"1m30s"`) || strings.Contains(string(ja), "max_steps") {
		t.Errorf("records differ or hold more than given:\n%s\n%s", ja, jb)
	}
	var back Settings
	if err := json.Unmarshal(ja, &back); err != nil || !reflect.DeepEqual(back, a.Queued()) {
		t.Errorf("back from JSON: %+v, %v", back, err)
	}
}

// The flags of a job queued before the record read as the same settings.
func TestFromFlags(t *testing.T) {
	t.Parallel()
	s, err := FromFlags([]string{"--parallel=0", "--request-timeout=1m30s", "--max-text=64.0MB", "--send-reasoning=true", "--price-in=0.25", "--model=gpt"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Parallel != 0 || time.Duration(s.RequestTimeout) != 90*time.Second || s.MaxText != 64e6 || !s.SendReasoning || s.PriceIn != 0.25 ||
		s.Model != "gpt" || len(s.Given) != 6 || !s.IsGiven(SetParallel) {
		t.Errorf("from flags: %+v", s)
	}
}

// Every setting is a flag that sets its own field, shows its value as it
// reads it back, and names its kind; a size takes a unit.
func TestFlags(t *testing.T) {
	var s Settings
	flags := Flags(&s)
	// Every field of the record but its version and its list of given
	// settings is a flag: a field added without its entry in the table
	// could never be given.
	if want := reflect.TypeOf(s).NumField() - 2; len(flags) != want {
		t.Fatalf("%d flags for the %d settings of the record", len(flags), want)
	}
	give := map[string]string{"int": "7", "int64": "12345", "float64": "0.25", "bool": "true", "duration": "1m30s", "string": "x", "size": "2.0MB"}
	for _, f := range flags {
		if f.Usage == "" {
			t.Errorf("--%s has no usage", f.Name)
		}
		v, ok := give[f.Value.Type()]
		if !ok {
			t.Errorf("--%s: kind %q", f.Name, f.Value.Type())
			continue
		}
		if err := f.Value.Set(v); err != nil {
			t.Errorf("--%s %s: %v", f.Name, v, err)
		}
		if got := f.Value.String(); got != v {
			t.Errorf("--%s %s reads back as %q", f.Name, v, got)
		}
	}
	if s.MaxSteps != 7 || s.MaxTokens != 12345 || s.MaxText != 2_000_000 || s.MinCoverage != 0.25 || !s.AllTools ||
		time.Duration(s.RetryFor) != 90*time.Second || s.Model != "x" {
		t.Errorf("settings %+v", s)
	}
	for _, bad := range []struct{ name, value string }{{SetMaxSteps, "many"}, {SetMaxText, "big"}, {SetRetryFor, "soon"}} {
		i := slices.IndexFunc(flags, func(f Flag) bool { return f.Name == bad.name })
		if err := flags[i].Value.Set(bad.value); err == nil {
			t.Errorf("--%s %s: no error", bad.name, bad.value)
		}
	}
}
