package main

import (
	"cmp"
	"context"
	"creator/internal/secret"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"creator/internal/batch"
	"creator/internal/humanize"
	"creator/internal/queue"
)

// databaseURL is --database, else $CREATOR_DATABASE_URL.
func (g *globalOptions) databaseURL(flag string) (string, error) {
	url := cmp.Or(flag, g.getenv("CREATOR_DATABASE_URL"))
	if url == "" {
		return "", usageErrorf("give the database with --database URL or $CREATOR_DATABASE_URL")
	}
	return url, nil
}

// openQueue connects to the database and, unless migrating, checks that
// creator migrate has run.
func (g *globalOptions) openQueue(ctx context.Context, flag string, check bool) (*pgxpool.Pool, string, error) {
	url, err := g.databaseURL(flag)
	if err != nil {
		return nil, "", err
	}
	pool, where, err := queue.Open(ctx, url)
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

const databaseHelp = "postgres://user:password@host:port/database (env CREATOR_DATABASE_URL)"

type migrateOptions struct {
	*globalOptions
	database string
}

func newMigrateCmd(g *globalOptions) *cobra.Command {
	o := &migrateOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "migrate [--database URL]",
		Short: "Prepare a PostgreSQL database for the queue of enqueue and worker",
		Long: `Apply River's migrations (the job queue), creator's own (the table of the
queued documents' bytes, creator_documents) and requirement_cache's, to the
database of --database, else $CREATOR_DATABASE_URL. Running it again applies
nothing; enqueue and worker refuse a database it has not brought up to date.`,
		Example: `  export CREATOR_DATABASE_URL=postgres://creator:secret@db:5432/reqs
  creator migrate`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runMigrate(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.database, "database", "", databaseHelp)
	return cmd
}

func runMigrate(ctx context.Context, o *migrateOptions) error {
	pool, where, err := o.openQueue(ctx, o.database, false)
	if err != nil {
		return err
	}
	defer pool.Close()
	m, err := queue.Migrate(ctx, pool)
	if err != nil {
		return fmt.Errorf("migrating %s: %w", where, err)
	}
	if len(m.River)+len(m.Creator) == 0 {
		fmt.Fprintf(o.streams.ErrOut, "creator: %s is up to date\n", where)
		return nil
	}
	fmt.Fprintf(o.streams.ErrOut, "creator: migrated %s: %s of River's, %s of creator's queue\n",
		where, humanize.Plural(len(m.River), "migration"), humanize.Plural(len(m.Creator), "migration"))
	return nil
}

// enqueueOptions are the flags of enqueue: run's, which travel with each
// job, and the documents'.
type enqueueOptions struct {
	runOptions
	database         string
	include, exclude []string
}

func newEnqueueCmd(g *globalOptions) *cobra.Command {
	o := &enqueueOptions{runOptions: runOptions{globalOptions: g}}
	cmd := &cobra.Command{
		Use:   "enqueue [--database URL] [run flags] DIR|FILE...",
		Short: "Queue one job per document in PostgreSQL, for workers on any machine",
		Long: `Queue one job per document in the database (--database, else
$CREATOR_DATABASE_URL; prepare it with 'creator migrate'): each document's bytes
are stored in the database, so workers need no access to this machine's
files, and one River job is inserted per document, with the run flags given
here (never the API key: each worker takes its own). The documents are found
as batch finds them (--include, --exclude) and each job's id is the one batch
gives: <stem>-<first 8 hex digits of the SHA-256 of its bytes>.

Enqueueing the same document with the same flags again adds nothing while its
job is queued, running or completed. 'creator worker' runs the jobs and
'creator queue' lists them.`,
		Example: `  creator enqueue --database postgres://creator:secret@db:5432/reqs regulations/
  creator enqueue --model gpt-4.1-mini --base-url https://api.openai.com/v1 --max-cost 5 contract.pdf`,
		Args: func(cmd *cobra.Command, paths []string) error {
			if len(paths) == 0 {
				return usageErrorf("give the documents or folders to queue, e.g. 'creator enqueue docs/'")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, paths []string) error {
			o.documents = paths
			o.changed = cmd.Flags().Changed
			return runEnqueue(cmd.Context(), o, jobFlags(cmd))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.database, "database", "", databaseHelp)
	f.StringArrayVar(&o.include, "include", nil, "take only files that match this glob (repeatable)")
	f.StringArrayVar(&o.exclude, "exclude", nil, "leave out files that match this glob (repeatable)")
	addRunFlags(cmd, &o.runOptions)
	return cmd
}

// jobFlags are the run flags given to cmd, as a worker parses them: the
// API key and the display's flags left out.
func jobFlags(cmd *cobra.Command) []string {
	run := &cobra.Command{}
	addRunFlags(run, &runOptions{globalOptions: &globalOptions{factory: &factory{getenv: func(string) string { return "" }}}})
	var out []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if run.Flags().Lookup(f.Name) == nil || f.Name == "api-key" || f.Name == "quiet" || f.Name == "verbose" {
			return
		}
		out = append(out, "--"+f.Name+"="+f.Value.String())
	})
	return out
}

func runEnqueue(ctx context.Context, o *enqueueOptions, flags []string) error {
	m, err := o.checkedModel("", "")
	if err != nil {
		return err
	}
	// The model and its server travel with the job, wherever they came
	// from here (flags or the environment).
	if !o.changed("model") {
		flags = append(flags, "--model="+m.name)
	}
	if !o.changed("base-url") && m.baseURL != "" {
		flags = append(flags, "--base-url="+m.baseURL)
	}
	docs, err := discover(o.documents, o.include, o.exclude)
	if err != nil {
		return err
	}
	pool, where, err := o.openQueue(ctx, o.database, true)
	if err != nil {
		return err
	}
	defer pool.Close()
	done, err := queue.Enqueue(ctx, pool, docs, flags)
	added := 0
	for _, e := range done {
		state := "queued"
		if e.Duplicate {
			state = "already queued"
		} else {
			added++
		}
		fmt.Fprintf(o.streams.Out, "%s\t%s\t%s\n", e.Job, state, e.Path)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(o.streams.ErrOut, "creator: %s queued in %s, %d already there; run 'creator worker' to work them, 'creator queue' to follow them\n",
		humanize.Plural(added, "document"), where, len(done)-added)
	return nil
}

type workerOptions struct {
	*globalOptions
	database    string
	concurrency int
	slice       time.Duration
	backoff     time.Duration
}

func newWorkerCmd(g *globalOptions) *cobra.Command {
	o := &workerOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "worker [--database URL] --workspace PATH [--concurrency K] [--slice D]",
		Short: "Run queued jobs until stopped, as one of any number of workers",
		Long: `Run the jobs 'creator enqueue' queued in the database (--database, else
$CREATOR_DATABASE_URL), --concurrency at once, each in its own job folder under
the workspace root exactly as 'creator run' would. The workspace root is shared
by every worker: a local disk, or NFS v4 (working file locks and atomic
rename); not an object store mounted with FUSE.

An attempt works on a job for at most --slice, then leaves the folder
resumable and snoozes the job, so that a worker that dies holds its job for
minutes, not hours: the next worker resumes it from its folder. A completed
job's requirements are published to requirement_cache in the transaction that
completes it. A document that cannot be used is cancelled at once, with the
reason; server errors and budgets are retried, --retry-backoff after the first
failure, twice as long after each further one.

SIGTERM or Ctrl-C: the running jobs stop at their current step, resumably, and
go back to the queue; the worker exits within 10 seconds, with 0.`,
		Example: `  creator worker --database postgres://creator:secret@db:5432/reqs --workspace /mnt/jobs
  creator worker --workspace /mnt/jobs --concurrency 4 --slice 5m`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runWorker(cmd.Context(), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.database, "database", "", databaseHelp)
	f.IntVar(&o.concurrency, "concurrency", queue.DefaultConcurrency, "jobs worked on at once; each keeps its own --parallel")
	f.DurationVar(&o.slice, "slice", queue.DefaultSlice, "how long an attempt works on a job before it hands it back to the queue, resumable; longer than the slowest model request")
	f.DurationVar(&o.backoff, "retry-backoff", queue.DefaultBackoff, "wait before retrying a failed job, doubled for each further failure (at most 1h)")
	return cmd
}

func runWorker(ctx context.Context, o *workerOptions) error {
	switch {
	case o.concurrency < 1 || o.concurrency > MaxParallel:
		return usageErrorf("--concurrency is how many jobs are worked on at once, 1 to %d, not %d", MaxParallel, o.concurrency)
	case o.slice <= 0 || o.backoff <= 0:
		return usageErrorf("--slice and --retry-backoff must be positive durations")
	}
	root, err := o.root()
	if err != nil {
		return err
	}
	pool, _, err := o.openQueue(ctx, o.database, true)
	if err != nil {
		return err
	}
	defer pool.Close()
	// The jobs' key and PDF password come from the worker's environment
	// (enqueue never records them): kept off the worker's log as run keeps
	// them off stderr.
	var keys secret.Redactor
	keys.Set(o.getenv("OPENAI_API_KEY"), o.getenv(pdfPasswordEnv))
	errOut := keys.Writer(o.streams.ErrOut)
	return queue.Work(ctx, queue.WorkerConfig{
		Pool: pool, Root: root, Concurrency: o.concurrency, Slice: o.slice, Backoff: o.backoff,
		Runner: o.runner(root),
		Logger: slog.New(slog.NewTextHandler(errOut, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Log:    func(format string, args ...any) { fmt.Fprintf(errOut, "creator: "+format+"\n", args...) },
		Now:    o.now,
	})
}

// runner gives the runner of a queued job: its flags parsed as run parses
// them, then run's and resume's path (batchRunner, runJob).
func (o *workerOptions) runner(root string) func(flags []string) (batch.Runner, error) {
	return func(flags []string) (batch.Runner, error) {
		ro := &runOptions{globalOptions: o.globalOptions}
		cmd := &cobra.Command{}
		cmd.SetOut(io.Discard)
		addRunFlags(cmd, ro)
		if err := cmd.Flags().Parse(flags); err != nil {
			return nil, err
		}
		ro.changed = cmd.Flags().Changed
		ro.quiet = true
		if _, err := ro.checkedModel("", ""); err != nil {
			return nil, err
		}
		return batchRunner{o: ro, root: root}, nil
	}
}

type queueOptions struct {
	*globalOptions
	database string
	json     bool
}

func newQueueCmd(g *globalOptions) *cobra.Command {
	o := &queueOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "queue [--database URL] [--json]",
		Short: "List the queued jobs: state, attempts, worker, last error",
		Long: `List the jobs of the queue in the database (--database, else
$CREATOR_DATABASE_URL), oldest first: the job id, the document, River's state
(available, scheduled: snoozed between time slices or waiting to retry,
running, retryable, completed, cancelled: a document that cannot be used, or
discarded: out of attempts), the attempts, the time slices so far, the worker
that attempted it last and its last error. --json prints a list of objects
with those fields.`,
		Example: `  creator queue
  creator queue --json | jq '.[] | select(.state != "completed")'`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runQueue(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.database, "database", "", databaseHelp)
	cmd.Flags().BoolVar(&o.json, "json", false, "print the jobs as a JSON list")
	return cmd
}

func runQueue(ctx context.Context, o *queueOptions) error {
	pool, _, err := o.openQueue(ctx, o.database, true)
	if err != nil {
		return err
	}
	defer pool.Close()
	jobs, err := queue.List(ctx, pool)
	if err != nil {
		return err
	}
	if o.json {
		if jobs == nil {
			jobs = []queue.Entry{}
		}
		data, err := json.MarshalIndent(jobs, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(o.streams.Out, "%s\n", data)
		return nil
	}
	w := tabwriter.NewWriter(o.streams.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "JOB\tDOCUMENT\tSTATE\tATTEMPTS\tSLICES\tWORKER\tLAST ERROR")
	for _, e := range jobs {
		last, _, _ := strings.Cut(e.LastError, "\n")
		fmt.Fprintf(w, "%s\t%s\t%s\t%d/%d\t%d\t%s\t%s\n", e.Job, e.Document, e.State, e.Attempts, e.MaxAttempts, e.Slices, e.Worker, last)
	}
	return w.Flush()
}
