package badfiles

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The committed corpus is the one the generator writes: regenerate it with
// go run ./internal/badfiles/mkbad testdata/bad.
func TestCorpusIsCurrent(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "testdata", "bad")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := Files()
	if len(entries) != len(files) {
		t.Errorf("%s holds %d files, the generator makes %d", dir, len(entries), len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil || !bytes.Equal(data, f.Data) {
			t.Errorf("%s differs from the generator's (%v); run go run ./internal/badfiles/mkbad testdata/bad", f.Name, err)
		}
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	a, b := Files(), Files()
	for i := range a {
		if !bytes.Equal(a[i].Data, b[i].Data) {
			t.Errorf("%s differs between two runs", a[i].Name)
		}
	}
}
