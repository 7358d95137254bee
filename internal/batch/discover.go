package batch

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"creator/internal/document"
)

// MaxStem is the longest stem a job id keeps of a document's name.
const MaxStem = 48

// Discover lists the documents of the arguments in order: a file as
// given, a folder searched (sub-folders included, hidden ones and skip
// left out) for the extensions document.Extensions names. A glob of
// include or exclude without a '/' matches a file's name, one with a '/'
// its path below the folder given (or the path given, for a file); with
// include given, only files that match one are taken, and none that
// matches an exclude is. Each file is listed once.
func Discover(args, include, exclude []string, skip ...string) ([]string, error) {
	for _, g := range slices.Concat(include, exclude) {
		if _, err := path.Match(g, ""); err != nil {
			return nil, fmt.Errorf("bad glob %q: %v", g, err)
		}
	}
	skipAbs := map[string]bool{}
	for _, s := range skip {
		if a, err := filepath.Abs(s); err == nil {
			skipAbs[a] = true
		}
	}
	wanted := func(rel string) bool {
		rel = filepath.ToSlash(rel)
		if len(include) > 0 && !matchAny(include, rel) {
			return false
		}
		return !matchAny(exclude, rel)
	}
	var found []string
	seen := map[string]bool{}
	add := func(p string) {
		a, err := filepath.Abs(p)
		if err != nil {
			a = p
		}
		if !seen[a] {
			seen[a] = true
			found = append(found, p)
		}
	}
	for _, arg := range args {
		fi, err := os.Stat(arg)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s does not exist", arg)
			}
			return nil, err
		}
		if !fi.IsDir() {
			if wanted(arg) {
				add(arg)
			}
			continue
		}
		err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			hidden := p != arg && strings.HasPrefix(d.Name(), ".")
			if d.IsDir() {
				if a, _ := filepath.Abs(p); hidden || skipAbs[a] {
					return filepath.SkipDir
				}
				return nil
			}
			if hidden || !slices.Contains(document.Extensions(), strings.ToLower(filepath.Ext(p))) {
				return nil
			}
			if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
				return nil // a link to nowhere or to a folder
			}
			rel, _ := filepath.Rel(arg, p)
			if wanted(rel) {
				add(p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return found, nil
}

// matchAny reports whether a glob matches rel (a slash-separated path):
// its name for a glob without '/', the whole path for one with.
func matchAny(globs []string, rel string) bool {
	for _, g := range globs {
		target := path.Base(rel)
		if strings.Contains(g, "/") {
			target = rel
		}
		if ok, _ := path.Match(g, target); ok {
			return true
		}
	}
	return false
}

// JobID is the id of the document's job: its stem, then '-' and the
// first 8 hex digits of the SHA-256 of its bytes. The stem keeps
// letters, digits, '.', '_' and '-' (any other character becomes '-'), at
// most MaxStem of them; a stem that would start with '-' starts with '_'
// instead, and an empty one is "doc". The same bytes under the same name
// give the same id wherever they are; a changed document gets a new one.
func JobID(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return IDOf(filepath.Base(p), hex.EncodeToString(h.Sum(nil))), nil
}

// IDOf is the job id of a document named name whose bytes' SHA-256, in
// hex, is sum (JobID without reading the file).
func IDOf(name, sum string) string {
	return Stem(name) + "-" + sum[:8]
}

// Stem is the part of a job id taken from a document's file name.
func Stem(name string) string {
	name = strings.TrimSuffix(name, filepath.Ext(name))
	var b strings.Builder
	n := 0
	for _, r := range name {
		if n == MaxStem {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
		n++
	}
	s := b.String()
	switch {
	case s == "":
		return "doc"
	case s[0] == '-':
		return "_" + s[1:]
	}
	return s
}
