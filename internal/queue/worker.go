package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"creator/internal/batch"
	"creator/internal/job"
	"creator/internal/jobrun"
	"creator/internal/publish"
	"creator/internal/settings"
	"creator/workspace"
)

// Defaults of a worker.
const (
	DefaultConcurrency = 2
	DefaultSlice       = 2 * time.Minute
	DefaultBackoff     = 15 * time.Second
	// MaxAttempts is how many attempts a job gets: errors, budgets and
	// workers killed in the middle of a slice count, the slices a job
	// snoozes after do not.
	MaxAttempts = 25
	// StopTimeout bounds a stop: SIGTERM's stop cancels the running jobs,
	// which stop at their current step, resumably, and are snoozed.
	StopTimeout = 8 * time.Second
)

// WorkerConfig configures a worker process's River client.
type WorkerConfig struct {
	Pool *pgxpool.Pool
	// Root is the workspace root, shared by every worker.
	Root string
	// Concurrency is how many jobs the worker runs at once.
	Concurrency int
	// Slice is how long an attempt works on a job before it snoozes it,
	// resumable, to be continued by any worker.
	Slice time.Duration
	// Backoff is the first wait before a job that failed (a server error,
	// a budget, a killed worker) is retried; it doubles with each attempt,
	// up to an hour.
	Backoff time.Duration
	// Runner gives the runner of a job from its settings: run's and
	// resume's path. An error is a permanent failure of the job
	// (settings this creator cannot run).
	Runner func(s settings.Settings) (batch.Runner, error)
	// Save, when set, sends a job's folder to where the workspace keeps
	// it after the worker changed it outside a run (the record of its
	// publication): a bucket.
	Save func(ctx context.Context, id string) error
	// Logger gets River's own messages; nil discards them.
	Logger *slog.Logger
	// Log gets one line per job event.
	Log func(format string, args ...any)
	// ID is the worker's name in the queue (River's client id); empty
	// makes one of the host name, pid and start time.
	ID  string
	Now func() time.Time
}

// Grace is the time an attempt has beyond its slice to stop and publish
// before River cancels it (JobTimeout = slice + grace); River rescues an
// attempt of a dead worker once it is slice + 2 × grace old.
func Grace(slice time.Duration) time.Duration {
	return min(max(slice/4, 5*time.Second), time.Minute)
}

// Work runs the worker until ctx ends, then stops within StopTimeout:
// running jobs stop at their current step, resumably, and are snoozed so
// that any worker continues them at once.
func Work(ctx context.Context, c WorkerConfig) error {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = func(string, ...any) {}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.ID == "" {
		host, _ := os.Hostname()
		c.ID = fmt.Sprintf("%s.%d.%s", host, os.Getpid(), c.Now().UTC().Format("150405"))
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &worker{c: c})
	grace := Grace(c.Slice)
	client, err := river.NewClient(riverpgxv5.New(c.Pool), &river.Config{
		ID:                   c.ID,
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: c.Concurrency}},
		Workers:              workers,
		JobTimeout:           c.Slice + grace,
		RescueStuckJobsAfter: c.Slice + 2*grace,
		MaxAttempts:          MaxAttempts,
		RetryPolicy:          backoff{first: c.Backoff, now: c.Now},
		Logger:               c.Logger,
	})
	if err != nil {
		return err
	}
	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	c.Log("worker %s: working jobs, %d at once, in slices of %s", c.ID, c.Concurrency, c.Slice)
	<-ctx.Done()
	stop, cancel := context.WithTimeout(context.Background(), StopTimeout)
	defer cancel()
	if err := client.StopAndCancel(stop); err != nil {
		return fmt.Errorf("stopping the worker: %w", err)
	}
	c.Log("worker %s: stopped", c.ID)
	return nil
}

// backoff waits first, then twice as long for each further attempt, at
// most an hour.
type backoff struct {
	first time.Duration
	now   func() time.Time
}

func (b backoff) NextRetry(j *rivertype.JobRow) time.Time {
	d := b.first << min(max(j.Attempt-1, 0), 20)
	return b.now().Add(min(d, time.Hour))
}

type worker struct {
	river.WorkerDefaults[Args]
	c WorkerConfig
}

// errRefused marks a document that cannot be used.
var errRefused = errors.New("refused")

// Work works on the job for at most a slice: it completes (and publishes
// in the transaction that completes the River job), snoozes to continue,
// fails to be retried, or is cancelled for good when the document cannot
// be used.
func (w *worker) Work(ctx context.Context, rj *river.Job[Args]) error {
	a := rj.Args
	s, err := a.JobSettings()
	var runner batch.Runner
	if err == nil {
		runner, err = w.c.Runner(s)
	}
	if err != nil {
		w.c.Log("job %s: cannot run with its settings: %v", a.Job, err)
		return river.JobCancel(fmt.Errorf("the job's settings: %w", err))
	}
	slice, cancel := context.WithCancel(ctx)
	defer cancel()
	var sliceEnded atomic.Bool
	timer := time.AfterFunc(w.c.Slice, func() { sliceEnded.Store(true); cancel() })
	defer timer.Stop()
	out, err := w.run(slice, runner, a)
	var locked *workspace.LockedError
	switch {
	case errors.Is(err, errRefused):
		w.c.Log("job %s: %v", a.Job, err)
		return river.JobCancel(err)
	case err != nil && errors.Is(err, context.Canceled) && slice.Err() != nil,
		err == nil && out.Status == workspace.StatusInterrupted:
		return w.snooze(ctx, a, sliceEnded.Load())
	case errors.As(err, &locked) && locked.Review != "":
		// A person reviews the job: wait for the review to end without
		// spending the job's attempts (a snooze gives its attempt back).
		w.c.Log("job %s: %v; it waits %s", a.Job, err, w.c.Backoff)
		return river.JobSnooze(w.c.Backoff)
	case err != nil:
		w.c.Log("job %s: failed, to be retried: %v", a.Job, err)
		return err
	case out.Status == workspace.StatusCompleted:
		return w.complete(ctx, rj)
	}
	err = fmt.Errorf("job '%s' stopped: %s", a.Job, out.Agent.Reason)
	w.c.Log("job %s: stopped, to be retried: %s", a.Job, out.Agent.Reason)
	return err
}

// snooze makes the job available again at once: its folder is resumable.
func (w *worker) snooze(ctx context.Context, a Args, sliceEnded bool) error {
	why := "the worker stops"
	if sliceEnded {
		why = "its time slice ended"
	} else if ctx.Err() == nil {
		why = "it was interrupted"
	}
	w.c.Log("job %s: %s; it continues from its folder", a.Job, why)
	return river.JobSnooze(0)
}

// run resumes the job, or creates it from the stored document when
// there is none: on a bucket workspace the runner knows, where this
// machine's folder does not.
func (w *worker) run(ctx context.Context, runner batch.Runner, a Args) (jobrun.Outcome, error) {
	out, err := runner.Resume(ctx, a.Job, jobrun.Silent{})
	if !errors.Is(err, workspace.ErrNoJob) {
		return out, err
	}
	dir, err := os.MkdirTemp("", "creator-document-")
	if err != nil {
		return jobrun.Outcome{}, err
	}
	defer os.RemoveAll(dir)
	var data []byte
	err = w.c.Pool.QueryRow(ctx, `SELECT bytes FROM `+DocumentsTable+` WHERE sha256 = $1`, a.Document).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return jobrun.Outcome{}, fmt.Errorf("%w: document %s (%s) is not in %s", errRefused, a.Name, a.Document, DocumentsTable)
	}
	if err != nil {
		return jobrun.Outcome{}, err
	}
	path := filepath.Join(dir, filepath.Base(a.Name))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return jobrun.Outcome{}, err
	}
	extracted, err := runner.Check(path)
	if err != nil {
		return jobrun.Outcome{}, fmt.Errorf("%w: %s", errRefused, strings.ReplaceAll(err.Error(), path, a.Name))
	}
	w.c.Log("job %s: starting on %s", a.Job, a.Name)
	return runner.Start(ctx, a.Job, path, extracted, jobrun.Silent{})
}

// complete publishes the job's requirements and completes the River job in
// one transaction: both happen, or neither.
func (w *worker) complete(ctx context.Context, rj *river.Job[Args]) error {
	a := rj.Args
	j, err := job.Open(w.c.Root, a.Job)
	if err != nil {
		return err
	}
	defer j.Close()
	var p publish.Publication
	err = pgx.BeginFunc(ctx, w.c.Pool, func(tx pgx.Tx) error {
		var err error
		if p, err = publish.JobTx(ctx, tx, j, publish.JobOptions{Now: w.c.Now()}); err != nil {
			return err
		}
		_, err = river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, rj)
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return w.snooze(ctx, a, false)
		}
		w.c.Log("job %s: completed, but publishing failed, to be retried: %v", a.Job, err)
		return fmt.Errorf("publishing: %w", err)
	}
	if err := p.Record(); err != nil {
		w.c.Log("job %s: %v", a.Job, err)
	}
	if w.c.Save != nil {
		j.Close()
		if err := w.c.Save(ctx, a.Job); err != nil {
			w.c.Log("job %s: the record of its publication was not sent to the workspace: %v", a.Job, err)
		}
	}
	w.c.Log("job %s: completed and published: %d new, %d changed, %d unchanged, %d removed",
		a.Job, p.Inserted, p.Updated, p.Unchanged, p.Removed)
	return nil
}
