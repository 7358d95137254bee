package review

import (
	"sync"
	"time"

	"creator/internal/job"
	"creator/internal/output"
	"creator/workspace"
)

// ForJob is the review of job, through its owner: decisions go into the
// requirements' records (job.Requirements) and validation.md. The caller
// holds the job's lock, so that no run of the job writes its
// requirements meanwhile.
func ForJob(j *job.Job, reviewer string, now func() time.Time) *Service {
	return New(Config{
		JobID: j.ID, Store: j.Requirements(), Files: jobFiles{j}, Now: now, Reviewer: reviewer,
		// Measured once: with the lock held nothing reads or cites chunks
		// meanwhile, and decisions change neither citations nor chunks.
		Coverage: sync.OnceValues(func() (*output.Coverage, error) {
			rep, err := j.View().Coverage()
			if err != nil {
				return nil, err
			}
			return rep.Summary(), nil
		}),
	})
}

// jobFiles are the files of the requirements' folders a review reads and
// writes (validation.md), through the job's owner.
type jobFiles struct{ j *job.Job }

func (f jobFiles) ReadInternal(rel string) ([]byte, error) { return f.j.ReadRequirementFile(rel) }

func (f jobFiles) WriteFile(rel string, data []byte) (workspace.WriteResult, error) {
	return f.j.WriteRequirementFile(rel, data)
}
