// Package job owns a job's state. A job folder holds the plan, the saved
// requirements, the coverage ledger, the transcript, the events and the
// job's record (job.json); this package is the only code that reads or
// writes them, through workspace/ for raw file access. Its methods are the
// operations of the domain — save a requirement, note a chunk read,
// declare a chunk empty, start and complete a task, finalise the output,
// amend a requirement for a review decision — each atomic, each safe to
// call from several goroutines at once, each leaving the folder consistent
// when the process dies in the middle of it (every file is written
// atomically or appended whole).
//
// A Job is the state of a job that a run, a resume or a review works on;
// a View is what readers (status, list, export, publish, diff) see of one.
package job

import (
	"io"
	"sync"

	"creator/internal/coverage"
	"creator/internal/output"
	"creator/internal/reqstore"
	"creator/internal/telemetry"
	"creator/internal/transcript"
	"creator/planner"
	"creator/workspace"
)

// Job is an open job folder and the one owner of its state. The caller
// that changes it holds its lock (Lock).
type Job struct {
	// ID is the job's id; Dir the absolute path of its folder.
	ID  string
	Dir string

	ws      *workspace.Job
	plan    *planner.Planner
	reqs    *reqstore.Store
	journal *transcript.Writer

	// mu serialises the operations that change the coverage ledger and
	// read what it is measured against. The ledger is read from the folder
	// when first needed (ledgerLocked): a View measures the one on disk,
	// and a run rebuilds it from the transcript.
	mu     sync.Mutex
	ledger *coverage.Ledger
}

// Create makes a new job folder under root (workspace.Create) and opens it.
func Create(root string, opts workspace.CreateOptions) (*Job, error) {
	ws, err := workspace.Create(root, opts)
	if err != nil {
		return nil, err
	}
	return of(ws), nil
}

// Open opens the job id under root.
func Open(root, id string) (*Job, error) {
	ws, err := workspace.Open(root, id)
	if err != nil {
		return nil, err
	}
	return of(ws), nil
}

func of(ws *workspace.Job) *Job {
	return &Job{ID: ws.ID, Dir: ws.Dir, ws: ws, plan: planner.New(ws, nil), reqs: reqstore.Open(ws), journal: transcript.NewWriter(ws)}
}

// Lock takes the job's lock: one process changes a job at a time.
func (j *Job) Lock() error { return j.ws.Lock() }

// RecordReview records in the lock this process holds that a review
// server listens at address, which a process refused the lock is told.
func (j *Job) RecordReview(address string) error { return j.ws.RecordReview(address) }

// Holder reports the pid of the process that holds the job's lock.
func (j *Job) Holder() (pid int, held bool) { return j.ws.Holder() }

// HeldBy is Holder with the address of the holder's review server, when
// the holder is a review.
func (j *Job) HeldBy() (pid int, review string, held bool) { return j.ws.HeldBy() }

// Close releases the lock, if held, and the job folder.
func (j *Job) Close() error { return j.ws.Close() }

// Redact makes every later write under the job replace the secrets (the
// model server's API key); see workspace.Job.Redact.
func (j *Job) Redact(secrets ...string) { j.ws.Redact(secrets...) }

// Files is the job folder as the agent's file tools see it: the sandbox of
// read_file, write_file and the like, raw file access through workspace.
func (j *Job) Files() *workspace.Files { return j.ws.Files }

// Workspace is the job's folder for the parts of the program that work on
// its raw files: extraction and chunking write input/ and chunks/, the
// search index reads every file, context management saves oversized
// results under .agent/results/. None of them changes the state this
// package owns; context management's brief reads the last lines of
// progress.md and the names in the folders through it.
func (j *Job) Workspace() *workspace.Job { return j.ws }

// Plan is the job's plan (plan.json, progress.md): its operations are
// the planner's.
func (j *Job) Plan() *planner.Planner { return j.plan }

// Requirements is the store of the job's requirements: saving, listing,
// amending and finalising them.
func (j *Job) Requirements() *reqstore.Store { return j.reqs }

// ReadOutput reads output/requirements.json as the last finalize wrote it
// (fs.ErrNotExist when there is none yet), for the completion check.
func (j *Job) ReadOutput() ([]byte, error) { return j.ws.ReadInternal(output.RequirementsFile) }

// Info reads job.json.
func (j *Job) Info() (workspace.Info, error) { return j.ws.Info() }

// UpdateInfo changes job.json in one read-modify-write step.
func (j *Job) UpdateInfo(change func(*workspace.Info)) (workspace.Info, error) {
	return j.ws.UpdateInfo(change)
}

// Append adds a record to the transcript and flushes it to disk; it is
// the agent's journal.
func (j *Job) Append(r transcript.Record) error { return j.journal.Append(r) }

// Transcript reads the transcript.
func (j *Job) Transcript() ([]transcript.Record, error) { return transcript.Load(j.ws) }

// OpenEvents opens the events file for appending.
func (j *Job) OpenEvents() (io.WriteCloser, error) { return j.ws.OpenLog(telemetry.File) }

// AppendNote appends text to a note of the job for the person who reads
// the folder (notes/errors.md).
func (j *Job) AppendNote(rel string, text string) error {
	return j.ws.AppendInternal(rel, []byte(text))
}
