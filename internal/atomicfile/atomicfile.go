// Package atomicfile replaces files so that a crash at any moment leaves
// either the old or the new content on disk, never a mix of both.
//
// A write goes to a temporary file in the target's folder, is flushed with
// fsync, renamed over the target, and the folder itself is fsynced so the
// rename survives a power cut.
package atomicfile

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// tempMarker is part of every temporary file's name, so leftovers of a crash
// can be recognised and removed.
const tempMarker = ".creator-tmp-"

// IsTemp reports whether a file name is one of this package's temporary files.
func IsTemp(name string) bool { return strings.Contains(name, tempMarker) }

// writer replaces files atomically. The zero value is what WriteIn and
// Write use; the tests set the hook.
type writer struct {
	// beforeRename, if set, runs after the temporary file is complete and
	// before it replaces the target (tmpName is relative to the root). An
	// error it returns ends the write there, as a crash at the most
	// delicate moment would.
	beforeRename func(tmpName string) error
	// folderUnsynced leaves the folder unflushed after the rename (ReplaceIn).
	folderUnsynced bool
}

// WriteIn writes the content of r to name (slash-separated, relative to root),
// creating parent folders. It returns the number of bytes written.
func WriteIn(root *os.Root, name string, r io.Reader, perm fs.FileMode) (int64, error) {
	return writer{}.writeIn(root, name, r, perm)
}

// ReplaceIn is WriteIn without the flush of the folder after the rename:
// the new content is on disk before it takes the name, so a crash or a
// power cut leaves the old content or the new one, never a torn file, but
// a power cut may undo the rename itself. It saves a flush to disk, for a
// file whose changes a log flushed to disk before it holds, and replays.
func ReplaceIn(root *os.Root, name string, r io.Reader, perm fs.FileMode) (int64, error) {
	return writer{folderUnsynced: true}.writeIn(root, name, r, perm)
}

// Pending is a file written in full under a temporary name next to its
// target and flushed to disk, waiting to replace the target (Commit) or to
// be dropped (Abort).
type Pending struct {
	root      *os.Root
	tmp, name string
}

// PrepareIn is the first half of ReplaceIn: the content of r written
// under a temporary name next to name and flushed to disk; Commit renames
// it over name. Between the two the caller can flush something that must
// be on disk before the file takes its name (a log line), the two flushes
// waiting together.
func PrepareIn(root *os.Root, name string, r io.Reader, perm fs.FileMode) (*Pending, error) {
	p, _, err := prepare(root, name, r, perm)
	return p, err
}

// prepare is PrepareIn, also returning the number of bytes written.
func prepare(root *os.Root, name string, r io.Reader, perm fs.FileMode) (*Pending, int64, error) {
	dir := path.Dir(name)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return nil, 0, err
		}
	}
	tmp, f, err := createTemp(root, dir, path.Base(name), perm)
	if err != nil {
		return nil, 0, err
	}
	n, err := io.Copy(f, r)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = root.Remove(tmp)
		return nil, 0, err
	}
	return &Pending{root: root, tmp: tmp, name: name}, n, nil
}

// Commit renames the file over its target, without flushing the folder
// (as ReplaceIn).
func (p *Pending) Commit() error {
	if err := p.root.Rename(p.tmp, p.name); err != nil {
		_ = p.root.Remove(p.tmp)
		return err
	}
	return nil
}

// Abort drops the file; the target stays as it is.
func (p *Pending) Abort() { _ = p.root.Remove(p.tmp) }

// writeIn is the package's WriteIn, with w's hook.
func (w writer) writeIn(root *os.Root, name string, r io.Reader, perm fs.FileMode) (int64, error) {
	p, n, err := prepare(root, name, r, perm)
	if err != nil {
		return 0, err
	}
	if w.beforeRename != nil {
		if err := w.beforeRename(p.tmp); err != nil {
			p.Abort()
			return 0, err
		}
	}
	if err := p.Commit(); err != nil {
		return 0, err
	}
	if w.folderUnsynced {
		return n, nil
	}
	return n, SyncDir(root, path.Dir(name))
}

// Write puts data at a path a person named (an -o flag): a regular file,
// or a path where nothing is yet, is replaced atomically; a symbolic link
// is followed, so the file it points to is replaced and the link stays; a
// device, FIFO or socket (/dev/null, /dev/stdout, a pipe) is written into
// directly — replacing one by renaming a file over it would put a regular
// file where the machine expects a device.
func Write(filePath string, data []byte, perm fs.FileMode) error {
	return writer{}.write(filePath, data, perm)
}

// write is the package's Write, with w's hook.
func (w writer) write(filePath string, data []byte, perm fs.FileMode) error {
	target, fi, err := resolve(filePath)
	switch {
	case err != nil:
		return err
	case fi == nil: // nothing there yet
	case fi.IsDir():
		return fmt.Errorf("%s is a folder", filePath)
	case !fi.Mode().IsRegular():
		return writeInto(target, data)
	}
	root, err := os.OpenRoot(filepath.Dir(target))
	if err != nil {
		return err
	}
	defer root.Close()
	_, err = w.writeIn(root, filepath.Base(target), bytes.NewReader(data), perm)
	return err
}

// resolve follows symbolic links, also one whose target does not exist
// yet, to the path that is to be written, and returns what is there: nil
// if nothing is.
func resolve(p string) (string, fs.FileInfo, error) {
	for range 40 {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil, nil
		}
		if err != nil {
			return "", nil, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, fi, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(p), link)
		}
		p = link
	}
	return "", nil, fmt.Errorf("%s: too many levels of symbolic links", p)
}

// writeInto writes data into a special file as it is.
func writeInto(target string, data []byte) error {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// SyncDir flushes a folder's entries (new names, renames) to disk.
func SyncDir(root *os.Root, dir string) error {
	d, err := root.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	// Some file systems cannot fsync a folder; the rename itself has happened.
	if errors.Is(err, os.ErrInvalid) || errors.Is(err, errors.ErrUnsupported) {
		return nil
	}
	return err
}

// tempPrefix is the start of the name of a temporary file for base:
// hidden, marked (IsTemp), and short enough that the whole name stays
// within the 255-byte limit of most file systems.
func tempPrefix(base string) string {
	if len(base) > 180 {
		base = base[:180]
	}
	return "." + base + tempMarker
}

// TempPattern is the os.CreateTemp pattern of a temporary file that is
// to be renamed to base: for those who write a file another way than
// Write does.
func TempPattern(base string) string { return tempPrefix(base) + "*" }

func createTemp(root *os.Root, dir, base string, perm fs.FileMode) (string, *os.File, error) {
	for range 10 {
		var b [6]byte
		_, _ = rand.Read(b[:])
		name := path.Join(dir, tempPrefix(base)+hex.EncodeToString(b[:]))
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return name, f, err
	}
	return "", nil, fmt.Errorf("cannot create a temporary file in %s", dir)
}
