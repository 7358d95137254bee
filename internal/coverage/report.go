package coverage

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"creator/internal/document"
	"creator/internal/humanize"
	"creator/internal/output"
)

// Report is the coverage of a job's documents. Its JSON form is the
// `coverage` object of `creator status --json`.
type Report struct {
	Chunks        int `json:"chunks"`
	Read          int `json:"read"` // read in full
	Cited         int `json:"cited"`
	DeclaredEmpty int `json:"declared_empty"`
	Uncovered     int `json:"uncovered"`
	// Unchunked are source documents that have no chunks yet.
	Unchunked []string `json:"unchunked,omitempty"`
	// Gaps are the uncovered chunks in document order, with what is
	// missing; Empty are the chunks declared empty, with the reasons.
	Gaps  []Gap      `json:"-"`
	Empty []Declared `json:"-"`
}

// Gap is an uncovered chunk.
type Gap struct {
	ID   string
	Read bool   // read in full
	Why  string // "lines 41-120 not read", "no requirement cites it and it is not declared empty"
}

// Declared is a chunk declared to hold no requirement.
type Declared struct {
	ID, Reason string
}

// Covered is the number of covered chunks.
func (r Report) Covered() int { return r.Chunks - r.Uncovered }

// Share is the covered part of the chunks, 0 without chunks.
func (r Report) Share() float64 {
	if r.Chunks == 0 {
		return 0
	}
	return float64(r.Covered()) / float64(r.Chunks)
}

// Meets reports whether every document is chunked and at least the share
// min of the chunks is covered.
func (r Report) Meets(min float64) bool {
	return r.Chunks > 0 && len(r.Unchunked) == 0 && r.Share() >= min
}

// String is the coverage in a few words: "78 of 80 chunks covered".
func (r Report) String() string {
	return fmt.Sprintf("%d of %s covered", r.Covered(), humanize.Plural(r.Chunks, "chunk"))
}

// Detail is the coverage with its parts and, when it is not complete,
// the first uncovered chunks.
func (r Report) Detail() string {
	if r.Chunks == 0 {
		return "no chunks yet"
	}
	line := fmt.Sprintf("%s (%d read in full, %d cited, %d declared empty)", r, r.Read, r.Cited, r.DeclaredEmpty)
	if r.Uncovered > 0 || len(r.Unchunked) > 0 {
		line += "; " + r.Missing(5)
	}
	return line
}

// Missing says what keeps the coverage from being complete, naming the
// first limit uncovered chunks and counting the rest.
func (r Report) Missing(limit int) string {
	var parts []string
	if len(r.Unchunked) > 0 {
		parts = append(parts, fmt.Sprintf("not chunked yet: %s (split with chunk_document)", strings.Join(r.Unchunked, ", ")))
	}
	if r.Chunks == 0 && len(r.Unchunked) == 0 {
		parts = append(parts, "no document is chunked yet: coverage is counted over the chunks that chunk_document makes")
	}
	if r.Uncovered > 0 {
		shown := make([]string, 0, min(limit, len(r.Gaps)))
		for _, g := range r.Gaps[:min(limit, len(r.Gaps))] {
			shown = append(shown, g.ID+" ("+g.Why+")")
		}
		more := ""
		if len(r.Gaps) > limit {
			more = fmt.Sprintf(", and %d more", len(r.Gaps)-limit)
		}
		parts = append(parts, fmt.Sprintf("%s: %s%s", humanize.Plural(r.Uncovered, "chunk")+" not covered", strings.Join(shown, ", "), more))
	}
	return strings.Join(parts, "; ")
}

// MaxGapsNamed bounds the uncovered chunks a message to the model names
// (Missing's limit).
const MaxGapsNamed = 20

// Rule is how coverage works, in one sentence for the model.
const Rule = "a chunk is covered when read_file has returned all its lines and a saved requirement cites it, or declare_chunk_empty has said why it holds none"

// Measure works out the coverage from the ledger, the chunk manifest and
// the citations of the saved requirements. documents are the job's source
// documents; one without chunks is reported as unchunked.
func (l *Ledger) Measure(man document.Manifest, cited map[string]bool, documents []string) Report {
	l.mu.Lock()
	defer l.mu.Unlock()
	var r Report
	for _, d := range documents {
		if !slices.ContainsFunc(man.Chunks, func(c document.ManifestChunk) bool { return c.Document == d }) {
			r.Unchunked = append(r.Unchunked, d)
		}
	}
	for _, c := range man.Chunks {
		r.Chunks++
		e := l.chunks[c.File]
		read := e.FullyRead()
		empty := read && e.Empty != ""
		if read {
			r.Read++
		}
		if cited[c.ID] {
			r.Cited++
		}
		if empty {
			r.DeclaredEmpty++
			r.Empty = append(r.Empty, Declared{ID: c.ID, Reason: e.Empty})
		}
		switch {
		case !read:
			r.Gaps = append(r.Gaps, Gap{ID: c.ID, Why: e.Unread()})
		case !cited[c.ID] && !empty:
			r.Gaps = append(r.Gaps, Gap{ID: c.ID, Read: true, Why: "read; no requirement cites it and it is not declared empty"})
		}
	}
	r.Uncovered = len(r.Gaps)
	return r
}

// Manifest reads the chunk manifest; none yet is an empty one.
func Manifest(files interface {
	ReadInternal(string) ([]byte, error)
}) (document.Manifest, error) {
	data, err := files.ReadInternal(document.ManifestFile)
	if errors.Is(err, fs.ErrNotExist) {
		return document.Manifest{}, nil
	}
	if err != nil {
		return document.Manifest{}, err
	}
	return document.ParseManifest(data)
}

// Summary is the coverage as summary.md reports it.
func (r Report) Summary() *output.Coverage {
	c := &output.Coverage{Chunks: r.Chunks, Covered: r.Covered(), Read: r.Read, Cited: r.Cited}
	for _, g := range r.Gaps {
		c.Uncovered = append(c.Uncovered, g.ID+" ("+g.Why+")")
	}
	for _, d := range r.Unchunked {
		c.Uncovered = append(c.Uncovered, d+" (not chunked)")
	}
	for _, e := range r.Empty {
		c.Empty = append(c.Empty, output.EmptyChunk{Chunk: e.ID, Reason: e.Reason})
	}
	return c
}
