package publish

import (
	"context"
	"fmt"
	"time"

	"creator/internal/reqstore"
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
func Job(ctx context.Context, job *workspace.Job, o JobOptions) (Result, error) {
	info, err := job.Info()
	if err != nil {
		return Result{}, err
	}
	if info.Status != workspace.StatusCompleted && !o.Partial {
		return Result{}, fmt.Errorf("job '%s' is %s, not completed: publish it when it completes, or publish what it has with --partial",
			job.ID, info.Status)
	}
	recs, err := reqstore.Open(job).Output(job.ID)
	if err != nil {
		return Result{}, err
	}
	res, err := Publish(ctx, Options{URL: o.URL, Schema: o.Schema, JobID: job.ID, Records: recs, Now: o.Now})
	if err != nil {
		return res, err
	}
	event := telemetry.PublishedEvent(o.Now, telemetry.Publication{Database: res.Database, Schema: res.Schema,
		Requirements: len(recs), Inserted: res.Inserted, Updated: res.Updated, Unchanged: res.Unchanged,
		Removed: res.Removed, Partial: info.Status != workspace.StatusCompleted})
	if err := job.AppendInternal(telemetry.File, event); err != nil {
		return res, fmt.Errorf("published, but cannot record it in the job: %w", err)
	}
	return res, nil
}
