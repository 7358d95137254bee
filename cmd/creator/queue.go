package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"creator/internal/app"
	"creator/internal/humanize"
	"creator/internal/queue"
	"creator/internal/secret"
)

const databaseHelp = "postgres://user:password@host:port/database (env " + app.DatabaseEnv + ")"

type migrateOptions struct {
	*globalOptions
	database string
}

func newMigrateCmd(g *globalOptions, runF func(context.Context, *migrateOptions) error) *cobra.Command {
	o := &migrateOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "migrate [--database URL]",
		Short: "Prepare a PostgreSQL database for the queue of enqueue and worker",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.database, "database", "", databaseHelp)
	return cmd
}

func runMigrate(ctx context.Context, o *migrateOptions) error {
	m, where, err := app.DatabaseOf(o.database, o.getenv).Migrate(ctx)
	if err != nil {
		return err
	}
	if len(m.River)+len(m.Creator)+len(m.Cache) == 0 {
		fmt.Fprintf(o.streams.ErrOut, "creator: %s is up to date\n", where)
		return nil
	}
	fmt.Fprintf(o.streams.ErrOut, "creator: migrated %s: %s of River's, %s of creator's queue, %s of requirement_cache\n",
		where, humanize.Plural(len(m.River), "migration"), humanize.Plural(len(m.Creator), "migration"), humanize.Plural(len(m.Cache), "migration"))
	return nil
}

// enqueueOptions are the flags of enqueue: run's, which travel with each
// job, and the documents'.
type enqueueOptions struct {
	runOptions
	database         string
	include, exclude []string
}

func newEnqueueCmd(g *globalOptions, runF func(context.Context, *enqueueOptions) error) *cobra.Command {
	o := &enqueueOptions{runOptions: runOptions{globalOptions: g}}
	cmd := &cobra.Command{
		Use:     "enqueue [--database URL] [run flags] DIR|FILE...",
		Short:   "Queue one job per document in PostgreSQL, for workers on any machine",
		PreRunE: g.resolve,
		Args:    atLeastOne("give the documents or folders to queue, e.g. 'creator enqueue docs/'"),
		RunE: func(cmd *cobra.Command, paths []string) error {
			o.documents = paths
			o.given(cmd)
			return runF(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.database, "database", "", databaseHelp)
	f.StringArrayVar(&o.include, "include", nil, "take only files that match this glob (repeatable)")
	f.StringArrayVar(&o.exclude, "exclude", nil, "leave out files that match this glob (repeatable)")
	addRunFlags(cmd, &o.runOptions)
	return cmd
}

func runEnqueue(ctx context.Context, o *enqueueOptions) error {
	jobs := o.jobs()
	res, err := jobs.Enqueue(ctx, app.EnqueueOptions{Database: app.DatabaseOf(o.database, o.getenv),
		Paths: o.documents, Include: o.include, Exclude: o.exclude})
	added := 0
	for _, e := range res.Queued {
		state := "queued"
		if e.Duplicate {
			state = "already queued"
		} else {
			added++
		}
		fmt.Fprintf(o.streams.Out, "%s\t%s\t%s\n", e.Job, state, e.Path)
	}
	for _, r := range res.Refused {
		fmt.Fprintf(o.streams.Out, "-\trefused\t%s\n", r.Path)
		fmt.Fprintf(o.streams.ErrOut, "creator: %s: refused, not queued: %s\n", r.Path, r.Reason)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(o.streams.ErrOut, "creator: %s queued in %s, %d already there; run 'creator worker' to work them, 'creator queue' to follow them\n",
		humanize.Plural(added, "document"), res.Where, len(res.Queued)-added)
	if n := len(res.Refused); n > 0 {
		return &exitError{code: exitFailure, err: fmt.Errorf("%s of %d refused (see above)", humanize.Plural(n, "document"), n+len(res.Queued))}
	}
	return nil
}

type workerOptions struct {
	*globalOptions
	database    string
	concurrency int
	slice       time.Duration
	backoff     time.Duration
}

func newWorkerCmd(g *globalOptions, runF func(context.Context, *workerOptions) error) *cobra.Command {
	o := &workerOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:     "worker [--database URL] --workspace PATH [--concurrency K] [--slice D]",
		Short:   "Run queued jobs until stopped, as one of any number of workers",
		PreRunE: g.resolve,
		Args:    args(cobra.NoArgs),
		RunE:    func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.database, "database", "", databaseHelp)
	f.IntVar(&o.concurrency, "concurrency", queue.DefaultConcurrency, "jobs worked on at once; each keeps its own --parallel")
	f.DurationVar(&o.slice, "slice", queue.DefaultSlice, "how long an attempt works on a job before it hands it back to the queue, resumable; longer than the slowest model request")
	f.DurationVar(&o.backoff, "retry-backoff", queue.DefaultBackoff, "wait before retrying a failed job, doubled for each further failure (at most 1h)")
	return cmd
}

func runWorker(ctx context.Context, o *workerOptions) error {
	// The jobs' key and PDF password come from the worker's environment
	// (enqueue never records them): kept off the worker's log as run keeps
	// them off stderr.
	jobs := app.Jobs{Workspace: o.ws}
	var keys secret.Redactor
	keys.Set(jobs.Secrets.Values(o.getenv)...)
	errOut := keys.Writer(o.streams.ErrOut)
	return jobs.Work(ctx, app.WorkOptions{
		Database: app.DatabaseOf(o.database, o.getenv), Concurrency: o.concurrency, Slice: o.slice, Backoff: o.backoff,
		Logger: slog.New(slog.NewTextHandler(errOut, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Log:    func(format string, args ...any) { fmt.Fprintf(errOut, "creator: "+format+"\n", args...) },
	})
}

type queueOptions struct {
	*globalOptions
	database string
	json     bool
}

func newQueueCmd(g *globalOptions, runF func(context.Context, *queueOptions) error) *cobra.Command {
	o := &queueOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "queue [--database URL] [--json]",
		Short: "List the queued jobs: state, attempts, worker, last error",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.database, "database", "", databaseHelp)
	cmd.Flags().BoolVar(&o.json, "json", false, "print the jobs as a JSON list")
	return cmd
}

func runQueue(ctx context.Context, o *queueOptions) error {
	jobs, err := app.DatabaseOf(o.database, o.getenv).Queue(ctx)
	if err != nil {
		return err
	}
	if o.json {
		if jobs == nil {
			jobs = []queue.Entry{}
		}
		return o.streams.WriteJSON(jobs)
	}
	return queue.WriteList(o.streams.Out, jobs)
}
