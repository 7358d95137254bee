// Package coverage keeps the program's account of how far the agent worked
// through each document: for every chunk, which of its lines read_file
// returned, and whether the agent declared it holds no requirement and why.
// With the saved requirements' citations this says which chunks are
// covered — read in full, and cited or declared empty — so that a job
// cannot complete on a document it did not work through.
package coverage

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"creator/internal/reqstore"
)

// File is where the ledger is kept, relative to the job folder.
const File = ".agent/coverage.json"

// Store reads and writes the ledger file.
type Store interface {
	ReadInternal(rel string) ([]byte, error)
	WriteInternal(rel string, data []byte) error
}

// Ledger is what the agent read of each chunk file and which chunks it
// declared empty. It is safe for concurrent use.
type Ledger struct {
	store Store // nil: kept in memory only

	mu     sync.Mutex
	chunks map[string]*Entry // by chunk file, e.g. chunks/chunk_003.md
}

// Entry is the account of one chunk file.
type Entry struct {
	// Total is the file's number of lines when it was last read.
	Total int `json:"total"`
	// Read are the line ranges read_file returned, merged and sorted.
	Read []Span `json:"read,omitempty"`
	// Empty says why the chunk holds no requirement, when the agent
	// declared so.
	Empty string `json:"empty,omitempty"`
}

// Span is a range of lines, from First to Last, counting from 1.
type Span struct {
	First int `json:"first"`
	Last  int `json:"last"`
}

// FullyRead reports whether the spans read cover every line.
func (e *Entry) FullyRead() bool {
	if e == nil || e.Total == 0 {
		return e != nil && e.Total == 0 && len(e.Read) > 0
	}
	next := 1
	for _, s := range e.Read {
		if s.First > next {
			return false
		}
		next = max(next, s.Last+1)
	}
	return next > e.Total
}

// Unread says which lines have not been read yet: "lines 41-120".
func (e *Entry) Unread() string {
	if e == nil || len(e.Read) == 0 {
		return "not read"
	}
	var gaps []string
	next := 1
	for _, s := range e.Read {
		if s.First > next {
			gaps = append(gaps, lineRange(next, s.First-1))
		}
		next = max(next, s.Last+1)
	}
	if next <= e.Total {
		gaps = append(gaps, lineRange(next, e.Total))
	}
	if len(gaps) == 0 {
		return "read in full"
	}
	return strings.Join(gaps, ", ") + " not read"
}

func lineRange(a, b int) string {
	if a == b {
		return fmt.Sprintf("line %d", a)
	}
	return fmt.Sprintf("lines %d-%d", a, b)
}

// New is an empty ledger kept in store (nil: in memory only).
func New(store Store) *Ledger {
	return &Ledger{store: store, chunks: map[string]*Entry{}}
}

// Load reads the ledger from store; ok is false when there is none or it
// cannot be read, and the ledger is then empty.
func Load(store Store) (l *Ledger, ok bool) {
	l = New(store)
	data, err := store.ReadInternal(File)
	if err != nil {
		return l, false
	}
	var saved struct {
		Chunks map[string]*Entry `json:"chunks"`
	}
	if json.Unmarshal(data, &saved) != nil || saved.Chunks == nil {
		return l, false
	}
	l.chunks = saved.Chunks
	return l, true
}

// Save writes the ledger atomically.
func (l *Ledger) Save() error {
	if l.store == nil {
		return nil
	}
	l.mu.Lock()
	data, err := json.MarshalIndent(struct {
		Chunks map[string]*Entry `json:"chunks"`
	}{l.chunks}, "", "  ")
	l.mu.Unlock()
	if err != nil {
		return err
	}
	return l.store.WriteInternal(File, append(data, '\n'))
}

// Read records that lines first to first+n-1 of a file with total lines
// were returned. A different total means the file changed: what was read
// of it before no longer counts. It reports whether the ledger changed.
func (l *Ledger) Read(file string, first, n, total int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.chunks[file]
	if e == nil {
		e = &Entry{}
		l.chunks[file] = e
	}
	if e.Total != total {
		e.Total, e.Read = total, nil
	}
	if n <= 0 && total > 0 {
		return false
	}
	before := slices.Clone(e.Read)
	e.Read = merge(append(e.Read, Span{First: first, Last: first + max(n, 1) - 1}))
	return !slices.Equal(before, e.Read)
}

// merge sorts spans and joins those that touch or overlap.
func merge(spans []Span) []Span {
	sort.Slice(spans, func(i, j int) bool { return spans[i].First < spans[j].First })
	var out []Span
	for _, s := range spans {
		if n := len(out); n > 0 && s.First <= out[n-1].Last+1 {
			out[n-1].Last = max(out[n-1].Last, s.Last)
			continue
		}
		out = append(out, s)
	}
	return out
}

// ErrNotRead refuses a declaration about a chunk not read in full.
var ErrNotRead = errors.New("not read in full")

// Declare records that a chunk holds no requirement, and why. The chunk
// must have been read in full.
func (l *Ledger) Declare(file, reason string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.chunks[file]
	if !e.FullyRead() {
		return fmt.Errorf("%w (%s)", ErrNotRead, e.Unread())
	}
	e.Empty = reason
	return nil
}

// Entry returns a copy of the account of a file.
func (l *Ledger) Entry(file string) (Entry, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.chunks[file]
	if !ok {
		return Entry{}, false
	}
	c := *e
	c.Read = slices.Clone(e.Read)
	return c, true
}

// Entries returns a copy of the account of every file, by file.
func (l *Ledger) Entries() map[string]Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]Entry, len(l.chunks))
	for f, e := range l.chunks {
		c := *e
		c.Read = slices.Clone(e.Read)
		out[f] = c
	}
	return out
}

// Cited are the chunks saved requirements cite, of the entries of
// reqstore.List; an entry that cannot be read cites none.
func Cited(saved []reqstore.Entry) map[string]bool {
	cited := map[string]bool{}
	for _, e := range saved {
		if e.Err != nil {
			continue
		}
		for _, c := range e.Record.Citations {
			cited[c.Chunk] = true
		}
	}
	return cited
}

// Store is where the ledger is kept, nil when in memory only.
func (l *Ledger) Store() Store { return l.store }
