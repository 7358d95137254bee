package job

import "creator/internal/coverage"

// Ledger is a copy of the coverage ledger's account of each chunk file,
// by file (chunks/chunk_003.md), for the tests of package job_test.
func (j *Job) Ledger() map[string]coverage.Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.ledgerLocked().Entries()
}
