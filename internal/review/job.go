package review

import (
	"sync"
	"time"

	"creator/internal/jobview"
	"creator/internal/output"
	"creator/internal/reqstore"
	"creator/workspace"
)

// ForJob is the review of job. The caller holds the job's lock, so that no
// run of the job writes its requirements meanwhile.
func ForJob(job *workspace.Job, reviewer string, now func() time.Time) *Service {
	return New(Config{
		JobID: job.ID, Store: reqstore.Open(job), Files: job, Now: now, Reviewer: reviewer,
		// Measured once: with the lock held nothing reads or cites chunks
		// meanwhile, and decisions change neither citations nor chunks.
		Coverage: sync.OnceValues(func() (*output.Coverage, error) {
			info, err := job.Info()
			if err != nil {
				return nil, err
			}
			rep, err := jobview.CoverageOf(job, info)
			if err != nil {
				return nil, err
			}
			return rep.Summary(), nil
		}),
	})
}
