package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/blevesearch/bleve/v2"
)

// folder is a job folder with a few files.
func folder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "chunks/chunk_001.md", "Intro line.\nThe retention period is ten years.\n")
	write(t, dir, "notes/document.md", "Profile: a German standard about Protokollierung.\n")
	write(t, dir, "input/doc.pdf", "%PDF-1.4 binary\x00\x01")
	write(t, dir, ".agent/transcript.jsonl", `{"retention":"period"}`+"\n")
	return dir
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, dir string) *Index {
	t.Helper()
	// Tests close often; the benchmarks keep the default.
	x, err := OpenWith(context.Background(), dir, os.DirFS(dir), Options{PersistAtOnce: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

func paths(t *testing.T, x *Index, q string) []string {
	t.Helper()
	res, err := x.Search(context.Background(), Query{Text: q, Limit: MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Path)
	}
	return out
}

func TestOpenIndexesTheFolderAndKeepsItAcrossOpens(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	x := open(t, dir)
	if st := x.Stats(); !st.Rebuilt || st.Indexed != 2 || st.Files != 2 {
		t.Fatalf("first open: %+v (the PDF and .agent/ are not indexed)", st)
	}
	if got := paths(t, x, "retention"); len(got) != 1 || got[0] != "chunks/chunk_001.md" {
		t.Fatalf("hits %v", got)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	y := open(t, dir)
	if st := y.Stats(); st.Rebuilt || st.Indexed != 0 || st.Removed != 0 || st.Files != 2 {
		t.Fatalf("second open indexed again: %+v", st)
	}
	if got := paths(t, y, "Protokollierung"); len(got) != 1 {
		t.Fatalf("hits after reopening %v", got)
	}
}

func TestFilesChangedBehindTheIndexAreIndexedOnOpen(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	x := open(t, dir)
	x.Close()
	// A person edits, adds and deletes files while no process holds the job.
	write(t, dir, "chunks/chunk_001.md", "The archive period is six years.\n")
	later := time.Now().Add(time.Second)
	os.Chtimes(filepath.Join(dir, "chunks", "chunk_001.md"), later, later)
	write(t, dir, "notes/new.md", "A new note on encryption.\n")
	os.Remove(filepath.Join(dir, "notes", "document.md"))

	y := open(t, dir)
	if st := y.Stats(); st.Rebuilt || st.Indexed != 2 || st.Removed != 1 {
		t.Errorf("stats %+v", st)
	}
	for q, want := range map[string]int{"retention": 0, "archive six": 1, "encryption": 1, "Protokollierung": 0} {
		if got := paths(t, y, q); len(got) != want {
			t.Errorf("%q: hits %v, want %d", q, got, want)
		}
	}
}

func TestMissingOrDamagedIndexIsRebuilt(t *testing.T) {
	t.Parallel()
	for name, damage := range map[string]func(dir string){
		"deleted": func(dir string) { os.RemoveAll(filepath.Join(dir, ".agent", "index")) },
		"garbage": func(dir string) {
			idx := filepath.Join(dir, ".agent", "index")
			filepath.Walk(idx, func(p string, fi os.FileInfo, err error) error {
				if err == nil && !fi.IsDir() {
					os.WriteFile(p, []byte("not an index"), 0o644)
				}
				return nil
			})
		},
		"empty folder": func(dir string) {
			idx := filepath.Join(dir, ".agent", "index")
			os.RemoveAll(idx)
			os.MkdirAll(idx, 0o755)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := folder(t)
			open(t, dir).Close()
			damage(dir)
			y := open(t, dir)
			if st := y.Stats(); !st.Rebuilt || st.Files != 2 {
				t.Errorf("stats %+v", st)
			}
			if got := paths(t, y, "retention period"); len(got) != 1 {
				t.Errorf("hits %v", got)
			}
		})
	}
}

func TestAnotherVersionIsRebuilt(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	open(t, dir).Close()
	// An index left by an older release.
	bi, err := bleve.Open(filepath.Join(dir, ".agent", "index"))
	if err != nil {
		t.Fatal(err)
	}
	b := bi.NewBatch()
	b.SetInternal([]byte(versionKey), []byte("creator-index-0"))
	persisted := make(chan error, 1)
	b.SetPersistedCallback(func(err error) { persisted <- err })
	if err := bi.Batch(b); err != nil {
		t.Fatal(err)
	}
	if err := <-persisted; err != nil {
		t.Fatal(err)
	}
	bi.Close()
	if st := open(t, dir).Stats(); !st.Rebuilt || !strings.Contains(st.Reason, "version") {
		t.Errorf("stats %+v", st)
	}
}

func TestChangesAndRemovals(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	x := open(t, dir)
	write(t, dir, "notes/a/b.md", "nested note about keys\n")
	x.FileChanged("notes/a/b.md")
	write(t, dir, ".agent/results/c1.txt", "keys keys keys\n")
	x.FileChanged(".agent/results/c1.txt")
	if got := paths(t, x, "keys"); len(got) != 1 || got[0] != "notes/a/b.md" {
		t.Fatalf("hits %v", got)
	}
	// A folder removed at once takes its files with it.
	os.RemoveAll(filepath.Join(dir, "notes", "a"))
	x.FileRemoved("notes/a")
	if got := paths(t, x, "keys"); len(got) != 0 {
		t.Fatalf("hits after removing the folder %v", got)
	}
	// A file that turns binary leaves the index.
	write(t, dir, "chunks/chunk_001.md", "retention\x00\x00")
	x.FileChanged("chunks/chunk_001.md")
	if got := paths(t, x, "retention"); len(got) != 0 {
		t.Fatalf("binary file still found: %v", got)
	}
}

func TestFailedUpdatesAreRetriedBeforeSearch(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	fsys := &failingFS{FS: os.DirFS(dir), fail: map[string]bool{}}
	x, err := OpenWith(context.Background(), dir, fsys, Options{PersistAtOnce: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	// A file that cannot be read is not indexed; once it can, the next
	// search takes it in.
	write(t, dir, "notes/locked.md", "sealed envelope\n")
	fsys.set("notes/locked.md", true)
	x.FileChanged("notes/locked.md")
	if !x.dirty["notes/locked.md"] {
		t.Fatal("the failure was not kept")
	}
	if got := paths(t, x, "envelope"); len(got) != 0 {
		t.Fatalf("hits while unreadable %v", got)
	}
	fsys.set("notes/locked.md", false)
	if got := paths(t, x, "envelope"); len(got) != 1 {
		t.Fatalf("hits %v", got)
	}
	if x.dirty["notes/locked.md"] {
		t.Error("the file is still marked for another try")
	}
}

// failingFS fails to open the files it is told to, as a file without read
// permission does for a user other than root.
type failingFS struct {
	fs.FS
	mu   sync.Mutex
	fail map[string]bool
}

func (f *failingFS) set(name string, fail bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail[name] = fail
}

func (f *failingFS) Open(name string) (fs.File, error) {
	f.mu.Lock()
	fail := f.fail[name]
	f.mu.Unlock()
	if fail {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return f.FS.Open(name)
}

func TestPassagesAndHitLines(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 1; i <= 60; i++ {
		b.WriteString("filler line without the word\n")
	}
	b.WriteString("here the cryptographic module is named\n")
	dir := t.TempDir()
	write(t, dir, "chunks/long.md", b.String())
	x := open(t, dir)
	res, err := x.Search(context.Background(), Query{Text: "cryptographic"})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	if h := res.Hits[0]; h.Line != 61 || h.Snippet != "here the **cryptographic** module is named" {
		t.Errorf("hit %+v", h)
	}
	ps := passages(b.String())
	n := 0
	for i, p := range ps {
		if i > 0 && p.line != ps[i-1].line+strings.Count(ps[i-1].text, "\n") {
			t.Errorf("passage %d starts at line %d", i, p.line)
		}
		n += strings.Count(p.text, "\n")
	}
	if n != 61 {
		t.Errorf("passages hold %d lines, want 61", n)
	}
}

func TestSnippetOfALongLine(t *testing.T) {
	t.Parallel()
	line := strings.Repeat("ä", 300) + " target " + strings.Repeat("ö", 300)
	i := strings.Index(line, "target")
	s := snippet(line, [][2]int{{i, i + len("target")}})
	if !strings.Contains(s, "**target**") || !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") || len([]rune(s)) > snippetChars {
		t.Errorf("snippet %q", s)
	}
	if !strings.Contains(strings.ToValidUTF8(s, "?"), "ä") || strings.Contains(strings.ToValidUTF8(s, "?"), "?") {
		t.Errorf("snippet cut inside a character: %q", s)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	t.Parallel()
	for _, r := range []fileRecord{
		{size: 6000, mtime: 1700000000123456789, passages: 2, hashes: []string{contentHash("a\n"), contentHash("b\n")}},
		{size: 0, mtime: -5, passages: 1}, // written before passages had hashes
	} {
		got, ok := decodeRecord(r.encode())
		if !ok || got.size != r.size || got.mtime != r.mtime || got.passages != r.passages || !slices.Equal(got.hashes, r.hashes) {
			t.Errorf("%q decoded as %+v, %v", r.encode(), got, ok)
		}
	}
	for _, bad := range []string{"", "1 2", "1 x 3", "1 2 3 zz", "1 2 2 00"} {
		if r, ok := decodeRecord([]byte(bad)); ok {
			t.Errorf("%q decoded as %+v", bad, r)
		}
	}
}

// A search ends with its context: a regular expression is not matched in
// further files once the caller gave up.
func TestSearchEndsWithItsContext(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{"notes/a.md": {Data: []byte("retention\n")}, "notes/b.md": {Data: []byte("retention\n")}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Scan(ctx, fsys, Query{Text: "retention", Regex: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("scan with a cancelled context: %v", err)
	}
	if _, err := (ScanOnly{FS: fsys}).Search(ctx, Query{Text: "retention", Regex: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("ScanOnly search with a cancelled context: %v", err)
	}
	res, err := Scan(context.Background(), fsys, Query{Text: "retention", Regex: true})
	if err != nil || res.Total != 2 {
		t.Errorf("scan: %+v, %v", res, err)
	}
}

// Opening ends with its context, and an index whose update was cut off so
// is kept, not taken for damaged and rebuilt.
func TestOpenEndsWithItsContext(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	if err := open(t, dir).Close(); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "notes/new.md", "Backups are encrypted.\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if x, err := OpenWith(ctx, dir, os.DirFS(dir), Options{PersistAtOnce: true}); !errors.Is(err, context.Canceled) {
		if x != nil {
			x.Close()
		}
		t.Fatalf("open with a cancelled context: %v", err)
	}
	y := open(t, dir)
	if st := y.Stats(); st.Rebuilt || st.Indexed != 1 || st.Files != 3 {
		t.Fatalf("open after the cancelled one: %+v", st)
	}
}

// A document written as one line is indexed in passages of passageBytes at
// most (its line break aside), all naming its line, which hold the line
// whole between them; a hit in one of them is on line 1 with a snippet of
// the words around it.
func TestPassagesOfOneLineAreBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; b.Len() < 200_000; i++ {
		fmt.Fprintf(&b, "Sentence %d of the one line says that records are kept. ", i)
	}
	b.WriteString("Here the cryptographic module is named.")
	line := b.String()
	text := "# Title\n\n" + line + "\nlast line\n"
	ps := passages(text)
	var joined strings.Builder
	for i, p := range ps {
		joined.WriteString(p.text)
		if len(strings.TrimSuffix(p.text, "\n")) > passageBytes {
			t.Fatalf("passage %d holds %d bytes, more than %d", i, len(p.text), passageBytes)
		}
		if strings.Contains(p.text, "Sentence") && p.line != 3 {
			t.Errorf("passage %d of the long line names line %d", i, p.line)
		}
	}
	if joined.String() != text {
		t.Error("the passages do not hold the text")
	}
	if last := ps[len(ps)-1]; last.line != 4 || last.text != "last line\n" {
		t.Errorf("the line after the long one: %+v", last)
	}

	dir := t.TempDir()
	write(t, dir, "input/one.md", text)
	x := open(t, dir)
	res, err := x.Search(context.Background(), Query{Text: "cryptographic"})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	if h := res.Hits[0]; h.Line != 3 || !strings.Contains(h.Snippet, "**cryptographic** module") || len(h.Snippet) > 2*snippetChars {
		t.Errorf("hit %+v", h)
	}
	res, err = x.Search(context.Background(), Query{Text: `records are (kept)`, Regex: true})
	if err != nil || res.Total != 1 || len(res.Hits) != 1 || res.Hits[0].Line != 3 || !strings.Contains(res.Hits[0].Snippet, "**records are kept**") {
		t.Fatalf("%v %+v", err, res)
	}
}

// A file larger than a batch is written in parts as its passages fill
// one, the record last: its first and last words are found, and the
// index opened again has it as it is, to index no more.
func TestFileLargerThanABatch(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("beginning ")
	for i := 0; b.Len() < 2*filePartBytes+filePartBytes/4; i++ {
		fmt.Fprintf(&b, "sentence %d of one long line. ", i)
	}
	b.WriteString("ending\n")
	dir := t.TempDir()
	write(t, dir, "input/one.md", b.String())
	x := open(t, dir)
	for _, w := range []string{"beginning", "ending"} {
		res, err := x.Search(context.Background(), Query{Text: w})
		if err != nil || len(res.Hits) != 1 || res.Hits[0].Line != 1 {
			t.Fatalf("%s: %v %+v", w, err, res)
		}
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	x = open(t, dir)
	if st := x.Stats(); st.Rebuilt || st.Indexed != 0 || st.Files != 1 {
		t.Errorf("opened again: %+v", st)
	}
}
