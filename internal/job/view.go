package job

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"creator/internal/coverage"
	"creator/internal/jsonl"
	"creator/internal/reqstore"
	"creator/internal/requirement"
	"creator/internal/telemetry"
	"creator/internal/transcript"
	"creator/planner"
	"creator/workspace"
)

// View is a job as its readers see it — status, list, export, publish,
// diff, eval: nothing it does changes the folder, and it takes no lock, so
// it can look at a job that another process is running.
type View struct {
	// ID is the job's id; Dir the absolute path of its folder.
	ID  string
	Dir string
	j   *Job
}

// OpenView opens the job id under root for reading.
func OpenView(root, id string) (*View, error) {
	j, err := Open(root, id)
	if err != nil {
		return nil, err
	}
	return j.View(), nil
}

// View is the job as readers see it.
func (j *Job) View() *View { return &View{ID: j.ID, Dir: j.Dir, j: j} }

// Close releases the job folder.
func (v *View) Close() error { return v.j.Close() }

// Holder reports the pid of the process that holds the job's lock.
func (v *View) Holder() (pid int, held bool) { return v.j.Holder() }

// HeldBy is Holder with the address of the holder's review server, when
// the holder is a review.
func (v *View) HeldBy() (pid int, review string, held bool) { return v.j.HeldBy() }

// Info reads job.json.
func (v *View) Info() (workspace.Info, error) { return v.j.Info() }

// ChunkOutcomes reads the outcomes of the chunks sub-agents worked on.
func (v *View) ChunkOutcomes() ([]ChunkOutcome, error) { return v.j.ChunkOutcomes() }

// Plan reads the plan; planner.ErrNoPlan when there is none.
func (v *View) Plan() (planner.Plan, error) { return v.j.plan.Load() }

// Saved lists the saved requirements (requirements/req_*/final.json).
func (v *View) Saved() ([]reqstore.Entry, error) { return v.j.reqs.List() }

// Reviewable are the requirements under review — the output's, or those
// saved before an output exists — with their decisions; saved and listErr
// are what Saved gave.
func (v *View) Reviewable(saved []reqstore.Entry, listErr error) (recs []requirement.Record, fromOutput bool, problems []string, err error) {
	return v.j.reqs.ReviewableOf(saved, listErr)
}

// Output is the job's output with the review decisions of its records.
func (v *View) Output() ([]requirement.Record, error) { return v.j.reqs.Output(v.ID) }

// Transcript reads the transcript.
func (v *View) Transcript() ([]transcript.Record, error) { return v.j.Transcript() }

// Coverage measures how far the documents are covered: from the ledger,
// or when there is none, from what the transcript says was read and
// declared empty.
func (v *View) Coverage() (coverage.Report, error) {
	saved, err := v.Saved()
	if err != nil {
		return coverage.Report{}, err
	}
	return v.CoverageOf(saved)
}

// CoverageOf is Coverage with the saved requirements as Saved read them.
func (v *View) CoverageOf(saved []reqstore.Entry) (coverage.Report, error) {
	// The ledger is read now, not when the view was opened: the process
	// that runs the job writes it as the agent reads.
	ledger, ok := coverage.Load(v.j.ws.Internal)
	if !ok {
		recs, err := v.Transcript()
		if err != nil {
			return coverage.Report{}, err
		}
		ledger = coverage.New(nil)
		replay(ledger, transcript.Messages(recs))
	}
	return v.j.measure(ledger, coverage.Cited(saved))
}

// openEvents opens the events file for reading, through the job folder's
// sandbox as every read of the folder.
func (v *View) openEvents() (fs.File, error) { return v.j.ws.FS().Open(telemetry.File) }

// LastEvent is the job's last event, from the end of its events file.
func (v *View) LastEvent() (telemetry.Event, bool) {
	f, err := v.openEvents()
	if err != nil {
		return telemetry.Event{}, false
	}
	defer f.Close()
	const tail = 64 << 10
	fi, err := f.Stat()
	if err != nil {
		return telemetry.Event{}, false
	}
	ra, ok := f.(io.ReaderAt) // the folder's files are *os.File
	if !ok {
		return telemetry.Event{}, false
	}
	off := max(0, fi.Size()-tail)
	buf := make([]byte, fi.Size()-off)
	if _, err := ra.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return telemetry.Event{}, false
	}
	return jsonl.Last(buf, func(e telemetry.Event) bool { return !e.Time.IsZero() })
}

// LastPublication is the job's last publish event, if any.
func (v *View) LastPublication() (telemetry.Event, bool) {
	f, err := v.openEvents()
	if err != nil {
		return telemetry.Event{}, false
	}
	defer f.Close()
	var last telemetry.Event
	found := false
	marker := []byte(`"type":"` + telemetry.TypePublished + `"`)
	_ = jsonl.Scan(f, func(_ int, line []byte) error {
		var e telemetry.Event
		if bytes.Contains(line, marker) && json.Unmarshal(line, &e) == nil && e.Type == telemetry.TypePublished {
			last, found = e, true
		}
		return nil
	})
	return last, found
}

// ReadFile reads a file of the job as it is on disk, relative to the job
// folder: the chunk manifest and the chunks an export quotes, the
// output/requirements.json an evaluation scores.
func (v *View) ReadFile(rel string) ([]byte, error) { return v.j.ws.ReadInternal(rel) }

// OpenInput opens the job's copy of its source document name, one of the
// names of Info().InputNames(); another name is fs.ErrNotExist, so that no
// other file of the job, nor one outside it, is opened this way.
func (v *View) OpenInput(name string) (fs.File, error) {
	info, err := v.Info()
	if err != nil {
		return nil, err
	}
	if !slices.Contains(info.InputNames(), name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return v.j.ws.FS().Open(path.Join("input", name))
}

// CountSaved counts the saved requirements: the folders requirements/req_*
// that hold a final.json, readable or not.
func (v *View) CountSaved() int {
	return v.countFolders(func(folder string) bool { return v.finalExists(folder) })
}

// CountSavedOf counts as CountSaved does from what Saved read (listErr its
// error): a folder whose final.json it read holds one, a folder it left
// out has no final.json, and one whose final.json it could not read holds
// one if the file exists.
func (v *View) CountSavedOf(saved []reqstore.Entry, listErr error) int {
	if listErr != nil {
		return v.CountSaved()
	}
	read := make(map[string]bool, len(saved))
	for _, e := range saved {
		read[e.Folder] = e.Err == nil
	}
	return v.countFolders(func(folder string) bool {
		ok, listed := read[folder]
		return listed && (ok || v.finalExists(folder))
	})
}

// countFolders counts the folders requirements/req_* for which saved holds.
func (v *View) countFolders(saved func(folder string) bool) int {
	entries, err := fs.ReadDir(v.j.ws.FS(), "requirements")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "req_") && saved(e.Name()) {
			n++
		}
	}
	return n
}

// finalExists reports whether requirements/folder/final.json exists.
func (v *View) finalExists(folder string) bool {
	_, err := fs.Stat(v.j.ws.FS(), path.Join("requirements", folder, "final.json"))
	return err == nil
}
