package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzResolve checks that no tool path, however strange, resolves to a place
// outside the job or to a protected area for writing, and that resolution
// never panics. The seed corpus is in testdata/fuzz/FuzzResolve.
func FuzzResolve(f *testing.F) {
	for _, seed := range []string{"notes/a.md", "../x", "out/secret.txt", "in/a.md", "loop/x", ".agent/job.json", "input/../plan.json"} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	j := newJob(f)
	out := outside(f, j)
	os.MkdirAll(filepath.Join(j.Dir, "notes"), 0o755)
	os.WriteFile(filepath.Join(j.Dir, "notes", "a.md"), []byte("a"), 0o644)
	symlink(f, j, out, "out")
	symlink(f, j, "../../outside/secret.txt", "notes/rel-out")
	symlink(f, j, "notes", "in")
	symlink(f, j, ".agent", "state")
	symlink(f, j, "input", "docs")
	symlink(f, j, "loop", "loop")
	symlink(f, j, "..", "notes/up")

	f.Fuzz(func(t *testing.T, p string, write bool) {
		access := Read
		if write {
			access = Write
		}
		rel, err := j.Resolve(p, access)
		if err != nil {
			var pe *PathError
			if !errors.As(err, &pe) {
				t.Fatalf("Resolve(%q) failed with a non-path error: %v", p, err)
			}
			return
		}
		if rel != path.Clean(rel) || path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
			t.Fatalf("Resolve(%q) = %q: not a clean relative path", p, rel)
		}
		real := realLocation(t, filepath.Join(j.Dir, filepath.FromSlash(rel)))
		if real != j.Dir && !strings.HasPrefix(real, j.Dir+string(filepath.Separator)) {
			t.Fatalf("Resolve(%q) = %q, which is really %s: outside the job %s", p, rel, real, j.Dir)
		}
		if write {
			inJob, _ := filepath.Rel(j.Dir, real)
			first, _, _ := strings.Cut(filepath.ToSlash(inJob), "/")
			for _, protected := range []string{".agent", "input", "plan.json", "progress.md", "."} {
				if strings.EqualFold(first, protected) {
					t.Fatalf("Resolve(%q) for writing = %q, inside protected %s", p, rel, protected)
				}
			}
		}
	})
}

// realLocation resolves the longest existing prefix of p with the operating
// system's own symlink resolution and appends the rest.
func realLocation(t *testing.T, p string) string {
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			// e.g. a symlink loop or a file used as a folder: the OS would refuse too.
			return filepath.Join(filepath.Dir(p), rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = filepath.Dir(p)
	}
}
