package publish

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"creator/internal/job"
	"creator/internal/telemetry"
	"creator/workspace"
)

// JobOptions say where to publish a job.
type JobOptions struct {
	URL, Schema string
	// Partial publishes a job that has not completed: the requirements of
	// its output/requirements.json as they stand.
	Partial bool
	Now     time.Time
}

// Job publishes the job's validated output/requirements.json and records
// the publication in the job's events. Nothing is written, to the
// database or the job, when it fails.
func Job(ctx context.Context, j *job.Job, o JobOptions) (Result, error) {
	if o.Schema == "" {
		o.Schema = DefaultSchema
	}
	var p Publication
	database, err := inTx(ctx, o.URL, func(tx pgx.Tx) error {
		var err error
		p, err = JobTx(ctx, tx, j, o)
		return err
	})
	if err != nil {
		return Result{Schema: o.Schema, Database: database}, err
	}
	return p.Result, p.Record()
}

// Publication is a job's publish written within a transaction, to be
// recorded in the job once the transaction has committed.
type Publication struct {
	Result
	job    *job.Job
	now    time.Time
	record telemetry.Publication
}

// JobTx writes the job's validated output/requirements.json to Table
// within tx, migrating the schema first; o.URL is not used. The caller
// commits tx, then records the publication in the job (Record). Nothing is
// written to the job here, so a transaction rolled back leaves no trace.
func JobTx(ctx context.Context, tx pgx.Tx, j *job.Job, o JobOptions) (Publication, error) {
	if o.Schema == "" {
		o.Schema = DefaultSchema
	}
	p := Publication{Result: Result{Schema: o.Schema, Database: Redact(tx.Conn().Config())}, job: j, now: o.Now}
	info, err := j.Info()
	if err != nil {
		return p, err
	}
	if info.Status != workspace.StatusCompleted && !o.Partial {
		return p, fmt.Errorf("job '%s' is %s, not completed: publish it when it completes, or publish what it has with --partial",
			j.ID, info.Status)
	}
	recs, err := j.View().Output()
	if err != nil {
		return p, err
	}
	if err := migrate(ctx, tx, o.Schema); err != nil {
		return p, err
	}
	if err := write(ctx, tx, Options{Schema: o.Schema, JobID: j.ID, Records: recs, Now: o.Now}, &p.Result); err != nil {
		return p, err
	}
	r := p.Result
	p.record = telemetry.Publication{Database: r.Database, Schema: r.Schema,
		Requirements: len(recs), Inserted: r.Inserted, Updated: r.Updated, Unchanged: r.Unchanged,
		Removed: r.Removed, Partial: info.Status != workspace.StatusCompleted}
	return p, nil
}

// Record notes the committed publication in the job's events.
func (p Publication) Record() error {
	if err := p.job.RecordPublication(p.now, p.record); err != nil {
		return fmt.Errorf("published, but cannot record it in the job: %w", err)
	}
	return nil
}

// Migrate creates or migrates Table in schema (DefaultSchema when empty)
// within tx, as a publish does first.
func Migrate(ctx context.Context, tx pgx.Tx, schema string) error {
	if schema == "" {
		schema = DefaultSchema
	}
	return migrate(ctx, tx, schema)
}
