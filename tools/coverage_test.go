package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"creator/internal/coverage"
	"creator/internal/document"
)

// coverageEnv is reqEnv with the coverage ledger: read_file's chunk lines
// are noted in it as the agent's loop does.
func coverageEnv(t *testing.T) (*coverage.Ledger, func(name, args string) (string, error)) {
	t.Helper()
	job, reg := reqEnv(t)
	ledger := coverage.New(job.Internal)
	manifest := func() (document.Manifest, error) { return coverage.Manifest(job.Internal) }
	for _, tool := range CoverageTools(ledger, manifest) {
		if err := reg.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	return ledger, func(name, args string) (string, error) {
		res, err := reg.Call(context.Background(), name, json.RawMessage(args))
		if lines, ok := res.Data.(FileLines); ok && err == nil {
			NoteRead(ledger, lines)
		}
		return res.Text, err
	}
}

func TestDeclaringAChunkEmptyNeedsAReasonAndAReading(t *testing.T) {
	t.Parallel()
	ledger, call := coverageEnv(t)
	for _, c := range []struct{ args, want string }{
		{`{"chunk":"chunk_001","reason":"empty"}`, "give the reason chunk_001 holds no requirement in at least 3 words"},
		{`{"chunk":"chunk_001","reason":"  "}`, "in at least 3 words"},
		{`{"chunk":"chunk_001"}`, `missing required field "reason"`},
		{`{"chunk":"chunk_099","reason":"table of contents"}`, `chunk "chunk_099" does not exist; the chunks are chunk_001 to`},
		{`{"chunk":"chunk_001","reason":"table of contents"}`, "chunk_001 is not read in full yet (not read): read it with read_file"},
	} {
		if _, err := call("declare_chunk_empty", c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.args, err, c.want)
		}
	}
	// Read in part, then in full.
	if _, err := call("read_file", `{"path":"chunks/chunk_001.md","limit":3}`); err != nil {
		t.Fatal(err)
	}
	if _, err := call("declare_chunk_empty", `{"chunk":"chunk_001","reason":"table of contents"}`); err == nil || !strings.Contains(err.Error(), "not read in full yet (lines 4-") {
		t.Errorf("a chunk read in part: %v", err)
	}
	if _, err := call("read_file", `{"path":"chunks/chunk_001.md","offset":4}`); err != nil {
		t.Fatal(err)
	}
	got, err := call("declare_chunk_empty", `{"chunk":"1","reason":"  background of the\nretention rules only "}`)
	if err != nil || got != `declared chunk_001 empty: background of the retention rules only; read chunk "1" as "chunk_001"` {
		t.Fatalf("%q, %v", got, err)
	}
	e, _ := ledger.Entry("chunks/chunk_001.md")
	if !e.FullyRead() || e.Empty != "background of the retention rules only" {
		t.Errorf("ledger entry %+v", e)
	}
	// The ledger is kept in the job and reads back the same.
	again, ok := coverage.Load(ledgerStore(t, ledger))
	if a, _ := again.Entry("chunks/chunk_001.md"); !ok || !reflect.DeepEqual(a, e) {
		t.Errorf("loaded %+v (%v), want %+v", a, ok, e)
	}
}

// ledgerStore is where a ledger made by coverageEnv keeps its file.
func ledgerStore(t *testing.T, l *coverage.Ledger) coverage.Store {
	t.Helper()
	s := l.Store()
	if s == nil {
		t.Fatal("the ledger has no store")
	}
	return s
}
