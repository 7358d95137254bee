package queue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"creator/internal/batch"
	"creator/internal/jobrun"
	"creator/internal/settings"
	"creator/workspace"
)

// A failed job waits the first backoff, then twice as long per attempt,
// at most an hour.
func TestBackoff(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	b := backoff{first: 15 * time.Second, now: func() time.Time { return now }}
	for attempt, want := range map[int]time.Duration{0: 15 * time.Second, 1: 15 * time.Second, 2: 30 * time.Second, 3: time.Minute, 9: time.Hour, 40: time.Hour} {
		if got := b.NextRetry(&rivertype.JobRow{Attempt: attempt}).Sub(now); got != want {
			t.Errorf("attempt %d: retried after %v, want %v", attempt, got, want)
		}
	}
}

// River rescues an attempt only after its timeout, which is longer than
// the slice: a live worker's job is never rescued under it.
func TestGrace(t *testing.T) {
	t.Parallel()
	for slice, want := range map[time.Duration]time.Duration{time.Second: 5 * time.Second, 2 * time.Minute: 30 * time.Second, time.Hour: time.Minute} {
		if got := Grace(slice); got != want {
			t.Errorf("slice %v: grace %v, want %v", slice, got, want)
		}
	}
}

// The queue shows a job's document, last worker, last error and slices
// from River's row.
func TestEntryOf(t *testing.T) {
	t.Parallel()
	e := entryOf(&rivertype.JobRow{ID: 7, State: rivertype.JobStateCancelled, Attempt: 1, MaxAttempts: 25,
		EncodedArgs: []byte(`{"document":"ab","name":"x.pdf","job":"x-ab","flags":[]}`), Metadata: []byte(`{"snoozes":3}`),
		AttemptedBy: []string{"a", "b"}, Errors: []rivertype.AttemptError{{Error: "first"}, {Error: "refused: encrypted"}}})
	want := Entry{ID: 7, Job: "x-ab", Document: "x.pdf", State: "cancelled", Attempts: 1, MaxAttempts: 25, Slices: 3, Worker: "b", LastError: "refused: encrypted"}
	if e != want {
		t.Errorf("entry %+v, want %+v", e, want)
	}
}

// reviewedRunner is a runner whose job is open in creator review.
type reviewedRunner struct{ batch.Runner }

func (reviewedRunner) Resume(context.Context, string, jobrun.Reporter) (jobrun.Outcome, error) {
	return jobrun.Outcome{}, &workspace.LockedError{ID: "doc", PID: 42, Review: "http://127.0.0.1:8080/"}
}

// A job a person reviews is snoozed until the review ends, not failed: its
// attempts are not spent while it waits.
func TestWorkWaitsForAReview(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	doc := filepath.Join(t.TempDir(), "doc.txt")
	os.WriteFile(doc, []byte("Backups must be encrypted.\n"), 0o644)
	j, err := workspace.Create(root, workspace.CreateOptions{ID: "doc", Inputs: []string{doc}})
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	var logged []string
	w := &worker{c: WorkerConfig{Root: root, Slice: time.Minute, Backoff: 15 * time.Second,
		Runner: func(settings.Settings) (batch.Runner, error) { return reviewedRunner{}, nil },
		Log:    func(format string, a ...any) { logged = append(logged, fmt.Sprintf(format, a...)) }}}
	err = w.Work(context.Background(), &river.Job[Args]{JobRow: &rivertype.JobRow{Attempt: 1}, Args: Args{Job: "doc"}})
	var snooze *rivertype.JobSnoozeError
	if !errors.As(err, &snooze) || snooze.Duration != 15*time.Second {
		t.Fatalf("Work = %v, want a snooze of 15s", err)
	}
	if !strings.Contains(strings.Join(logged, "\n"), "open in creator review (pid 42, http://127.0.0.1:8080/)") {
		t.Errorf("log: %q", logged)
	}
}
