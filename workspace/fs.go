package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"

	"creator/internal/atomicfile"
	"creator/internal/humanize"
)

// The methods in this file are the agent's view of the job folder: every path
// is checked by Resolve, and every error is a sentence the model can act on.

// OpenFile opens a file for reading. It returns the open file and the
// resolved path.
func (s *Files) OpenFile(p string) (*os.File, string, error) {
	rel, err := s.Resolve(p, Read)
	if err != nil {
		return nil, "", err
	}
	f, err := s.root.Open(rel)
	if err != nil {
		return nil, "", describe(p, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, "", describe(p, err)
	}
	if fi.IsDir() {
		f.Close()
		return nil, "", refuse(p, "is a folder; use list_files to see what it holds")
	}
	return f, rel, nil
}

// ReadFile reads a whole file of at most max bytes.
func (s *Files) ReadFile(p string, max int64) ([]byte, string, error) {
	f, rel, err := s.OpenFile(p)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, "", describe(p, err)
	}
	if fi.Size() > max {
		return nil, "", refuse(p, "is %s; files over %s cannot be handled in one piece", humanize.Bytes(fi.Size()), humanize.Bytes(max))
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, "", describe(p, err)
	}
	return buf.Bytes(), rel, nil
}

// WriteResult says what a write did.
type WriteResult struct {
	Path    string // resolved path
	Created bool   // false when an existing file was replaced
}

// WriteFile creates or replaces a file atomically, creating parent folders.
func (s *Files) WriteFile(p string, data []byte) (WriteResult, error) {
	return s.writeFile(p, data, atomicfile.WriteIn, false)
}

// ReplaceFile is WriteFile without the flush of the folder to disk after
// the rename (atomicfile.ReplaceIn): for a file whose changes a log
// flushed to disk before it holds, so that a power cut that undoes the
// rename loses nothing the log cannot give back.
func (s *Files) ReplaceFile(p string, data []byte) (WriteResult, error) {
	return s.writeFile(p, data, atomicfile.ReplaceIn, false)
}

// PendingFile is a file PrepareFile wrote under a temporary name, waiting
// to take its name.
type PendingFile struct {
	s       *Files
	pending *atomicfile.Pending
	res     WriteResult
}

// PrepareFile is the first half of ReplaceFile (atomicfile.PrepareIn):
// the content checked, written under a temporary name and flushed to
// disk; Commit puts it in place, Abort drops it.
func (s *Files) PrepareFile(p string, data []byte) (*PendingFile, error) {
	var pending *atomicfile.Pending
	res, err := s.writeFile(p, data, func(root *os.Root, rel string, r io.Reader, perm fs.FileMode) (int64, error) {
		var err error
		pending, err = atomicfile.PrepareIn(root, rel, r, perm)
		return 0, err
	}, true)
	if err != nil {
		return nil, err
	}
	return &PendingFile{s: s, pending: pending, res: res}, nil
}

// Commit renames the file into place.
func (f *PendingFile) Commit() (WriteResult, error) {
	if err := f.s.changes.during(f.pending.Commit); err != nil {
		return f.res, describe(f.res.Path, err)
	}
	f.s.changes.changed(f.res.Path)
	return f.res, nil
}

// Abort drops the file.
func (f *PendingFile) Abort() { f.pending.Abort() }

// writeFile checks a write of data to p and has write write it; for a
// write that only prepares the file, the change is told on its commit.
func (s *Files) writeFile(p string, data []byte, write func(*os.Root, string, io.Reader, fs.FileMode) (int64, error), prepareOnly bool) (WriteResult, error) {
	if int64(len(data)) > s.MaxWriteBytes {
		return WriteResult{}, fmt.Errorf("the content is %s; one write is limited to %s, so split it over several files",
			humanize.Bytes(int64(len(data))), humanize.Bytes(s.MaxWriteBytes))
	}
	rel, err := s.Resolve(p, Write)
	if err != nil {
		return WriteResult{}, err
	}
	res := WriteResult{Path: rel}
	fi, err := s.root.Stat(rel)
	switch {
	case err == nil && fi.IsDir():
		return res, refuse(p, "is a folder; give a file name inside it")
	case errors.Is(err, fs.ErrNotExist):
		res.Created = true
	case err != nil:
		return res, describe(p, err)
	}
	writeIt := func() error {
		_, err := write(s.root, rel, bytes.NewReader(redact(s.redactor, rel, data)), 0o644)
		return err
	}
	if prepareOnly {
		// Only staged: the change is its Commit's.
		return res, describe(p, writeIt())
	}
	if err := s.changes.during(writeIt); err != nil {
		return res, describe(p, err)
	}
	s.changes.changed(rel)
	return res, nil
}

// Remove deletes a file or an empty folder. A symbolic link is removed
// itself, never what it points to.
func (s *Files) Remove(p string) (rel string, wasDir bool, err error) {
	rel, err = s.Resolve(p, Delete)
	if err != nil {
		return "", false, err
	}
	fi, err := s.root.Lstat(rel)
	if err != nil {
		return "", false, describe(p, err)
	}
	if fi.IsDir() {
		entries, err := s.readDir(rel)
		if err != nil {
			return "", false, describe(p, err)
		}
		if len(entries) > 0 {
			return "", false, refuse(p, "is a folder with %d entries; delete them first", len(entries))
		}
	}
	unlock := s.changes.changing()
	err = s.root.Remove(rel)
	unlock()
	if err != nil {
		return "", false, describe(p, err)
	}
	s.changes.removed(rel)
	return rel, fi.IsDir(), atomicfile.SyncDir(s.root, path.Dir(rel))
}

// Mkdir creates a folder and its parents; created is false when it existed.
func (s *Files) Mkdir(p string) (rel string, created bool, err error) {
	rel, err = s.Resolve(p, Write)
	if err != nil {
		return "", false, err
	}
	fi, err := s.root.Stat(rel)
	switch {
	case err == nil && fi.IsDir():
		return rel, false, nil
	case err == nil:
		return "", false, refuse(p, "is a file")
	case !errors.Is(err, fs.ErrNotExist):
		return "", false, describe(p, err)
	}
	if err := s.root.MkdirAll(rel, 0o755); err != nil {
		return "", false, describe(p, err)
	}
	return rel, true, nil
}

// Entry is one entry of a folder listing.
type Entry struct {
	Name  string
	IsDir bool
	Size  int64 // bytes for files, number of entries for folders
	Link  bool  // a symbolic link (shown as what it points to)
	// Dangling marks a link that leads outside the job or to nothing.
	Dangling bool
}

// ReadDir lists a folder, sorted by name. The job's .agent/ folder and
// temporary files are left out.
func (s *Files) ReadDir(p string) (string, []Entry, error) {
	rel, err := s.Resolve(p, Read)
	if err != nil {
		return "", nil, err
	}
	fi, err := s.root.Stat(rel)
	if err != nil {
		return "", nil, describe(p, err)
	}
	if !fi.IsDir() {
		return "", nil, refuse(p, "is a file; use read_file to read it")
	}
	names, err := s.readDir(rel)
	if err != nil {
		return "", nil, describe(p, err)
	}
	var out []Entry
	for _, name := range names {
		child := path.Join(rel, name)
		if child == ".agent" {
			continue
		}
		e := Entry{Name: name}
		li, err := s.root.Lstat(child)
		if err != nil {
			continue
		}
		st := li
		if li.Mode()&fs.ModeSymlink != 0 {
			e.Link = true
			if si, err := s.root.Stat(child); err == nil {
				st = si
			} else {
				e.Dangling = true
			}
		}
		e.IsDir = st.IsDir()
		e.Size = st.Size()
		if e.IsDir {
			if sub, err := s.readDir(child); err == nil {
				e.Size = int64(len(sub))
			}
		}
		out = append(out, e)
	}
	return rel, out, nil
}

// Names lists the names in a folder, sorted, without temporary files: a
// cheaper ReadDir when sizes are not needed.
func (s *Files) Names(p string) ([]string, error) {
	rel, err := s.Resolve(p, Read)
	if err != nil {
		return nil, err
	}
	names, err := s.readDir(rel)
	if err != nil {
		return nil, describe(p, err)
	}
	return names, nil
}

// readDir returns the names in a folder, without temporary files.
func (s *Files) readDir(rel string) ([]string, error) {
	d, err := s.root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	kept := names[:0]
	for _, n := range names {
		if !atomicfile.IsTemp(n) {
			kept = append(kept, n)
		}
	}
	sort.Strings(kept)
	return kept, nil
}
