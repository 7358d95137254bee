// Package index is the full-text index of a job folder: ranked search
// (BM25) over every text file, by passages of lines so that a hit names
// path:line. The workspace reports each write, edit and delete, so the
// index is current without rescanning; on open, files changed while no
// process held the job are indexed again, and a missing or damaged index is
// rebuilt.
package index

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Dir is where a job's index lives, relative to the job folder.
const Dir = ".agent/index"

// version is written into the index; an index of another version (another
// mapping or passage layout) is rebuilt.
const version = "creator-index-3"

const versionKey = "creator_version"

// Bounds of what is indexed.
const (
	maxFileBytes    = 16 << 20
	passageBytes    = 1000 // a passage ends after this many bytes …
	passageMaxLines = 25   // … or this many lines
	batchFiles      = 64
	// batchBytes bounds the text of one batch as well: a batch is
	// analysed in one piece, holding its text and terms in memory, and
	// an interrupt waits for it.
	batchBytes = 4 << 20
	// filePartBytes bounds the text of one file put in a batch at once:
	// a file of 16 MB in parts of 4 MB, written one after the other, still
	// took 690 MB (270 MB in parts of 1 MB, in twice the time).
	filePartBytes = 1 << 20
)

// fileRecord is what the index knows of a file.
type fileRecord struct {
	size     int64
	mtime    int64 // nanoseconds
	passages int
	// hashes are the content hashes of the passages, which key their
	// vectors.
	hashes []string
}

// SyncStats says what Open did to bring the index up to date.
type SyncStats struct {
	Rebuilt bool   // the index was missing, damaged or of another version
	Reason  string // why it was rebuilt
	Indexed int    // files indexed again (new or changed)
	Removed int    // files gone from the folder
	Files   int    // files in the index now
}

// Index is the open index of one job folder. It is safe for concurrent use.
type Index struct {
	fsys    fs.FS
	dir     string // absolute path of the index
	bi      bleve.Index
	en, de  analysis.Analyzer
	mapping mapping.IndexMapping

	mu    sync.Mutex
	files map[string]fileRecord
	// dirty holds files changed and not indexed yet, or whose indexing
	// failed; they are indexed before the next search.
	dirty map[string]bool
	stats SyncStats

	// emb embeds passages for semantic search; nil: keyword search only.
	emb Embedder
	vec *vectorStore
	// unembedded holds, by file, the texts of its passages that have no
	// vector yet, by content hash; they are embedded before the next
	// semantic search.
	unembedded map[string]map[string]string

	fileIndexed func(rel string) // Options.fileIndexed
}

// Options tune how an index is kept on disk. The zero value suits a job.
type Options struct {
	// PersistAtOnce writes each batch to disk at once, without the nap in
	// which small batches are gathered (see defaultPersisterNap), so that
	// closing does not wait for it: for an index closed soon after it is
	// written, as in tests.
	PersistAtOnce bool
	// Embedder, when set, embeds every passage for semantic and hybrid
	// search; its vectors are kept with the index.
	Embedder Embedder

	// fileIndexed, when set, hears of each file put in a batch by the
	// initial indexing; for tests that count the work done after a
	// cancellation.
	fileIndexed func(rel string)
}

// Open opens the index of the job folder jobDir (reading the files through
// fsys, the folder itself), rebuilding it when it is missing, damaged or of
// another version, and brings it up to date with the files. Bringing it up
// to date stops with ctx's error when ctx ends.
func Open(ctx context.Context, jobDir string, fsys fs.FS) (*Index, error) {
	return OpenWith(ctx, jobDir, fsys, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, jobDir string, fsys fs.FS, opts Options) (*Index, error) {
	x := &Index{fsys: fsys, dir: filepath.Join(jobDir, filepath.FromSlash(Dir)), files: map[string]fileRecord{}, dirty: map[string]bool{}, unembedded: map[string]map[string]string{}, emb: opts.Embedder, fileIndexed: opts.fileIndexed}
	reason := ""
	bi, err := openExisting(x.dir, opts)
	switch {
	case errors.Is(err, bleve.ErrorIndexPathDoesNotExist) || errors.Is(err, fs.ErrNotExist):
		reason = "no index yet"
	case err != nil:
		reason = "the index could not be opened: " + err.Error()
	}
	if reason != "" {
		if bi, err = create(x.dir, opts); err != nil {
			return nil, fmt.Errorf("cannot create the search index: %w", err)
		}
	}
	x.bi = bi
	x.mapping = bi.Mapping()
	if x.en = x.mapping.AnalyzerNamed(analyzerEN); x.en == nil {
		bi.Close()
		return nil, errors.New("the search index has no English analyser")
	}
	x.de = x.mapping.AnalyzerNamed(analyzerDE)
	stats, err := x.sync(ctx)
	if err != nil && reason == "" && ctx.Err() == nil {
		// Damage that shows only when reading: start again once.
		bi.Close()
		if bi, err = create(x.dir, opts); err != nil {
			return nil, fmt.Errorf("cannot create the search index: %w", err)
		}
		x.bi, x.mapping, x.files, x.unembedded = bi, bi.Mapping(), map[string]fileRecord{}, map[string]map[string]string{}
		reason = "the index could not be read: " + err.Error()
		stats, err = x.sync(ctx)
	}
	if err != nil {
		bi.Close()
		return nil, fmt.Errorf("cannot index the job folder: %w", err)
	}
	stats.Rebuilt, stats.Reason = reason != "", reason
	x.stats = stats
	if x.emb != nil {
		x.loadVectors()
	}
	return x, nil
}

// defaultPersisterNap is how long scorch waits to gather small batches
// before it writes them to disk: persisting every small batch at once
// competes with the next write for the CPU. Closing waits for it.
const defaultPersisterNap = 500 // milliseconds

func runtimeConfig(opts Options) map[string]any {
	persisterNap := defaultPersisterNap
	if opts.PersistAtOnce {
		persisterNap = 0
	}
	return map[string]any{
		// A batch returns once it is searchable; it reaches the disk soon
		// after. A crash in between loses only what Open indexes again.
		"unsafe_batch": true,
		// Never wait for the lock of another process: the job's lock rules
		// that out, and a stale lock must not hang the program.
		"bolt_timeout":           "2s",
		"scorchPersisterOptions": map[string]any{"persisterNapTimeMSec": persisterNap, "persisterNapUnderNumFiles": 100000},
	}
}

// openExisting opens the index at dir and checks its version. bleve can
// panic on damaged files; that is an error here.
func openExisting(dir string, opts Options) (bi bleve.Index, err error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			bi, err = nil, fmt.Errorf("damaged index: %v", r)
		}
	}()
	bi, err = bleve.OpenUsing(dir, runtimeConfig(opts))
	if err != nil {
		return nil, err
	}
	v, err := bi.GetInternal([]byte(versionKey))
	if err != nil || string(v) != version {
		bi.Close()
		return nil, fmt.Errorf("index version %q, want %q", v, version)
	}
	return bi, nil
}

// create makes a new, empty index at dir, replacing whatever is there.
func create(dir string, opts Options) (bleve.Index, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	m, err := newMapping()
	if err != nil {
		return nil, err
	}
	bi, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, runtimeConfig(opts))
	if err != nil {
		return nil, err
	}
	// The mapping and the version reach the disk before anything else, so
	// that a crash leaves an index that opens.
	if err := flush(bi); err != nil {
		bi.Close()
		return nil, err
	}
	return bi, nil
}

// flush writes the version and waits until it, and every batch before it,
// is on disk: batches return before they are (unsafe_batch), and closing
// the index does not wait for them.
func flush(bi bleve.Index) error {
	done := make(chan error, 1)
	b := bi.NewBatch()
	b.SetInternal([]byte(versionKey), []byte(version))
	b.SetPersistedCallback(func(err error) { done <- err })
	if err := bi.Batch(b); err != nil {
		return err
	}
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		return errors.New("the search index was not written to disk within 30 seconds")
	}
}

// Stats says what Open did.
func (x *Index) Stats() SyncStats { return x.stats }

// Close writes what is pending and closes the index.
func (x *Index) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.bi == nil {
		return nil
	}
	x.refreshDirty()
	err := flush(x.bi)
	if cerr := x.bi.Close(); err == nil {
		err = cerr
	}
	if x.vec != nil {
		if cerr := x.vec.close(); err == nil {
			err = cerr
		}
	}
	x.bi = nil
	return err
}

// Indexable reports whether a path of the job folder belongs in the index:
// not the job's machine state, not a temporary file.
func Indexable(rel string) bool {
	rel = path.Clean(rel)
	if rel == ".agent" || strings.HasPrefix(rel, ".agent/") || rel == "." || strings.HasPrefix(rel, "../") {
		return false
	}
	base := path.Base(rel)
	if strings.Contains(base, ".creator-tmp-") {
		return false
	}
	switch strings.ToLower(path.Ext(base)) {
	case ".pdf", ".docx", ".doc", ".xlsx", ".zip", ".gz", ".png", ".jpg", ".jpeg", ".gif", ".bolt", ".zap":
		return false
	}
	return true
}

// maxDirty is how many changed files wait for the next search before they
// are indexed at once.
const maxDirty = 256

// FileChanged notes a file written; the workspace calls it. The files
// changed are indexed in one batch before the next search (or when many
// wait, or at Close): a job writes many files between two searches — a
// sub-agents' commit hundreds of requirements — and a batch per file cost
// more than the rest of the write.
func (x *Index) FileChanged(rel string) {
	if !Indexable(rel) {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.bi == nil {
		return
	}
	x.dirty[path.Clean(rel)] = true
	if len(x.dirty) >= maxDirty {
		x.refreshDirty()
	}
}

// FileRemoved drops a deleted file (or the files of a deleted folder).
func (x *Index) FileRemoved(rel string) {
	if !Indexable(rel) {
		return
	}
	rel = path.Clean(rel)
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.bi == nil {
		return
	}
	b := x.bi.NewBatch()
	for p := range x.files {
		if p == rel || strings.HasPrefix(p, rel+"/") {
			x.deleteFile(b, p)
		}
	}
	if x.bi.Batch(b) != nil {
		x.dirty[rel] = true
	}
}

// refreshDirty indexes the files changed since the last search, and tries
// again those whose indexing failed.
func (x *Index) refreshDirty() {
	if len(x.dirty) == 0 {
		return
	}
	b := x.bi.NewBatch()
	spilled := true // every part of the batch written so far was written
	spill := func() error {
		err := x.bi.Batch(b)
		b.Reset()
		spilled = spilled && err == nil
		return err
	}
	var done []string
	for p := range x.dirty {
		if err := x.addFile(b, p, spill); err == nil {
			done = append(done, p)
		}
	}
	if x.bi.Batch(b) == nil && spilled {
		for _, p := range done {
			delete(x.dirty, p)
		}
	}
}

// addFile puts a file's passages and record into the batch, replacing what
// the index had; a file that is gone or not text is taken out. When the
// passages put in reach filePartBytes, spill writes the batch and empties it:
// a batch is analysed in one piece, and one file of 16 MB (a document
// written as one line: 16,000 passages) took 1.5 GB. The record goes in
// last, so a file cut off between two parts by a crash has none, and is
// indexed again.
func (x *Index) addFile(b *bleve.Batch, rel string, spill func() error) error {
	fi, err := fs.Stat(x.fsys, rel)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.Mode().IsRegular()) {
		// Gone, or a folder: whatever the index holds under the path goes.
		for p := range x.files {
			if p == rel || strings.HasPrefix(p, rel+"/") {
				x.deleteFile(b, p)
			}
		}
		return nil
	}
	if err != nil {
		return err
	}
	text, ok, err := readText(x.fsys, rel, fi.Size())
	if err != nil {
		return err
	}
	if !ok {
		x.deleteFile(b, rel)
		return nil
	}
	ps := passages(text)
	size := 0
	for i, p := range ps {
		if err := b.Index(passageID(rel, i), map[string]any{fieldPath: rel, "text": p.text}); err != nil {
			return err
		}
		if size += len(p.text); size >= filePartBytes {
			if err := spill(); err != nil {
				return err
			}
			size = 0
		}
	}
	hashes := passageHashes(ps)
	old, known := x.files[rel]
	if !known {
		// Passages without a record can only be left by an older layout;
		// find them to be sure none outlives the file's new text.
		ids, err := x.passageIDs(rel)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if _, i, ok := parsePassageID(id); ok && i >= len(ps) {
				b.Delete(id)
			}
		}
	}
	for i := len(ps); i < old.passages; i++ {
		b.Delete(passageID(rel, i))
	}
	rec := fileRecord{size: fi.Size(), mtime: fi.ModTime().UnixNano(), passages: len(ps), hashes: hashes}
	b.SetInternal(recordKey(rel), rec.encode())
	x.files[rel] = rec
	if x.emb != nil {
		x.noteUnembedded(rel, ps, hashes)
	}
	return nil
}

func (x *Index) deleteFile(b *bleve.Batch, rel string) {
	old, ok := x.files[rel]
	if !ok {
		return
	}
	for i := range old.passages {
		b.Delete(passageID(rel, i))
	}
	b.DeleteInternal(recordKey(rel))
	delete(x.files, rel)
	delete(x.unembedded, rel)
}

func passageID(rel string, i int) string { return "p" + strconv.Itoa(i) + ":" + rel }

// A file's record is kept as an internal value of the index, written in
// the same batch as its passages: it costs no field in the segment that
// each write builds.
func recordKey(rel string) []byte { return []byte("f:" + rel) }

func (r fileRecord) encode() []byte {
	s := fmt.Sprintf("%d %d %d", r.size, r.mtime, r.passages)
	if len(r.hashes) > 0 {
		s += " " + hex.EncodeToString([]byte(strings.Join(r.hashes, "")))
	}
	return []byte(s)
}

// decodeRecord reads a record; one written before passages had hashes
// has none.
func decodeRecord(data []byte) (fileRecord, bool) {
	var r fileRecord
	fields := strings.Fields(string(data))
	if len(fields) != 3 && len(fields) != 4 {
		return r, false
	}
	size, err1 := strconv.ParseInt(fields[0], 10, 64)
	mtime, err2 := strconv.ParseInt(fields[1], 10, 64)
	n, err3 := strconv.Atoi(fields[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return r, false
	}
	r.size, r.mtime, r.passages = size, mtime, n
	if len(fields) == 4 {
		raw, err := hex.DecodeString(fields[3])
		if err != nil || len(raw) != r.passages*hashBytes {
			return r, false
		}
		for i := range r.passages {
			r.hashes = append(r.hashes, string(raw[i*hashBytes:(i+1)*hashBytes]))
		}
	}
	return r, true
}

// passageIDs finds every passage of a file in the index.
func (x *Index) passageIDs(rel string) ([]string, error) {
	q := query.NewTermQuery(rel)
	q.SetField(fieldPath)
	res, err := x.bi.Search(bleve.NewSearchRequestOptions(q, 100000, 0, false))
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(res.Hits))
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	return ids, nil
}

// parsePassageID returns the path and passage number of a passage id.
func parsePassageID(id string) (string, int, bool) {
	n, rel, ok := strings.Cut(strings.TrimPrefix(id, "p"), ":")
	i, err := strconv.Atoi(n)
	if !ok || err != nil || !strings.HasPrefix(id, "p") {
		return "", 0, false
	}
	return rel, i, true
}

// sync loads the file records and indexes again every file that changed
// since, and drops the files that are gone.
func (x *Index) sync(ctx context.Context) (SyncStats, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	var st SyncStats
	recs, err := x.loadRecords()
	if err != nil {
		return st, err
	}
	x.files = recs
	seen := map[string]bool{}
	b := x.bi.NewBatch()
	pending, pendingBytes := 0, int64(0)
	flush := func() error {
		if b.Size() == 0 {
			return nil
		}
		err := x.bi.Batch(b)
		b.Reset()
		pending, pendingBytes = 0, 0
		return err
	}
	err = fs.WalkDir(x.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable folder is left out, not fatal
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if !Indexable(p) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		seen[p] = true
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if rec, ok := recs[p]; ok && rec.size == fi.Size() && rec.mtime == fi.ModTime().UnixNano() {
			return nil
		}
		// A large file's passages are written as they fill a batch.
		if err := x.addFile(b, p, flush); err != nil {
			x.dirty[p] = true
			return nil
		}
		st.Indexed++
		pending++
		pendingBytes += fi.Size()
		if x.fileIndexed != nil {
			x.fileIndexed(p)
		}
		if pending >= batchFiles || pendingBytes >= batchBytes {
			return flush()
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	for p := range recs {
		if !seen[p] {
			x.deleteFile(b, p)
			st.Removed++
			pending++
		}
	}
	if err := flush(); err != nil {
		return st, err
	}
	st.Files = len(x.files)
	return st, nil
}

// loadRecords reads the record of every file with passages in the index.
// A file without passages (an empty one) has no entry in the path
// dictionary; it is simply indexed again.
func (x *Index) loadRecords() (map[string]fileRecord, error) {
	recs := map[string]fileRecord{}
	dict, err := x.bi.FieldDict(fieldPath)
	if err != nil {
		return nil, err
	}
	defer dict.Close()
	for {
		e, err := dict.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		data, err := x.bi.GetInternal(recordKey(e.Term))
		if err != nil {
			return nil, err
		}
		if r, ok := decodeRecord(data); ok {
			recs[e.Term] = r
		} else {
			recs[e.Term] = fileRecord{mtime: -1} // unknown: indexed again
		}
	}
	return recs, nil
}
