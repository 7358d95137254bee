package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A record a kill tore at the end of a JSON-lines log is cut off before
// the next append, so that every line stays whole; a whole log is left
// as it is, and so is a file of another kind.
func TestAppendDropsATornTail(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	log := filepath.Join(j.Dir, ".agent", "x.jsonl")
	if err := j.AppendInternal(".agent/x.jsonl", []byte("{\"a\":1}\n")); err != nil {
		t.Fatal(err)
	}
	// A kill in the middle of a long record's write; the job is opened
	// again by the next process.
	f, _ := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"b":"` + strings.Repeat("y", 100_000))
	f.Close()
	j, err := Open(filepath.Dir(j.Dir), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.AppendInternal(".agent/x.jsonl", []byte("{\"c\":3}\n")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(log); string(data) != "{\"a\":1}\n{\"c\":3}\n" {
		t.Errorf("log after a torn record: %.80q", data)
	}
	w, err := j.OpenLog(".agent/y.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("{\"d\":4}\n{\"e\""))
	w.Close()
	w, err = j.OpenLog(".agent/y.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("{\"f\":6}\n"))
	w.Close()
	if data, _ := os.ReadFile(filepath.Join(j.Dir, ".agent", "y.jsonl")); string(data) != "{\"d\":4}\n{\"f\":6}\n" {
		t.Errorf("events after a torn record: %q", data)
	}
	if err := j.AppendInternal("notes/n.md", []byte("no newline")); err != nil {
		t.Fatal(err)
	}
	if err := j.AppendInternal("notes/n.md", []byte(" more\n")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(j.Dir, "notes", "n.md")); string(data) != "no newline more\n" {
		t.Errorf("a note: %q", data)
	}
}

// A path the workspace describes in words still says, for errors.Is,
// which file system error it was.
func TestDescribedErrorsKeepTheirKind(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	_, err := j.Names("no/such/folder")
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("listing a missing folder: %v", err)
	}
}
