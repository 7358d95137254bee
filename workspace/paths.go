package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode"

	"creator/internal/atomicfile"
)

// Access is what a tool wants to do with a path. Reads may go anywhere inside
// the job; writes and deletions are also checked against the protected areas.
type Access int

const (
	Read Access = iota
	Write
	Delete
)

const (
	// MaxPathBytes bounds the length of a tool path.
	MaxPathBytes = 1024
	maxNameBytes = 255
	maxLinkHops  = 40
)

// PathError is a refusal of a tool path, worded so the model can act on it:
// "path '../x' leaves the workspace".
type PathError struct {
	Path   string
	Reason string
	// Err is the file system's error the reason says in words
	// (fs.ErrNotExist, fs.ErrPermission), for errors.Is; nil for a path
	// the workspace refuses itself.
	Err error
}

func (e *PathError) Error() string { return "path " + quote(e.Path) + " " + e.Reason }

func (e *PathError) Unwrap() error { return e.Err }

func refuse(p, format string, args ...any) error {
	return &PathError{Path: p, Reason: fmt.Sprintf(format, args...)}
}

// quote shows a path in single quotes, or Go-quoted when it holds characters
// that would garble a message.
func quote(p string) string {
	for _, r := range p {
		if !unicode.IsPrint(r) {
			return strconv.Quote(p)
		}
	}
	return "'" + p + "'"
}

// cleanPath checks a tool path without touching the disk and returns it in
// clean slash form, relative to the job folder ("." for the folder itself).
func cleanPath(p string) (string, error) {
	switch {
	case p == "":
		return "", refuse(p, "is empty; give a path relative to the job folder, e.g. 'notes/summary.md'")
	case strings.IndexByte(p, 0) >= 0:
		return "", refuse(p, "contains a NUL byte")
	case len(p) > MaxPathBytes:
		return "", refuse(p[:40]+"…", "is %d bytes long; paths are limited to %d bytes", len(p), MaxPathBytes)
	case strings.IndexFunc(p, unicode.IsControl) >= 0:
		return "", refuse(p, "contains a control character")
	case strings.Contains(p, `\`):
		return "", refuse(p, "contains '\\'; separate folders with '/', e.g. 'notes/summary.md'")
	case strings.HasPrefix(p, "/") || isDrivePath(p):
		return "", refuse(p, "is absolute; give a path relative to the job folder, e.g. 'notes/summary.md'")
	case p == "~" || strings.HasPrefix(p, "~/"):
		return "", refuse(p, "points into a home folder; give a path relative to the job folder")
	}
	clean := path.Clean(p)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", refuse(p, "leaves the workspace")
	}
	for _, name := range strings.Split(clean, "/") {
		if len(name) > maxNameBytes {
			return "", refuse(p, "has a name longer than %d bytes", maxNameBytes)
		}
	}
	return clean, nil
}

func isDrivePath(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')
}

// Resolve turns a tool path into the real path relative to the job folder,
// following symbolic links inside the job and refusing any that lead out.
// Writes and deletions are refused in the protected areas.
func (s *Files) Resolve(p string, access Access) (string, error) {
	clean, err := cleanPath(p)
	if err != nil {
		return "", err
	}
	var rel string
	if access == Delete && clean != "." {
		// Deleting a link removes the link, not what it points to.
		var dir string
		dir, err = s.follow(p, path.Dir(clean))
		rel = path.Join(dir, path.Base(clean))
	} else {
		rel, err = s.follow(p, clean)
	}
	if err != nil {
		return "", err
	}
	if access != Read {
		if err := checkChangeable(p, clean, rel); err != nil {
			return "", err
		}
	}
	return rel, nil
}

// follow resolves symbolic links component by component. Components that do
// not exist yet are taken as they are: nothing can redirect them.
func (s *Files) follow(orig, clean string) (string, error) {
	if clean == "." {
		return ".", nil
	}
	var done []string
	rest := strings.Split(clean, "/")
	for hops := 0; len(rest) > 0; {
		cur := path.Join(append(done, rest[0])...)
		fi, err := os.Lstat(filepath.Join(s.Dir, filepath.FromSlash(cur)))
		if errors.Is(err, fs.ErrNotExist) {
			done = append(done, rest...)
			break
		}
		if err != nil {
			if errors.Is(err, syscall.ENOTDIR) {
				return "", refuse(orig, "goes through '%s', which is a file, not a folder", path.Dir(cur))
			}
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = append(done, rest[0])
			rest = rest[1:]
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", refuse(orig, "has too many levels of symbolic links")
		}
		target, err := os.Readlink(filepath.Join(s.Dir, filepath.FromSlash(cur)))
		if err != nil {
			return "", err
		}
		var next string
		if filepath.IsAbs(target) {
			r, err := filepath.Rel(s.Dir, filepath.Clean(target))
			if err != nil {
				return "", refuse(orig, "leads outside the workspace through the symbolic link '%s'", cur)
			}
			next = filepath.ToSlash(r)
		} else {
			next = path.Join(path.Dir(cur), filepath.ToSlash(target))
		}
		if next == ".." || strings.HasPrefix(next, "../") {
			return "", refuse(orig, "leads outside the workspace through the symbolic link '%s'", cur)
		}
		// Start over from the link's target: it may hold links of its own.
		rest = append(splitPath(next), rest[1:]...)
		done = nil
	}
	if len(done) == 0 {
		return ".", nil
	}
	return path.Join(done...), nil
}

func splitPath(p string) []string {
	if p == "." || p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// checkChangeable refuses changes to the areas that belong to the program or
// to the user: the job folder itself, .agent/, input/, plan.json and
// progress.md. Names are compared without case so that case-insensitive file
// systems cannot be used to slip past.
func checkChangeable(orig, clean, rel string) error {
	where := ""
	if rel != clean {
		where = fmt.Sprintf(" (it leads to '%s')", rel)
	}
	first, _, _ := strings.Cut(rel, "/")
	switch {
	case rel == ".":
		return refuse(orig, "is the job folder itself, which cannot be changed")
	case strings.EqualFold(first, ".agent"):
		return refuse(orig, "is inside .agent/, the job's machine state, which tools cannot change%s", where)
	case strings.EqualFold(first, "input"):
		return refuse(orig, "is inside input/, which holds the source documents and is read-only%s; write derived files elsewhere, e.g. under notes/", where)
	case strings.EqualFold(rel, PlanFile):
		return refuse(orig, "is managed by the planning tools%s; use write_plan, add_task, start_task and complete_task", where)
	case strings.EqualFold(rel, ProgressFile):
		return refuse(orig, "is the job's log, appended by complete_task%s; keep your own notes under notes/", where)
	case atomicfile.IsTemp(path.Base(rel)):
		return refuse(orig, "uses a name reserved for temporary files")
	}
	return nil
}

// describe turns a file-system error on a tool path into a sentence the
// model can act on.
func describe(p string, err error) error {
	var pe *PathError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe):
		return err
	case errors.Is(err, fs.ErrNotExist):
		return &PathError{Path: p, Reason: "does not exist", Err: fs.ErrNotExist}
	case errors.Is(err, syscall.ENOTDIR):
		return refuse(p, "goes through a file as if it were a folder")
	case errors.Is(err, syscall.EISDIR):
		return refuse(p, "is a folder")
	case errors.Is(err, syscall.ENOTEMPTY):
		return refuse(p, "is a folder that is not empty")
	case errors.Is(err, fs.ErrPermission):
		return &PathError{Path: p, Reason: "cannot be accessed: permission denied", Err: fs.ErrPermission}
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("the disk is full; %s was not written: %w", quote(p), err)
	case strings.Contains(err.Error(), "path escapes from parent"):
		return refuse(p, "leads outside the workspace")
	}
	return fmt.Errorf("%s: %w", quote(p), err)
}
