package job

import (
	"errors"
	"fmt"
	"strings"

	"creator/internal/coverage"
	"creator/internal/document"
	"creator/internal/llm"
	"creator/tools"
)

// The coverage of a job is measured here and nowhere else: the ledger of
// what the agent read and declared empty, the chunk manifest, and the
// chunks the saved requirements cite.

// ErrNoChunk is a chunk that does not exist; DeclareEmpty's error for one
// is errors.Is ErrNoChunk and says which chunks there are.
var ErrNoChunk = errors.New("no such chunk")

// refusal is an error of a kind (ErrNoChunk, ErrNotRead) with the whole
// message the agent reads.
type refusal struct {
	kind error
	msg  string
}

func (e refusal) Error() string        { return e.msg }
func (e refusal) Is(target error) bool { return target == e.kind }

// ErrNotRead is declaring empty a chunk not read in full; DeclareEmpty's
// error for one says which lines are unread.
var ErrNotRead = coverage.ErrNotRead

// Coverage measures how far the job's documents are covered: its ledger
// against the chunk manifest, the chunks the saved requirements cite and
// the documents of job.json. It is the measure that decides.
func (j *Job) Coverage() (coverage.Report, error) {
	cited, err := j.Cited()
	if err != nil {
		return coverage.Report{}, err
	}
	j.mu.Lock()
	ledger := j.ledgerLocked()
	j.mu.Unlock()
	return j.measure(ledger, cited)
}

// measure measures a ledger against the job's chunk manifest and
// documents and the chunks cited: Coverage with the job's ledger,
// View.Coverage with the one on disk.
func (j *Job) measure(ledger *coverage.Ledger, cited map[string]bool) (coverage.Report, error) {
	info, err := j.Info()
	if err != nil {
		return coverage.Report{}, err
	}
	man, err := j.Manifest()
	if err != nil {
		return coverage.Report{}, err
	}
	return ledger.Measure(man, cited, info.InputNames()), nil
}

// MeasureWith measures the ledger against a manifest, the chunks cited
// and the documents as the caller last read them: the figures a progress
// display keeps up between calls without reading the folder.
func (j *Job) MeasureWith(man document.Manifest, cited map[string]bool, documents []string) coverage.Report {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.ledgerLocked().Measure(man, cited, documents)
}

// Cited are the chunks the saved requirements cite.
func (j *Job) Cited() (map[string]bool, error) {
	saved, err := j.reqs.List()
	if err != nil {
		return nil, err
	}
	return coverage.Cited(saved), nil
}

// ledgerLocked is the job's coverage ledger, read from the folder the
// first time it is needed. j.mu is held.
func (j *Job) ledgerLocked() *coverage.Ledger {
	if j.ledger == nil {
		j.ledger, _ = coverage.Load(j.ws.Internal)
	}
	return j.ledger
}

// Manifest reads the chunk manifest; none yet is an empty one.
func (j *Job) Manifest() (document.Manifest, error) { return coverage.Manifest(j.ws.Internal) }

// RebuildCoverage makes the ledger what the conversations say was read and
// declared empty, and writes it: what the agent read is in the transcript
// even when a kill came before the ledger was written. A run calls it with
// the conversation it resumes (none for a new job). The sub-agents'
// reads are in their transcripts, and the chunks they declared empty in
// the outcomes committed.
func (j *Job) RebuildCoverage(msgs []llm.Message) error {
	subs, err := j.SubagentTranscripts()
	if err != nil {
		return err
	}
	outcomes, err := j.ChunkOutcomes()
	if err != nil {
		return err
	}
	man, err := j.Manifest()
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.ledger = coverage.New(j.ws.Internal)
	for _, lines := range subagentReads(subs) {
		noteRead(j.ledger, lines)
	}
	replay(j.ledger, msgs)
	for _, o := range outcomes {
		if mc, ok := man.Find(o.Chunk); ok && o.State == ChunkCommitted && o.Empty != "" {
			_ = j.ledger.Declare(mc.File, o.Empty)
		}
	}
	return j.ledger.Save()
}

// NoteRead records what read_file returned of a file: for a chunk, the
// lines it has now been read to. It reports whether the ledger changed.
func (j *Job) NoteRead(lines tools.FileLines) (bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !noteRead(j.ledgerLocked(), lines) {
		return false, nil
	}
	return true, j.ledger.Save()
}

// DeclareEmpty records that a chunk read in full holds no requirement, and
// why. chunk may name the chunk in any form the manifest resolves
// (chunk_003, chunks/chunk_003.md, 3).
func (j *Job) DeclareEmpty(chunk, reason string) (tools.DeclaredEmpty, error) {
	man, err := j.Manifest()
	if err != nil {
		return tools.DeclaredEmpty{}, err
	}
	mc, ok := man.Lookup(chunk)
	if !ok {
		return tools.DeclaredEmpty{}, noChunk(chunk, man.Chunks)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	err = j.ledgerLocked().Declare(mc.File, reason)
	if errors.Is(err, coverage.ErrNotRead) {
		e, _ := j.ledger.Entry(mc.File)
		return tools.DeclaredEmpty{}, refusal{ErrNotRead, fmt.Sprintf("%s is not read in full yet (%s): read it with read_file(path=%q) first, then declare it empty if it holds no requirement", mc.ID, e.Unread(), mc.File)}
	} else if err != nil {
		return tools.DeclaredEmpty{}, err
	}
	if err := j.ledger.Save(); err != nil {
		return tools.DeclaredEmpty{}, err
	}
	return tools.DeclaredEmpty{Chunk: mc.ID, File: mc.File, Reason: reason}, nil
}

// noChunk is the refusal of a chunk name the manifest does not know.
func noChunk(chunk string, chunks []document.ManifestChunk) error {
	if len(chunks) == 0 {
		return refusal{ErrNoChunk, fmt.Sprintf("chunk %q does not exist: there are no chunks yet; split the document with chunk_document first", chunk)}
	}
	return refusal{ErrNoChunk, fmt.Sprintf("chunk %q does not exist; the chunks are %s to %s", chunk, chunks[0].ID, chunks[len(chunks)-1].ID)}
}

// noteRead records lines read of a chunk file in a ledger.
func noteRead(ledger *coverage.Ledger, lines tools.FileLines) bool {
	if !strings.HasPrefix(lines.Path, "chunks/") {
		return false
	}
	return ledger.Read(lines.Path, lines.First, len(lines.Lines), lines.Total)
}

// replay rebuilds a ledger from a conversation's tool results: the chunk
// lines read_file returned and the chunks declared empty, in order.
func replay(ledger *coverage.Ledger, msgs []llm.Message) {
	for _, m := range msgs {
		if m.Role != llm.RoleTool || m.Data.Failed {
			continue
		}
		switch m.ToolName {
		case "read_file":
			var lines tools.FileLines
			if m.Data.Decode(&lines) {
				noteRead(ledger, lines)
			}
		case "declare_chunk_empty":
			var d tools.DeclaredEmpty
			if m.Data.Decode(&d) {
				_ = ledger.Declare(d.File, d.Reason)
			}
		}
	}
}
