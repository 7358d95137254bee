package remote

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"creator/internal/atomicfile"
	"creator/internal/index"
)

// Quiescer runs a function while no file of a job changes: a checkpoint
// reads the folder in one moment (workspace.Job.Quiesce).
type Quiescer interface {
	Quiesce(fn func() error) error
}

// excluded are the files of a job folder that stay on their machine: its
// locks, the search index (rebuilt from the files wherever the job goes
// on) and temporary files.
func excluded(rel string) bool {
	switch {
	case rel == ".agent/lock", rel == ".agent/publishing.lock":
		return true
	case rel == index.Dir, strings.HasPrefix(rel, index.Dir+"/"):
		return true
	}
	return atomicfile.IsTemp(path.Base(rel))
}

// appendOnly reports whether a file is a log that is only ever appended
// to (a JSON-lines log): a checkpoint sends only what it grew by.
func appendOnly(rel string) bool { return strings.HasSuffix(rel, ".jsonl") }

// Mirror keeps one job's local folder and its checkpoints in the bucket in
// step. One process works on a job at a time (its lock on this machine,
// the generations across machines).
type Mirror struct {
	store *Store
	id    string
	// Dir is the local job folder; its sync record and lock are kept
	// beside it, outside the folder.
	Dir    string
	now    func() time.Time
	writer string

	// Plain copies keep no record beside the folder: a copy for people
	// to read (creator pull -o), never checkpointed.
	Plain bool

	mu    sync.Mutex // one pull or checkpoint at a time
	gen   int64
	known map[string]*tracked
	dirs  []string
	// unscanned is the checkpoint a pull found the folder at, learnt
	// (rescan) by the first checkpoint: a pull that only reads hashes
	// nothing.
	unscanned *Manifest
}

// tracked is a file as the last checkpoint (or pull) has it.
type tracked struct {
	File
	stat statKey
	// sum is the SHA-256 state after the file's bytes, so that a log's
	// appended bytes extend its hash without reading it again.
	sum []byte
}

// statKey tells whether a file changed since it was last read: a file
// replaced by a rename has another inode, an appended one another size.
type statKey struct {
	size  int64
	mtime int64
	ino   uint64
}

func keyOf(fi fs.FileInfo) statKey {
	k := statKey{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		k.ino = st.Ino
	}
	return k
}

// MirrorOf is the mirror of job id in the local folder dir.
func (s *Store) MirrorOf(id, dir string, now func() time.Time) *Mirror {
	if now == nil {
		now = time.Now
	}
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return &Mirror{store: s, id: id, Dir: dir, now: now, writer: fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b)), known: map[string]*tracked{}}
}

// Generation is the generation of the checkpoint the folder was last
// pulled from or checkpointed as; 0 before any.
func (m *Mirror) Generation() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gen
}

// syncRecord is what this machine knows of its copy: the generation its
// folder continues. It lives beside the folder, not in it.
type syncRecord struct {
	Generation int64 `json:"generation"`
}

func (m *Mirror) recordPath() string {
	return filepath.Join(filepath.Dir(m.Dir), ".sync", filepath.Base(m.Dir)+".json")
}

func (m *Mirror) readRecord() (syncRecord, bool) {
	var r syncRecord
	if m.Plain {
		return r, false
	}
	data, err := os.ReadFile(m.recordPath())
	if err != nil || json.Unmarshal(data, &r) != nil {
		return r, false
	}
	return r, true
}

func (m *Mirror) writeRecord() error {
	if m.Plain {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(m.recordPath()), 0o755); err != nil {
		return err
	}
	data, _ := json.Marshal(syncRecord{Generation: m.gen})
	return atomicfile.Write(m.recordPath(), data, 0o644)
}

// Forget drops this machine's record of the job, for a folder that is
// removed.
func (m *Mirror) Forget() { _ = os.Remove(m.recordPath()) }

// lockLocal holds this machine's sync lock of the job while its folder is
// brought up to date, so that two processes here do not write it at once.
func (m *Mirror) lockLocal() (func(), error) {
	if m.Plain {
		return func() {}, nil
	}
	if err := os.MkdirAll(filepath.Dir(m.recordPath()), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(strings.TrimSuffix(m.recordPath(), ".json")+".lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
}

// Pull makes the local folder the job's newest checkpoint; found is false
// when the bucket has none and this machine holds no copy that is still
// to be checkpointed. A folder this machine was working on, which no
// other process checkpointed since (the generation it continues is the
// newest), is kept as it is: what it did since its last checkpoint goes
// up with the next. A folder behind the newest checkpoint is brought to
// it: files fetched, checked by their hash, and removed when the
// checkpoint has them not.
func (m *Mirror) Pull(ctx context.Context) (found bool, err error) {
	unlock, err := m.lockLocal()
	if err != nil {
		return false, err
	}
	defer unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	newest, ok, err := m.store.Newest(ctx, m.id)
	if err != nil {
		return false, err
	}
	rec, recorded := m.readRecord()
	_, statErr := os.Stat(m.Dir)
	local := statErr == nil
	if local && recorded && rec.Generation == newest.Generation {
		m.gen, m.unscanned = rec.Generation, &newest
		return true, nil
	}
	if !ok {
		return false, nil
	}
	if err := m.materialize(ctx, newest); err != nil {
		return false, err
	}
	m.gen = newest.Generation
	return true, m.writeRecord()
}

// rescan learns the local folder as it is, keeping the parts of the files
// that are as the manifest has them, so that the next checkpoint sends
// only what differs.
func (m *Mirror) rescan(mf Manifest) error {
	byPath := map[string]File{}
	for _, f := range mf.Files {
		byPath[f.Path] = f
	}
	m.known, m.dirs = map[string]*tracked{}, mf.Dirs
	return walkFiles(m.Dir, func(rel string, fi fs.FileInfo) error {
		f, ok := byPath[rel]
		if !ok || f.Size != fi.Size() {
			return nil // not in the checkpoint as it is: sent with the next one
		}
		h, err := hashFile(filepath.Join(m.Dir, rel))
		if err != nil {
			return err
		}
		if f.SHA256 != hex.EncodeToString(h.Sum(nil)) {
			return nil
		}
		m.known[rel] = &tracked{File: f, stat: keyOf(fi), sum: marshal(h)}
		return nil
	})
}

// walkFiles calls fn for each regular file of dir that is not excluded.
func walkFiles(dir string, fn func(rel string, fi fs.FileInfo) error) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel != "." && excluded(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return fn(rel, fi)
	})
}

func hashFile(p string) (hash.Hash, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	_, err = io.Copy(h, f)
	return h, err
}

func marshal(h hash.Hash) []byte {
	b, _ := h.(encoding.BinaryMarshaler).MarshalBinary()
	return b
}

func unmarshal(b []byte) hash.Hash {
	h := sha256.New()
	if b != nil {
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(b); err != nil {
			return nil
		}
	}
	return h
}

// materialize writes the checkpoint mf into the local folder: the files
// the folder lacks or holds otherwise are fetched from their packs, each
// pack read once from its start, checked by hash and put in place
// atomically; files the checkpoint has not are removed.
func (m *Mirror) materialize(ctx context.Context, mf Manifest) error {
	for _, d := range append([]string{"."}, mf.Dirs...) {
		if err := os.MkdirAll(filepath.Join(m.Dir, d), 0o755); err != nil {
			return err
		}
	}
	want := map[string]File{}
	for _, f := range mf.Files {
		if !fs.ValidPath(f.Path) || excluded(f.Path) {
			return fmt.Errorf("%s: the checkpoint of job '%s' names a file it cannot hold: %q", m.store.URL, m.id, f.Path)
		}
		want[f.Path] = f
	}
	m.known, m.dirs, m.unscanned = map[string]*tracked{}, mf.Dirs, nil
	var extra []string
	err := walkFiles(m.Dir, func(rel string, fi fs.FileInfo) error {
		f, ok := want[rel]
		if !ok {
			extra = append(extra, rel)
			return nil
		}
		if fi.Size() != f.Size {
			return nil
		}
		h, err := hashFile(filepath.Join(m.Dir, rel))
		if err != nil || hex.EncodeToString(h.Sum(nil)) != f.SHA256 {
			return err
		}
		m.known[rel] = &tracked{File: f, stat: keyOf(fi), sum: marshal(h)}
		return nil
	})
	if err != nil {
		return err
	}
	var fetch []File
	for _, f := range mf.Files {
		if m.known[f.Path] == nil {
			fetch = append(fetch, f)
		}
	}
	// The folder changes only once every fetched file matched its hash:
	// a damaged pack leaves it as it was.
	if err := m.fetch(ctx, fetch); err != nil {
		return err
	}
	for _, rel := range extra {
		if err := os.Remove(filepath.Join(m.Dir, rel)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// fetch writes files from their packs.
func (m *Mirror) fetch(ctx context.Context, files []File) error {
	type piece struct {
		file   int
		part   Part
		offset int64 // in the file
	}
	byPack := map[string][]piece{}
	temps := make([]*os.File, len(files))
	defer func() {
		for _, t := range temps {
			if t != nil {
				t.Close()
				os.Remove(t.Name())
			}
		}
	}()
	for i, f := range files {
		dir := filepath.Join(m.Dir, filepath.Dir(f.Path))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		t, err := os.CreateTemp(dir, atomicfile.TempPattern(filepath.Base(f.Path)))
		if err != nil {
			return err
		}
		temps[i] = t
		var at int64
		for _, p := range f.Parts {
			byPack[p.Pack] = append(byPack[p.Pack], piece{file: i, part: p, offset: at})
			at += p.Size
		}
	}
	for pack, pieces := range byPack {
		slices.SortStableFunc(pieces, func(a, b piece) int { return cmp.Compare(a.part.Offset, b.part.Offset) })
		r, err := m.store.packReader(ctx, m.id, pack)
		if err != nil {
			return err
		}
		var pos int64
		var prev *piece
		for i := range pieces {
			pc := &pieces[i]
			if prev != nil && prev.part.Offset == pc.part.Offset && prev.part.Size == pc.part.Size {
				// The same bytes in another file (files of the same
				// content share them): copied from the first.
				_, err = io.Copy(io.NewOffsetWriter(temps[pc.file], pc.offset), io.NewSectionReader(temps[prev.file], prev.offset, prev.part.Size))
			} else if _, err = io.CopyN(io.Discard, r, pc.part.Offset-pos); err == nil {
				_, err = io.CopyN(io.NewOffsetWriter(temps[pc.file], pc.offset), r, pc.part.Size)
				pos, prev = pc.part.Offset+pc.part.Size, pc
			}
			if err != nil {
				r.Close()
				return fmt.Errorf("%s: pack %s of job '%s' is cut short: %w", m.store.URL, pack, m.id, err)
			}
		}
		r.Close()
	}
	// Every file is checked before any is put in place.
	sums := make([]hash.Hash, len(files))
	for i, f := range files {
		t := temps[i]
		if err := t.Sync(); err != nil {
			return err
		}
		h, err := hashFile(t.Name())
		if err != nil {
			return err
		}
		if sum := hex.EncodeToString(h.Sum(nil)); sum != f.SHA256 {
			return fmt.Errorf("%s: %s of job '%s' does not match its checkpoint (SHA-256 %s, not %s)", m.store.URL, f.Path, m.id, sum, f.SHA256)
		}
		sums[i] = h
	}
	for i, f := range files {
		t, h := temps[i], sums[i]
		mode := fs.FileMode(f.Mode).Perm()
		if mode == 0 {
			mode = 0o644
		}
		if err := t.Chmod(mode); err != nil {
			return err
		}
		target := filepath.Join(m.Dir, f.Path)
		if err := os.Rename(t.Name(), target); err != nil {
			return err
		}
		t.Close()
		temps[i] = nil
		fi, err := os.Stat(target)
		if err != nil {
			return err
		}
		m.known[f.Path] = &tracked{File: f, stat: keyOf(fi), sum: marshal(h)}
	}
	return nil
}

// change is a file a checkpoint found new or changed.
type change struct {
	rel  string
	stat statKey
	mode fs.FileMode
	// from is the size the checkpoint already holds of a grown log;
	// data (or open, for a large file, read later) are the bytes from
	// there.
	from int64
	data []byte
	open *os.File
}

// smallFile is the size up to which a changed file is read while the job
// is held; a larger one is kept open and read after.
const smallFile = 256 << 10

// snapshot finds, while q holds the job still, what changed since the
// last checkpoint: a file replaced is read whole (or kept open: its inode
// keeps its bytes), a log grown is read from its old end.
func (m *Mirror) snapshot(q Quiescer) (changes []change, present map[string]bool, dirs []string, err error) {
	present = map[string]bool{}
	err = q.Quiesce(func() error {
		return filepath.WalkDir(m.Dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(m.Dir, p)
			rel = filepath.ToSlash(rel)
			switch {
			case rel == ".":
				return nil
			case excluded(rel) && d.IsDir():
				return filepath.SkipDir
			case excluded(rel):
				return nil
			case d.IsDir():
				dirs = append(dirs, rel)
				return nil
			case !d.Type().IsRegular():
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			present[rel] = true
			key := keyOf(fi)
			old := m.known[rel]
			if old != nil && old.stat == key {
				return nil
			}
			c := change{rel: rel, stat: key, mode: fi.Mode().Perm()}
			if old != nil && appendOnly(rel) && key.ino == old.stat.ino && key.size > old.Size && old.sum != nil {
				c.from = old.Size
			}
			if key.size-c.from <= smallFile {
				c.data, err = readRange(p, c.from, key.size-c.from)
			} else {
				c.open, err = os.Open(p)
			}
			if err != nil {
				return err
			}
			changes = append(changes, c)
			return nil
		})
	})
	if err != nil {
		for _, c := range changes {
			if c.open != nil {
				c.open.Close()
			}
		}
	}
	return changes, present, dirs, err
}

func readRange(p string, from, n int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	_, err = f.ReadAt(b, from)
	return b, err
}

// Checkpoint sends what changed in the folder since the last checkpoint
// and writes the next generation's manifest; nothing when nothing
// changed. ErrSuperseded says another process wrote that generation
// first: this one must stop working on the job.
func (m *Mirror) Checkpoint(ctx context.Context, q Quiescer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.unscanned != nil {
		if err := m.rescan(*m.unscanned); err != nil {
			return err
		}
		m.unscanned = nil
	}
	changes, present, dirs, err := m.snapshot(q)
	if err != nil {
		return err
	}
	removed := false
	for rel := range m.known {
		removed = removed || !present[rel]
	}
	if len(changes) == 0 && !removed && slices.Equal(dirs, m.dirs) && m.gen > 0 {
		return nil
	}
	next := map[string]*tracked{}
	for rel, t := range m.known {
		if present[rel] {
			next[rel] = t
		}
	}
	name := fmt.Sprintf("%d-%s", m.gen+1, m.writer)
	if err := m.sendPack(ctx, name, changes, next); err != nil {
		return err
	}
	mf := Manifest{Version: ManifestVersion, Job: m.id, Generation: m.gen + 1, WrittenAt: m.now().UTC(), Writer: m.writer, Dirs: dirs}
	for _, rel := range slices.Sorted(func(yield func(string) bool) {
		for rel := range next {
			if !yield(rel) {
				return
			}
		}
	}) {
		mf.Files = append(mf.Files, next[rel].File)
	}
	if err := m.store.putManifest(ctx, mf); err != nil {
		return err
	}
	m.gen, m.known, m.dirs = mf.Generation, next, dirs
	return m.writeRecord()
}

// sendPack uploads the changed bytes as one pack, named name, and sets
// each changed file's entry in next. A file whose whole content the
// checkpoint already holds under another name or an earlier generation
// is not sent again.
func (m *Mirror) sendPack(ctx context.Context, name string, changes []change, next map[string]*tracked) error {
	defer func() {
		for _, c := range changes {
			if c.open != nil {
				c.open.Close()
			}
		}
	}()
	byHash := map[string]File{}
	for _, t := range m.known {
		byHash[t.SHA256] = t.File
	}
	var w io.WriteCloser
	var offset int64
	for _, c := range changes {
		old := m.known[c.rel]
		h := sha256.New()
		if c.from > 0 {
			h = unmarshal(old.sum)
		}
		var body io.Reader = bytes.NewReader(c.data)
		if c.open != nil {
			body = io.NewSectionReader(c.open, c.from, c.stat.size-c.from)
		}
		// The bytes are hashed first, so that a file already held is
		// not sent; a large one is read twice, from its open inode.
		if _, err := io.Copy(h, body); err != nil {
			return err
		}
		sum := hex.EncodeToString(h.Sum(nil))
		t := &tracked{File: File{Path: c.rel, Size: c.stat.size, Mode: uint32(c.mode), SHA256: sum}, stat: c.stat, sum: marshal(h)}
		if same, ok := byHash[sum]; ok && same.Size == c.stat.size && c.from == 0 {
			t.Parts = same.Parts
			next[c.rel] = t
			continue
		}
		if c.from > 0 {
			t.Parts = slices.Clone(old.Parts)
		}
		if w == nil {
			pw, err := m.store.packWriter(ctx, m.id, name)
			if err != nil {
				return err
			}
			w = pw
		}
		body = bytes.NewReader(c.data)
		if c.open != nil {
			body = io.NewSectionReader(c.open, c.from, c.stat.size-c.from)
		}
		n, err := io.Copy(w, body)
		if err != nil {
			w.Close()
			return fmt.Errorf("%s: sending the checkpoint of job '%s': %w", m.store.URL, m.id, err)
		}
		t.Parts = append(t.Parts, Part{Pack: name, Offset: offset, Size: n})
		offset += n
		next[c.rel] = t
		byHash[sum] = t.File
	}
	if w != nil {
		if err := w.Close(); err != nil {
			return fmt.Errorf("%s: sending the checkpoint of job '%s': %w", m.store.URL, m.id, err)
		}
	}
	return nil
}

// ErrNoCheckpoint is a job the bucket has no checkpoint of.
var ErrNoCheckpoint = errors.New("no checkpoint")
