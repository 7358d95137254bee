package review

import (
	"strings"
	"sync"

	"creator/internal/job"
	"creator/internal/output"
	"creator/workspace"
)

// ForJob is the review of job, through its owner: decisions go into the
// requirements' records (job.Requirements), validation.md and the log of
// the review's folder. The caller holds the job's lock, so that no run of
// the job writes its requirements meanwhile. cfg gives the reviewers,
// the output delay and the log; its job, store, files and coverage are
// set here.
func ForJob(j *job.Job, cfg Config) *Service {
	cfg.JobID, cfg.Store, cfg.Files = j.ID, j.Requirements(), jobFiles{j}
	// Measured once: with the lock held nothing reads or cites chunks
	// meanwhile, and decisions change neither citations nor chunks.
	cfg.Coverage = sync.OnceValues(func() (*output.Coverage, error) {
		rep, err := j.View().Coverage()
		if err != nil {
			return nil, err
		}
		return rep.Summary(), nil
	})
	return New(cfg)
}

// jobFiles are the files of the requirements' folders a review reads and
// writes (validation.md) and those of the review's folder (its logs),
// through the job's owner.
type jobFiles struct{ j *job.Job }

func (f jobFiles) ReadInternal(rel string) ([]byte, error) {
	if strings.HasPrefix(rel, "review/") {
		return f.j.ReadReviewFile(rel)
	}
	return f.j.ReadRequirementFile(rel)
}

func (f jobFiles) ReplaceFile(rel string, data []byte) (workspace.WriteResult, error) {
	return f.j.ReplaceRequirementFile(rel, data)
}

func (f jobFiles) AppendInternal(rel string, data []byte) error {
	return f.j.AppendReviewFile(rel, data)
}

func (f jobFiles) WriteFile(rel string, data []byte) (workspace.WriteResult, error) {
	return f.j.WriteRequirementFile(rel, data)
}
