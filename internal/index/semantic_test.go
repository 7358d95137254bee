package index

import (
	"context"
	"errors"
	"hash/fnv"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"
)

// bagEmbedder embeds a text as its hashed bag of words, so that texts
// sharing words are near; it counts the texts and can fail. In the
// benchmarks it stands in for an embedding server of a model's size, so
// that the cost measured is the index's own.
type bagEmbedder struct {
	model string
	dim   int // 0: 32
	mu    sync.Mutex
	texts int
	fail  error
}

func (e *bagEmbedder) EmbeddingModel() string { return e.model }

func (e *bagEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fail != nil {
		return nil, e.fail
	}
	e.texts += len(texts)
	dim := e.dim
	if dim == 0 {
		dim = 32
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, dim)
		for _, w := range strings.Fields(strings.ToLower(t)) {
			h := fnv.New32a()
			h.Write([]byte(strings.Trim(w, ".,")))
			v[h.Sum32()%uint32(dim)]++
		}
		out[i] = v
	}
	return out, nil
}

func (e *bagEmbedder) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.texts
}

func openEmbedded(t *testing.T, dir string, e Embedder) *Index {
	t.Helper()
	x, err := OpenWith(context.Background(), dir, os.DirFS(dir), Options{PersistAtOnce: true, Embedder: e})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

func semanticFolder(t *testing.T) string {
	dir := t.TempDir()
	write(t, dir, "chunks/a.md", "The operator encrypts every nightly backup.\n")
	write(t, dir, "chunks/b.md", "Audit records are kept for ten years.\n")
	write(t, dir, "notes/c.md", "Backup media are stored off site.\n")
	return dir
}

func TestSemanticModes(t *testing.T) {
	t.Parallel()
	e := &bagEmbedder{model: "bag"}
	x := openEmbedded(t, semanticFolder(t), e)
	for _, mode := range []string{"", ModeSemantic, ModeHybrid, ModeKeyword} {
		res, err := x.Search(context.Background(), Query{Text: "encrypts nightly backup", Mode: mode})
		if err != nil {
			t.Fatalf("%q: %v", mode, err)
		}
		want := mode
		if mode == "" {
			want = ModeHybrid
		}
		if res.Mode != want || res.Note != "" || len(res.Hits) == 0 || res.Hits[0].Path != "chunks/a.md" {
			t.Errorf("%q: mode %q, note %q, hits %+v", mode, res.Mode, res.Note, res.Hits)
		}
	}
	res, err := x.Search(context.Background(), Query{Text: "backup", Mode: ModeSemantic, Prefix: "notes/"})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Path != "notes/c.md" {
		t.Errorf("within notes/: %+v, %v", res, err)
	}
	if _, err := x.Search(context.Background(), Query{Text: "backup", Mode: "fuzzy"}); err == nil {
		t.Error("an unknown mode is accepted")
	}
}

func TestSemanticVectorsAreKept(t *testing.T) {
	t.Parallel()
	dir := semanticFolder(t)
	e := &bagEmbedder{model: "bag"}
	x := openEmbedded(t, dir, e)
	if _, err := x.Search(context.Background(), Query{Text: "backup"}); err != nil {
		t.Fatal(err)
	}
	if got := e.count(); got != 4 { // three passages and the query
		t.Errorf("embedded %d texts, want 4", got)
	}
	write(t, dir, "chunks/d.md", "The operator encrypts every nightly backup.\n") // same text as a.md
	x.FileChanged("chunks/d.md")
	write(t, dir, "chunks/b.md", "Audit records are kept for twelve years.\n")
	x.FileChanged("chunks/b.md")
	if _, err := x.Search(context.Background(), Query{Text: "backup"}); err != nil {
		t.Fatal(err)
	}
	if got := e.count(); got != 6 { // b.md's new text and the query
		t.Errorf("embedded %d texts, want 6", got)
	}
	x.Close()

	x = openEmbedded(t, dir, e)
	res, err := x.Search(context.Background(), Query{Text: "twelve years", Mode: ModeSemantic})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Path != "chunks/b.md" {
		t.Fatalf("after reopening: %+v, %v", res, err)
	}
	if got := e.count(); got != 7 { // the query alone
		t.Errorf("embedded %d texts after reopening, want 7", got)
	}
	x.Close()

	other := &bagEmbedder{model: "other"}
	x = openEmbedded(t, dir, other)
	if _, err := x.Search(context.Background(), Query{Text: "backup"}); err != nil {
		t.Fatal(err)
	}
	if got := other.count(); got != 4 { // a.md and d.md share a text
		t.Errorf("another model embedded %d texts, want 4", got)
	}
}

func TestSemanticFallsBackToKeywords(t *testing.T) {
	t.Parallel()
	e := &bagEmbedder{model: "bag", fail: errors.New("connection refused")}
	x := openEmbedded(t, semanticFolder(t), e)
	res, err := x.Search(context.Background(), Query{Text: "backup", Mode: ModeSemantic})
	if err != nil || res.Mode != ModeKeyword || !strings.Contains(res.Note, "connection refused") || len(res.Hits) != 2 {
		t.Fatalf("failing server: %+v, %v", res, err)
	}
	e.mu.Lock()
	e.fail = nil
	e.mu.Unlock()
	if res, err := x.Search(context.Background(), Query{Text: "backup"}); err != nil || res.Mode != ModeHybrid || res.Note != "" {
		t.Errorf("server back: %+v, %v", res, err)
	}

	plain := open(t, semanticFolder(t))
	res, err = plain.Search(context.Background(), Query{Text: "backup", Mode: ModeSemantic})
	if err != nil || res.Mode != ModeKeyword || !strings.Contains(res.Note, "needs an embedding model") || len(res.Hits) != 2 {
		t.Errorf("without an embedder: %+v, %v", res, err)
	}
}

func TestSemanticUpgradesRecordsWithoutHashes(t *testing.T) {
	t.Parallel()
	dir := semanticFolder(t)
	x := open(t, dir)
	x.mu.Lock()
	for rel, rec := range x.files {
		rec.hashes = nil
		x.bi.SetInternal(recordKey(rel), rec.encode()) // as an older release wrote it
	}
	x.mu.Unlock()
	x.Close()

	x = openEmbedded(t, dir, &bagEmbedder{model: "bag"})
	res, err := x.Search(context.Background(), Query{Text: "ten years", Mode: ModeSemantic})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Path != "chunks/b.md" {
		t.Errorf("records without hashes: %+v, %v", res, err)
	}
}

// countingFS counts the opening of each path.
type countingFS struct {
	fs.StatFS
	mu    sync.Mutex
	opens map[string]int
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opens[name]++
	c.mu.Unlock()
	return c.StatFS.Open(name)
}

func (c *countingFS) count(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opens[name]
}

func TestSemanticReadsAFileOnce(t *testing.T) {
	t.Parallel()
	dir := semanticFolder(t)
	openCounted := func(e Embedder) (*Index, *countingFS) {
		fsys := &countingFS{StatFS: os.DirFS(dir).(fs.StatFS), opens: map[string]int{}}
		x, err := OpenWith(context.Background(), dir, fsys, Options{PersistAtOnce: true, Embedder: e})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Close() })
		return x, fsys
	}
	e := &bagEmbedder{model: "bag"}
	x, fsys := openCounted(e)
	write(t, dir, "chunks/d.md", "Keys are rotated every year.\n")
	x.FileChanged("chunks/d.md")
	if err := x.embedPending(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"chunks/a.md", "chunks/b.md", "notes/c.md", "chunks/d.md"} {
		if n := fsys.count(rel); n != 1 {
			t.Errorf("%s read %d times to index and embed it, want 1", rel, n)
		}
	}
	if got := e.count(); got != 4 {
		t.Errorf("embedded %d texts, want 4", got)
	}
	x.Close()

	// Another model: the files, unchanged, are read once for their vectors.
	other := &bagEmbedder{model: "other"}
	x, fsys = openCounted(other)
	if err := x.embedPending(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := fsys.count("chunks/a.md"); n != 1 || other.count() != 4 {
		t.Errorf("another model: a.md read %d times, %d texts embedded; want 1 and 4", n, other.count())
	}
}
