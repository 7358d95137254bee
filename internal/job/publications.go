package job

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"creator/internal/jsonl"
	"creator/internal/telemetry"
)

// A publish to a database is recorded in the job in two steps, so that a
// process killed between the database's COMMIT and the published event
// still ends with exactly one event: before the COMMIT, a pending
// publication is written to PendingPublicationsDir, naming the database
// transaction; after it, the event is appended (carrying the publication's
// id) and the pending one removed. Whoever finds a pending publication
// later (the next publish, status) settles it: recorded when its
// transaction committed, dropped when it did not.

// PendingPublicationsDir holds the pending publications, one file each.
const PendingPublicationsDir = ".agent/publishing"

// publicationsLock serialises the settling of pending publications.
const publicationsLock = ".agent/publishing.lock"

// PendingPublication is a publish written to a database whose COMMIT is
// not yet recorded in the job's events.
type PendingPublication struct {
	// ID is the publication's own id, PublishID of its event.
	ID string `json:"id"`
	// Transaction is the database's id of the publish's transaction
	// (txid_current), by which its fate can be asked later.
	Transaction int64     `json:"transaction"`
	Time        time.Time `json:"time"`
	telemetry.Publication
}

func pendingFile(id string) string { return path.Join(PendingPublicationsDir, id+".json") }

// WritePendingPublication records, atomically, a publish about to commit.
func (j *Job) WritePendingPublication(p PendingPublication) error {
	if p.ID == "" || path.Base(p.ID) != p.ID {
		return fmt.Errorf("pending publication: bad id %q", p.ID)
	}
	p.PublishID = p.ID
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return j.ws.WriteInternal(pendingFile(p.ID), append(data, '\n'))
}

// PendingPublications are the job's publications not yet settled, oldest
// first. A file that cannot be read as one is an error.
func (j *Job) PendingPublications() ([]PendingPublication, error) {
	entries, err := fs.ReadDir(j.ws.FS(), PendingPublicationsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []PendingPublication
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".json" {
			continue
		}
		data, err := j.ws.ReadInternal(path.Join(PendingPublicationsDir, e.Name()))
		if err != nil {
			return nil, err
		}
		var p PendingPublication
		if err := json.Unmarshal(data, &p); err != nil || p.ID+".json" != e.Name() {
			return nil, fmt.Errorf("%s/%s is not a pending publication: %v", PendingPublicationsDir, e.Name(), err)
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b PendingPublication) int { return a.Time.Compare(b.Time) })
	return out, nil
}

// SettlePublication ends a pending publication: with record, its
// published event is appended (the caller found the events without it,
// HasPublication); the pending file is removed either way. Call it
// holding LockPublications.
func (j *Job) SettlePublication(p PendingPublication, record bool) error {
	if record {
		p.PublishID = p.ID
		if err := j.RecordPublication(p.Time, p.Publication); err != nil {
			return err
		}
	}
	return j.ws.RemoveInternal(pendingFile(p.ID))
}

// HasPublication says whether the events hold the published event of id.
func (j *Job) HasPublication(id string) (bool, error) {
	f, err := j.ws.FS().Open(telemetry.File)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	needle, _ := json.Marshal(id)
	needle = append([]byte(`"publish_id":`), needle...)
	found := false
	err = jsonl.Scan(f, func(_ int, line []byte) error {
		var e telemetry.Event
		if !found && bytes.Contains(line, needle) && json.Unmarshal(line, &e) == nil && e.Type == telemetry.TypePublished && e.PublishID == id {
			found = true
		}
		return nil
	})
	return found, err
}

// LockPublications takes the lock under which pending publications are
// settled (a lock of its own: publish works on a job another process may
// be running); unlock releases it.
func (j *Job) LockPublications() (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(j.Dir, publicationsLock), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot open the publications lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot lock the publications of job '%s': %w", j.ID, err)
	}
	return func() { f.Close() }, nil
}
