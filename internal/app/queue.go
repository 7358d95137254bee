package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"creator/internal/batch"
	"creator/internal/document"
	"creator/internal/queue"
	"creator/internal/settings"
	"creator/internal/usage"
)

// DatabaseEnv is where the database of the queue and of publish comes
// from when none is given.
const DatabaseEnv = "CREATOR_DATABASE_URL"

// Database is a PostgreSQL database given by URL, else by $DatabaseEnv.
type Database struct {
	URL string
}

// DatabaseOf is the database flag names, else the environment's.
func DatabaseOf(flag string, getenv func(string) string) Database {
	return Database{URL: cmp.Or(flag, getenv(DatabaseEnv))}
}

// open connects to the database and, unless migrating, checks that
// creator migrate has run. where names the database without its password.
func (d Database) open(ctx context.Context, check bool) (*pgxpool.Pool, string, error) {
	if d.URL == "" {
		return nil, "", usage.Errorf("give the database with --database URL or $%s", DatabaseEnv)
	}
	pool, where, err := queue.Open(ctx, d.URL)
	if err != nil {
		return nil, where, err
	}
	if check {
		if err := queue.Check(ctx, pool); err != nil {
			pool.Close()
			return nil, where, fmt.Errorf("%s: %w", where, err)
		}
	}
	return pool, where, nil
}

// Migrate brings the database's queue tables up to date; where names it.
func (d Database) Migrate(ctx context.Context) (m queue.Migrated, where string, err error) {
	pool, where, err := d.open(ctx, false)
	if err != nil {
		return m, where, err
	}
	defer pool.Close()
	m, err = queue.Migrate(ctx, pool)
	if err != nil {
		return m, where, fmt.Errorf("migrating %s: %w", where, err)
	}
	return m, where, nil
}

// Queue lists the queue's jobs, oldest first.
func (d Database) Queue(ctx context.Context) ([]queue.Entry, error) {
	pool, _, err := d.open(ctx, true)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	return queue.List(ctx, pool)
}

// EnqueueOptions say which documents to queue in which database.
type EnqueueOptions struct {
	Database                Database
	Paths, Include, Exclude []string
}

// Enqueued is what an enqueue did: the documents queued (or queued
// before), and those refused, which are not.
type Enqueued struct {
	Queued  []queue.Enqueued
	Refused []Refusal
	// Where names the database, without its password.
	Where string
}

// Refusal is a document that cannot be used, and why.
type Refusal struct {
	Path, Reason string
}

// Enqueue queues one job per document that can be used, each carrying
// the settings given (settings.Queued) with the model and its server as
// they are resolved here, wherever they came from (settings or the
// environment). A document is read first, as its job will read it: one
// that cannot be used (damaged, scanned, empty, too large) is refused
// here, not cancelled by a worker later; one that needs a password is
// queued, the workers holding it (CREATOR_PDF_PASSWORD).
func (a Jobs) Enqueue(ctx context.Context, o EnqueueOptions) (Enqueued, error) {
	var out Enqueued
	m, err := a.Model()
	if err != nil {
		return out, err
	}
	s := a.Settings
	s.Model = m.Name
	s.Give(settings.SetModel)
	if m.BaseURL != "" {
		s.BaseURL = m.BaseURL
		s.Give(settings.SetBaseURL)
	}
	docs, err := Discover(o.Paths, o.Include, o.Exclude)
	if err != nil {
		return out, err
	}
	var usable []string
	for _, d := range docs {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if _, err := a.Check(d); err != nil && !errors.Is(err, document.ErrPasswordNeeded) {
			out.Refused = append(out.Refused, Refusal{Path: d, Reason: err.Error()})
			continue
		}
		usable = append(usable, d)
	}
	pool, where, err := o.Database.open(ctx, true)
	out.Where = where
	if err != nil {
		return out, err
	}
	defer pool.Close()
	out.Queued, err = queue.Enqueue(ctx, pool, usable, s.Queued())
	return out, err
}

// WorkOptions configure a worker.
type WorkOptions struct {
	Database    Database
	Concurrency int
	Slice       time.Duration
	Backoff     time.Duration
	// Logger gets River's warnings; Log one line per job event.
	Logger *slog.Logger
	Log    func(format string, args ...any)
}

// Work runs queued jobs until ctx ends, each under its queued settings
// over the worker's defaults (its environment), as run and resume run
// them.
func (a Jobs) Work(ctx context.Context, o WorkOptions) error {
	switch {
	case o.Concurrency < 1 || o.Concurrency > settings.MaxParallel:
		return usage.Errorf("--concurrency is how many jobs are worked on at once, 1 to %d, not %d", settings.MaxParallel, o.Concurrency)
	case o.Slice <= 0 || o.Backoff <= 0:
		return usage.Errorf("--slice and --retry-backoff must be positive durations")
	}
	pool, _, err := o.Database.open(ctx, true)
	if err != nil {
		return err
	}
	defer pool.Close()
	return queue.Work(ctx, queue.WorkerConfig{
		Pool: pool, Root: a.Root, Concurrency: o.Concurrency, Slice: o.Slice, Backoff: o.Backoff,
		Runner: a.Queued, Logger: o.Logger, Log: o.Log, Now: a.Env.Now, Save: a.saveFunc(),
	})
}

// Queued is the runner of a job queued with settings s: s over the
// worker's defaults, then run's and resume's path. An error is settings
// this creator cannot run.
func (a Jobs) Queued(s settings.Settings) (batch.Runner, error) {
	a.Settings = s.Over(settings.Defaults(a.Env.Getenv))
	if _, err := a.Model(); err != nil {
		return nil, err
	}
	return a, nil
}

// saveFunc is the worker's Save: a bucket's checkpoint; nil on a local
// workspace, whose folder is where the jobs are kept.
func (a Jobs) saveFunc() func(ctx context.Context, id string) error {
	if a.Store == nil {
		return nil
	}
	return a.Save
}
