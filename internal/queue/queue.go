// Package queue runs creator's jobs on many machines: River
// (github.com/riverqueue/river) keeps a queue of documents in PostgreSQL,
// one River job per document, and workers on any machine with the shared
// workspace run them, each in its own job folder as creator run would.
//
// The documents' bytes are stored in the database (DocumentsTable), so a
// worker needs no access to the files of the machine that enqueued them.
// A worker works on a job for at most a time slice per River attempt, then
// snoozes it, so a worker killed at any moment holds its job for minutes,
// not hours: River rescues a job whose attempt outlived its timeout, and
// the next worker resumes the job from its folder. A completed job's
// requirements are published to requirement_cache in the transaction that
// completes the River job (river.JobCompleteTx): once, whatever moment a
// worker dies at.
package queue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"creator/internal/batch"
	"creator/internal/pgmigrate"
	"creator/internal/publish"
	"creator/internal/settings"
)

// Kind is the River job kind of a document's job.
const Kind = "creator_document"

// DocumentsTable holds the documents' bytes, keyed by their SHA-256.
const DocumentsTable = "creator_documents"

// MigrationsTable records the migrations of creator's queue tables.
const MigrationsTable = "creator_queue_migrations"

// Args are a River job's arguments: which document, and the settings the
// job was enqueued with. River keeps one live job per distinct Args
// (unique by args), so enqueueing the same document with the same
// settings again adds nothing.
type Args struct {
	// Document is the SHA-256 of the document's bytes, in hex: its key
	// in DocumentsTable.
	Document string `json:"document"`
	// Name is the document's file name, which the job sees.
	Name string `json:"name"`
	// Job is the job id, as creator batch gives it: <stem>-<sha8>.
	Job string `json:"job"`
	// Settings are the settings given to enqueue (never the API key),
	// with the model and its server as enqueue resolved them: a versioned
	// record (settings.Queued), so that a later creator runs the job.
	Settings *settings.Settings `json:"settings,omitempty"`
	// Flags are the run flags of a job queued before settings were
	// recorded ("--max-steps=50"); only read (settings.FromFlags).
	Flags []string `json:"flags,omitempty"`
}

// JobSettings are the settings the job was queued with.
func (a Args) JobSettings() (settings.Settings, error) {
	if a.Settings != nil {
		return *a.Settings, nil
	}
	return settings.FromFlags(a.Flags)
}

// Kind is River's name for the job's kind.
func (Args) Kind() string { return Kind }

// InsertOpts make the job unique by its arguments: one live or completed
// job per document and flags.
func (Args) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// migrations make creator's queue tables; migration n is migrations[n-1].
// Only ever append.
var migrations = []string{
	`CREATE TABLE ` + DocumentsTable + ` (
		sha256   text        PRIMARY KEY,
		name     text        NOT NULL,
		bytes    bytea       NOT NULL,
		added_at timestamptz NOT NULL DEFAULT now()
	)`,
}

// Migrated says what Migrate applied.
type Migrated struct {
	River   []int // River's migrations applied now
	Creator []int // creator's queue migrations applied now
	Cache   []int // requirement_cache's migrations applied now
}

// Migrate applies River's migrations, creator's queue tables and
// requirement_cache's, each set once: running it again applies nothing.
func Migrate(ctx context.Context, pool *pgxpool.Pool) (Migrated, error) {
	var m Migrated
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return m, err
	}
	res, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return m, fmt.Errorf("applying River's migrations: %w", err)
	}
	for _, v := range res.Versions {
		m.River = append(m.River, v.Version)
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		applied, err := queueMigrations.Apply(ctx, tx)
		if err != nil {
			return err
		}
		m.Creator = applied
		m.Cache, err = publish.Migrate(ctx, tx, publish.DefaultSchema)
		return err
	})
	return m, err
}

// queueMigrations are creator's queue tables, as the shared runner
// applies them (internal/pgmigrate).
var queueMigrations = pgmigrate.Set{Name: MigrationsTable, Table: MigrationsTable, Lock: "creator.queue.migrate", Steps: migrations}

// ErrNotMigrated is the error of a database that creator migrate has not
// brought up to date.
var ErrNotMigrated = errors.New("the database is not migrated for creator's queue")

// Check fails with ErrNotMigrated unless River's migrations and creator's
// are all applied.
func Check(ctx context.Context, pool *pgxpool.Pool) error {
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return err
	}
	var missing []string
	all := migrator.AllVersions()
	var have []rivermigrate.Migration
	if exists, err := tableExists(ctx, pool, "river_migration"); err != nil {
		return err
	} else if exists {
		if have, err = migrator.ExistingVersions(ctx); err != nil {
			return err
		}
	}
	if len(have) == 0 || have[len(have)-1].Version < all[len(all)-1].Version {
		missing = append(missing, "River's tables")
	}
	version, err := queueMigrations.Version(ctx, pool)
	if err != nil {
		return err
	}
	if version < len(migrations) {
		missing = append(missing, DocumentsTable)
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%w (%s not up to date): run 'creator migrate --database URL' first", ErrNotMigrated, joinAnd(missing))
}

func joinAnd(s []string) string {
	if len(s) == 2 {
		return s[0] + " and " + s[1]
	}
	return s[0]
}

func tableExists(ctx context.Context, pool *pgxpool.Pool, name string) (bool, error) {
	var ok bool
	err := pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, name).Scan(&ok)
	return ok, err
}

// Client is a River client on pool that inserts and lists jobs; it works
// none.
func Client(pool *pgxpool.Pool) (*river.Client[pgx.Tx], error) {
	return river.NewClient(riverpgxv5.New(pool), &river.Config{})
}

// Enqueued is what enqueue did with one document.
type Enqueued struct {
	Path string
	Job  string
	// ID is the River job's id; Duplicate is true when the same document
	// with the same flags was already queued (or done), and nothing was
	// added.
	ID        int64
	Duplicate bool
}

// Enqueue stores each document's bytes and inserts its River job, with
// the settings, each document in one transaction.
func Enqueue(ctx context.Context, pool *pgxpool.Pool, paths []string, s settings.Settings) ([]Enqueued, error) {
	client, err := Client(pool)
	if err != nil {
		return nil, err
	}
	var out []Enqueued
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return out, err
		}
		sum := sha256.Sum256(data)
		hash := hex.EncodeToString(sum[:])
		name := filepath.Base(p)
		a := Args{Document: hash, Name: name, Job: batch.IDOf(name, hash), Settings: &s}
		e := Enqueued{Path: p, Job: a.Job}
		err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO `+DocumentsTable+` (sha256, name, bytes) VALUES ($1, $2, $3)
				ON CONFLICT (sha256) DO NOTHING`, hash, name, data); err != nil {
				return fmt.Errorf("storing %s: %w", p, err)
			}
			res, err := client.InsertTx(ctx, tx, a, nil)
			if err != nil {
				return fmt.Errorf("queueing %s: %w", p, err)
			}
			e.ID, e.Duplicate = res.Job.ID, res.UniqueSkippedAsDuplicate
			return nil
		})
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Entry is one job of the queue, as creator queue shows it.
type Entry struct {
	ID       int64  `json:"id"`
	Job      string `json:"job"`
	Document string `json:"document"`
	// State is River's: available, scheduled (snoozed between time
	// slices, or waiting to retry), running, retryable, completed,
	// cancelled (a document that cannot be used: discarded at once) or
	// discarded (out of attempts).
	State       string `json:"state"`
	Attempts    int    `json:"attempts"`
	MaxAttempts int    `json:"max_attempts"`
	// Slices counts the time slices the job was snoozed after.
	Slices int `json:"slices"`
	// Worker is the River client that attempted it last.
	Worker    string `json:"worker"`
	LastError string `json:"last_error"`
}

// List lists the queue's jobs, oldest first.
func List(ctx context.Context, pool *pgxpool.Pool) ([]Entry, error) {
	client, err := Client(pool)
	if err != nil {
		return nil, err
	}
	params := river.NewJobListParams().Kinds(Kind).First(1000).States(
		rivertype.JobStateAvailable, rivertype.JobStateCancelled, rivertype.JobStateCompleted, rivertype.JobStateDiscarded,
		rivertype.JobStatePending, rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled)
	var out []Entry
	for {
		res, err := client.JobList(ctx, params)
		if err != nil {
			return out, err
		}
		for _, j := range res.Jobs {
			out = append(out, entryOf(j))
		}
		if len(res.Jobs) < 1000 {
			return out, nil
		}
		params = params.After(res.LastCursor)
	}
}

func entryOf(j *rivertype.JobRow) Entry {
	e := Entry{ID: j.ID, State: string(j.State), Attempts: j.Attempt, MaxAttempts: j.MaxAttempts}
	var a Args
	if err := json.Unmarshal(j.EncodedArgs, &a); err == nil {
		e.Job, e.Document = a.Job, a.Name
	}
	var meta struct {
		Snoozes int `json:"snoozes"`
	}
	_ = json.Unmarshal(j.Metadata, &meta)
	e.Slices = meta.Snoozes
	if n := len(j.AttemptedBy); n > 0 {
		e.Worker = j.AttemptedBy[n-1]
	}
	if n := len(j.Errors); n > 0 {
		e.LastError = j.Errors[n-1].Error
	}
	return e
}

// Open connects to the database at url; where is the database without
// its password, for messages. Errors never contain the password.
func Open(ctx context.Context, url string) (pool *pgxpool.Pool, where string, err error) {
	if _, err := publish.ParseURL(url); err != nil {
		return nil, "", err
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, "", fmt.Errorf("database URL: %w", publish.HidePassword(err, url))
	}
	where = publish.Redact(cfg.ConnConfig)
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 15 * time.Second
	}
	pool, err = pgxpool.NewWithConfig(ctx, cfg)
	if err == nil {
		if err = pool.Ping(ctx); err != nil {
			pool.Close()
		}
	}
	if err != nil {
		return nil, where, fmt.Errorf("cannot connect to %s: %w", where, publish.HidePassword(err, url))
	}
	return pool, where, nil
}

// WriteList writes the queue's jobs as a table, as creator queue shows
// them: a line each, the last error's first line.
func WriteList(out io.Writer, jobs []Entry) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "JOB\tDOCUMENT\tSTATE\tATTEMPTS\tSLICES\tWORKER\tLAST ERROR")
	for _, e := range jobs {
		last, _, _ := strings.Cut(e.LastError, "\n")
		fmt.Fprintf(w, "%s\t%s\t%s\t%d/%d\t%d\t%s\t%s\n", e.Job, e.Document, e.State, e.Attempts, e.MaxAttempts, e.Slices, e.Worker, last)
	}
	return w.Flush()
}
