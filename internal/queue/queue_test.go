package queue

import (
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"
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
