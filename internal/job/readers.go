package job

import (
	"time"

	"creator/internal/telemetry"
)

// The operations of the commands that work on a finished job rather than
// run it: a publish to a database, a person's review.

// RecordPublication appends a publish of the job's requirements to a
// database to its events; status shows the last one.
func (j *Job) RecordPublication(at time.Time, p telemetry.Publication) error {
	return j.ws.AppendInternal(telemetry.File, telemetry.PublishedEvent(at, p))
}
