package queue

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"creator/internal/settings"
)

// recordedSettings are the settings every file of testdata/args-*.json
// was queued with.
var recordedSettings = settings.Settings{Version: 1, Model: "builtin", MaxSteps: 300, MinCoverage: 0.9, MaxText: 2_000_000,
	Given: []string{"max-steps", "max-text", "min-coverage", "model"}}

// The arguments of jobs queued by earlier versions give the settings they
// were queued with.
func TestArgsOfEarlierVersions(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("testdata", "args-*.json"))
	if len(files) < 2 {
		t.Fatalf("recorded arguments: %v", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var a Args
		if err := json.Unmarshal(data, &a); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		s, err := a.JobSettings()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if q := s.Queued(); !reflect.DeepEqual(q, recordedSettings) {
			t.Errorf("%s: settings %+v, want %+v", f, q, recordedSettings)
		}
	}
}

// This version writes the record of args-v1.json: a change of the
// record's shape needs a new version and a new file there.
func TestArgsRecord(t *testing.T) {
	t.Parallel()
	want, err := os.ReadFile(filepath.Join("testdata", "args-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := recordedSettings
	got, err := json.Marshal(Args{Document: "@SHA256@", Name: "retention-policy.md", Job: "retention-policy-@SHA8@", Settings: &s})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != strings.TrimSpace(string(want)) {
		t.Errorf("args\n%s\nwant\n%s", got, want)
	}
}

// A flag that is no setting, or a value its setting cannot take, is
// refused: a job never runs with less than it was queued with.
func TestArgsWithUnknownFlags(t *testing.T) {
	t.Parallel()
	for _, flags := range [][]string{{"--no-such=1"}, {"--max-steps=many"}, {"max-steps=5"}, {"--max-steps"}} {
		if _, err := (Args{Flags: flags}).JobSettings(); err == nil {
			t.Errorf("%q taken", flags)
		}
	}
}

// The queue's table shows a line a job, the last error's first line only.
func TestWriteList(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	WriteList(&b, []Entry{{Job: "a-1", Document: "a.pdf", State: "retryable", Attempts: 2, MaxAttempts: 25, Slices: 3, Worker: "w1", LastError: "server down\nstack"}})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "JOB") || strings.Join(strings.Fields(lines[1]), " ") != "a-1 a.pdf retryable 2/25 3 w1 server down" {
		t.Errorf("table:\n%s", b.String())
	}
}
