package publish

import (
	"context"
	"fmt"
	"time"

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
	info, err := j.Info()
	if err != nil {
		return Result{}, err
	}
	if info.Status != workspace.StatusCompleted && !o.Partial {
		return Result{}, fmt.Errorf("job '%s' is %s, not completed: publish it when it completes, or publish what it has with --partial",
			j.ID, info.Status)
	}
	recs, err := j.View().Output()
	if err != nil {
		return Result{}, err
	}
	res, err := Publish(ctx, Options{URL: o.URL, Schema: o.Schema, JobID: j.ID, Records: recs, Now: o.Now})
	if err != nil {
		return res, err
	}
	pub := telemetry.Publication{Database: res.Database, Schema: res.Schema,
		Requirements: len(recs), Inserted: res.Inserted, Updated: res.Updated, Unchanged: res.Unchanged,
		Removed: res.Removed, Partial: info.Status != workspace.StatusCompleted}
	if err := j.RecordPublication(o.Now, pub); err != nil {
		return res, fmt.Errorf("published, but cannot record it in the job: %w", err)
	}
	return res, nil
}
