package job

import (
	"fmt"
	"path"
	"strings"
	"time"

	"creator/internal/telemetry"
	"creator/workspace"
)

// The operations of the commands that work on a finished job rather than
// run it: a publish to a database, a person's review.

// RecordPublication appends a publish of the job's requirements to a
// database to its events; status shows the last one.
func (j *Job) RecordPublication(at time.Time, p telemetry.Publication) error {
	return j.ws.AppendInternal(telemetry.File, telemetry.PublishedEvent(at, p))
}

// ReadRequirementFile reads a file of a requirement's folder, such as
// requirements/req_003/validation.md, where a review writes its decision
// for people.
func (j *Job) ReadRequirementFile(rel string) ([]byte, error) {
	if err := requirementFile(rel); err != nil {
		return nil, err
	}
	return j.ws.ReadInternal(rel)
}

// WriteRequirementFile replaces a file of a requirement's folder as the
// agent's write_file does: checked, with the secrets redacted, seen by the
// search index. A requirement's record (final.json) changes only through
// Requirements.
func (j *Job) WriteRequirementFile(rel string, data []byte) (workspace.WriteResult, error) {
	if err := requirementFile(rel); err != nil {
		return workspace.WriteResult{}, err
	}
	return j.ws.Files.WriteFile(rel, data)
}

// ReplaceRequirementFile is WriteRequirementFile without the flush of the
// folder after the rename (workspace.Files.ReplaceFile), for a file the
// review's log can rebuild.
func (j *Job) ReplaceRequirementFile(rel string, data []byte) (workspace.WriteResult, error) {
	if err := requirementFile(rel); err != nil {
		return workspace.WriteResult{}, err
	}
	return j.ws.Files.ReplaceFile(rel, data)
}

// ReadReviewFile reads a file of the review's folder (review/…), the log
// of its decisions and comments.
func (j *Job) ReadReviewFile(rel string) ([]byte, error) {
	if err := reviewFile(rel); err != nil {
		return nil, err
	}
	return j.ws.ReadInternal(rel)
}

// AppendReviewFile appends to a log of the review's folder and flushes it
// to disk.
func (j *Job) AppendReviewFile(rel string, data []byte) error {
	if err := reviewFile(rel); err != nil {
		return err
	}
	return j.ws.AppendInternal(rel, data)
}

// reviewFile checks that rel is a file of the review's folder.
func reviewFile(rel string) error {
	if dir, name := path.Split(path.Clean(rel)); dir != "review/" || name == "" {
		return fmt.Errorf("%s is not a file of the review's folder", rel)
	}
	return nil
}

// requirementFile checks that rel is a file of a requirement's folder
// other than its record.
func requirementFile(rel string) error {
	dir, name := path.Split(path.Clean(rel))
	if parent, folder := path.Split(strings.TrimSuffix(dir, "/")); parent != "requirements/" || !strings.HasPrefix(folder, "req_") || name == "final.json" {
		return fmt.Errorf("%s is not a file of a requirement's folder", rel)
	}
	return nil
}
