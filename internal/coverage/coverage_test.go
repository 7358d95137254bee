package coverage

import (
	"fmt"
	"strings"
	"testing"

	"creator/internal/document"
)

func TestReadsAddUpToAWholeChunk(t *testing.T) {
	t.Parallel()
	l := New(nil)
	f := "chunks/chunk_001.md"
	steps := []struct {
		first, n, total int
		unread          string
	}{
		{1, 10, 30, "lines 11-30 not read"},
		{21, 10, 30, "lines 11-20 not read"},
		{11, 5, 30, "lines 16-20 not read"},
		{16, 5, 30, "read in full"},
		{1, 30, 31, "line 31 not read"}, // the file changed: what was read before no longer counts
		{31, 1, 31, "read in full"},
	}
	for i, s := range steps {
		l.Read(f, s.first, s.n, s.total)
		e, _ := l.Entry(f)
		if got := e.Unread(); got != s.unread {
			t.Errorf("step %d: %q, want %q (spans %+v)", i, got, s.unread, e.Read)
		}
		if e.FullyRead() != (s.unread == "read in full") {
			t.Errorf("step %d: FullyRead %v", i, e.FullyRead())
		}
	}
	if l.Read(f, 5, 3, 31) {
		t.Error("reading lines already read changed the ledger")
	}
	if err := l.Declare("chunks/chunk_002.md", "table of contents"); err == nil {
		t.Error("a chunk never read was declared empty")
	}
}

func TestMeasure(t *testing.T) {
	t.Parallel()
	var man document.Manifest
	for i := 1; i <= 25; i++ {
		id := fmt.Sprintf("chunk_%03d", i)
		man.Chunks = append(man.Chunks, document.ManifestChunk{ID: id, File: "chunks/" + id + ".md", Document: "a.pdf"})
	}
	l := New(nil)
	l.Read("chunks/chunk_001.md", 1, 9, 9) // read and cited
	l.Read("chunks/chunk_002.md", 1, 9, 9) // read and declared empty
	l.Read("chunks/chunk_003.md", 1, 9, 9) // read only
	l.Read("chunks/chunk_004.md", 1, 4, 9) // read in part, cited
	l.Read("chunks/other.md", 1, 9, 9)     // not a chunk of the manifest
	if err := l.Declare("chunks/chunk_002.md", "table of contents"); err != nil {
		t.Fatal(err)
	}
	r := l.Measure(man, map[string]bool{"chunk_001": true, "chunk_004": true}, []string{"a.pdf", "b.pdf"})
	if r.Chunks != 25 || r.Read != 3 || r.Cited != 2 || r.DeclaredEmpty != 1 || r.Uncovered != 23 || r.Covered() != 2 {
		t.Fatalf("report %+v", r)
	}
	if len(r.Unchunked) != 1 || r.Unchunked[0] != "b.pdf" || r.Meets(0.01) {
		t.Errorf("unchunked %v, meets %v", r.Unchunked, r.Meets(0.01))
	}
	missing := r.Missing(20)
	for _, want := range []string{
		"not chunked yet: b.pdf",
		"23 chunks not covered: chunk_003 (read; no requirement cites it and it is not declared empty), chunk_004 (lines 5-9 not read), chunk_005 (not read)",
		", and 3 more",
	} {
		if !strings.Contains(missing, want) {
			t.Errorf("missing %q, want it to hold %q", missing, want)
		}
	}
	if got := r.String(); got != "2 of 25 chunks covered" {
		t.Errorf("String %q", got)
	}
	s := r.Summary()
	if s.Covered != 2 || len(s.Empty) != 1 || s.Empty[0].Reason != "table of contents" || len(s.Uncovered) != 24 {
		t.Errorf("summary %+v", s)
	}
	full := l.Measure(document.Manifest{Chunks: man.Chunks[:2]}, map[string]bool{"chunk_001": true}, []string{"a.pdf"})
	if !full.Meets(1) || full.Share() != 1 {
		t.Errorf("full coverage %+v", full)
	}
}
