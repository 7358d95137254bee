package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// declarerFunc is a ChunkDeclarer made of a function; nil declares
// nothing.
type declarerFunc func(chunk, reason string) (DeclaredEmpty, error)

func (f declarerFunc) DeclareEmpty(chunk, reason string) (DeclaredEmpty, error) {
	if f == nil {
		return DeclaredEmpty{}, errors.New("no ledger")
	}
	return f(chunk, reason)
}

// declare_chunk_empty checks the reason, hands the declaration to the
// job's ledger in one line, and says how it read the chunk's name; the
// ledger's refusals reach the model as they are. The rules of declaring
// are internal/job's and tested there.
func TestDeclareChunkEmptyIsAnAdapter(t *testing.T) {
	t.Parallel()
	var got []string
	ledger := declarerFunc(func(chunk, reason string) (DeclaredEmpty, error) {
		got = append(got, chunk+"|"+reason)
		if chunk == "chunk_099" {
			return DeclaredEmpty{}, errors.New(`chunk "chunk_099" does not exist; the chunks are chunk_001 to chunk_004`)
		}
		return DeclaredEmpty{Chunk: "chunk_001", File: "chunks/chunk_001.md", Reason: reason}, nil
	})
	reg, err := NewRegistry(CoverageTools(ledger)...)
	if err != nil {
		t.Fatal(err)
	}
	call := func(args string) (string, any, error) {
		res, err := reg.Call(context.Background(), "declare_chunk_empty", json.RawMessage(args))
		return res.Text, res.Data, err
	}
	for _, c := range []struct{ args, want string }{
		{`{"chunk":"chunk_001","reason":"empty"}`, "give the reason chunk_001 holds no requirement in at least 3 words"},
		{`{"chunk":"chunk_001","reason":"  "}`, "in at least 3 words"},
		{`{"chunk":"chunk_001"}`, `missing required field "reason"`},
		{`{"chunk":"chunk_099","reason":"table of contents"}`, `chunk "chunk_099" does not exist; the chunks are chunk_001 to`},
	} {
		if _, _, err := call(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.args, err, c.want)
		}
	}
	text, data, err := call(`{"chunk":"1","reason":"  background of the\nretention rules only "}`)
	if err != nil || text != `declared chunk_001 empty: background of the retention rules only; read chunk "1" as "chunk_001"` {
		t.Fatalf("%q, %v", text, err)
	}
	if d, ok := data.(DeclaredEmpty); !ok || d.File != "chunks/chunk_001.md" || d.Reason != "background of the retention rules only" {
		t.Errorf("data %#v", data)
	}
	if want := []string{"chunk_099|table of contents", "1|background of the retention rules only"}; strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("declared %q, want %q", got, want)
	}
}
