// Package corpustest finds the real documents of ../shared/corpus (beside
// the repository) for tests and benchmarks, which read them in place.
// Without the corpus a test is skipped with a clear reason, or fails when
// CREATOR_REQUIRE_CORPUS=1 (as CI sets it), so that a missing corpus never
// passes unnoticed where it must be there.
package corpustest

import (
	"os"
	"path/filepath"
	"testing"
)

// RequireEnv makes a missing corpus a failure instead of a skip.
const RequireEnv = "CREATOR_REQUIRE_CORPUS"

// Dir is the corpus folder: shared/corpus beside the repository's root
// (the folder of go.mod); "" when the root cannot be found.
func Dir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared", "corpus")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Optional is the path of a corpus file a test can do without: ok is
// false when it is missing (a failure with CREATOR_REQUIRE_CORPUS=1).
func Optional(tb testing.TB, name string) (path string, ok bool) {
	tb.Helper()
	p := filepath.Join(Dir(), name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv(RequireEnv) == "1" {
			tb.Fatalf("corpus file %s is missing (%v) and %s=1 requires it: put the corpus at ../shared/corpus beside the repository", name, err, RequireEnv)
		}
		tb.Logf("corpus file %s is missing: this test goes on without it", name)
		return "", false
	}
	return p, true
}

// Path is the path of a corpus file. When it is missing the test is
// skipped, saying so — or fails, with CREATOR_REQUIRE_CORPUS=1.
func Path(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(Dir(), name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv(RequireEnv) == "1" {
			tb.Fatalf("corpus file %s is missing (%v) and %s=1 requires it: put the corpus at ../shared/corpus beside the repository", name, err, RequireEnv)
		}
		tb.Skipf("corpus file %s is missing: ../shared/corpus beside the repository is not there; this test is skipped (%s=1 makes it fail)", name, RequireEnv)
	}
	return p
}
