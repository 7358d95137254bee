package job

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"creator/internal/reqstore"
	"creator/internal/requirement"
	"creator/internal/transcript"
	"creator/tools"
)

// A sub-agent analyses one chunk. Its saves are staged, not written: they
// are committed in the document's order, so that requirement ids follow
// the document whatever order the sub-agents finish in. Each chunk's work
// is kept in .agent/subagents/: its transcript (<chunk>.jsonl, one attempt
// after another) and its outcome (<chunk>.outcome.json), whose state says
// how far it got:
//
//	running     a sub-agent works on it; found so after a kill, it was cut short and is redone
//	staged      finished, its saves waiting for the chunks before it
//	committing  being committed; a kill leaves it so, and the commit is finished first thing
//	committed   its requirements are saved (with ids) and its declaration is in the ledger
//	failed      finished without accounting for the chunk; it is redone when asked for again

// SubagentDir is where the sub-agents' transcripts and outcomes are kept.
const SubagentDir = ".agent/subagents"

// States of a chunk's outcome.
const (
	ChunkRunning    = "running"
	ChunkStaged     = "staged"
	ChunkCommitting = "committing"
	ChunkCommitted  = "committed"
	ChunkFailed     = "failed"
)

// ChunkOutcome is how the work on one chunk ended, or how far it is.
type ChunkOutcome struct {
	Chunk string `json:"chunk"`
	State string `json:"state"`
	// Attempt counts the sub-agents that worked on the chunk, this one
	// included.
	Attempt int `json:"attempt"`
	// Records are the staged requirements, checked, without ids.
	Records []requirement.Record `json:"requirements,omitempty"`
	// Empty is the reason the chunk was declared empty.
	Empty string `json:"empty,omitempty"`
	// Error says why the chunk is not accounted for (failed), or how a
	// sub-agent that accounted for it stopped, when not by itself.
	Error string `json:"error,omitempty"`
	// IDs are the requirements a commit saved or found saved before;
	// Duplicates counts the latter.
	IDs        []string `json:"ids,omitempty"`
	Duplicates int      `json:"duplicates,omitempty"`
	// Requests are the model calls of the attempt.
	Requests int `json:"requests,omitempty"`
}

// Cited are the chunks the outcome's requirements cite.
func (o ChunkOutcome) Cited() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range o.Records {
		for _, c := range r.Citations {
			if !seen[c.Chunk] {
				seen[c.Chunk] = true
				out = append(out, c.Chunk)
			}
		}
	}
	return out
}

func subagentTranscript(chunk string) string { return SubagentDir + "/" + chunk + ".jsonl" }
func subagentOutcome(chunk string) string    { return SubagentDir + "/" + chunk + ".outcome.json" }

// AssignChunk is what a sub-agent for chunk is given: the chunk whole,
// where it stands in its document, and note. chunk may name it in any form
// the manifest resolves.
func (j *Job) AssignChunk(chunk, note string) (tools.ChunkAssignment, error) {
	man, err := j.Manifest()
	if err != nil {
		return tools.ChunkAssignment{}, err
	}
	mc, ok := man.Lookup(chunk)
	if !ok {
		return tools.ChunkAssignment{}, noChunk(chunk, man.Chunks)
	}
	data, err := j.ws.ReadInternal(mc.File)
	if err != nil {
		return tools.ChunkAssignment{}, err
	}
	a := tools.ChunkAssignment{Document: mc.Document, Chunk: mc.ID, Section: mc.Heading, Note: note,
		Text: tools.LinesOf(mc.File, string(data))}
	for _, c := range man.Chunks {
		if c.Document != mc.Document {
			continue
		}
		a.Of++
		if c.ID == mc.ID {
			a.Index = a.Of
		}
	}
	return a, nil
}

// StartChunk records that a sub-agent starts on an assigned chunk: its
// outcome says running, the chunk's lines count as read in the coverage
// ledger (they are in the sub-agent's first message), and an earlier
// attempt's transcript is marked as left behind. It returns the staging
// of the sub-agent's saves and the journal of its transcript.
func (j *Job) StartChunk(a tools.ChunkAssignment) (*Staging, *transcript.Writer, error) {
	prev, _, err := j.ChunkOutcome(a.Chunk)
	if err != nil {
		return nil, nil, err
	}
	journal := transcript.NewWriterAt(j.ws, subagentTranscript(a.Chunk))
	if prev.Attempt > 0 {
		if err := journal.Append(transcript.Record{Type: transcript.TypeResume,
			Note: fmt.Sprintf("attempt %d starts from the beginning; attempt %d ended %s", prev.Attempt+1, prev.Attempt, prev.State)}); err != nil {
			return nil, nil, err
		}
	}
	st := &Staging{j: j, chunk: a.Chunk, file: a.Text.Path, attempt: prev.Attempt + 1}
	if err := j.writeOutcome(ChunkOutcome{Chunk: a.Chunk, State: ChunkRunning, Attempt: st.attempt}); err != nil {
		return nil, nil, err
	}
	if _, err := j.NoteRead(a.Text); err != nil {
		return nil, nil, err
	}
	return st, journal, nil
}

// Staging keeps one sub-agent's saves and declaration for its chunk
// until they are committed. It is the sub-agent's RequirementSaver and
// ChunkDeclarer, with the checks of the job's own.
type Staging struct {
	j       *Job
	chunk   string // chunk_003
	file    string // chunks/chunk_003.md
	attempt int

	mu      sync.Mutex
	records []requirement.Record
	empty   string
}

// Save checks a requirement as the store does and keeps it for the
// commit; one that repeats a requirement staged before is not kept again.
// Its provisional id is the chunk and its place: chunk_003#2.
func (s *Staging) Save(draft requirement.Record) (reqstore.Saved, error) {
	checked, err := s.j.reqs.Check(draft)
	if err != nil {
		return reqstore.Saved{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range s.records {
		if reqstore.SameRequirement(r, checked.Record) {
			return reqstore.Saved{Ref: reqstore.Ref{ID: s.provisional(i)}, Duplicate: true, Staged: true, Record: checked.Record}, nil
		}
	}
	s.records = append(s.records, checked.Record)
	checked.Ref = reqstore.Ref{ID: s.provisional(len(s.records) - 1)}
	checked.Staged = true
	return checked, nil
}

// Staged is the number of requirements staged, repeats not counted.
func (s *Staging) Staged() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.records)
}

func (s *Staging) provisional(i int) string { return fmt.Sprintf("%s#%d", s.chunk, i+1) }

// DeclareEmpty keeps the declaration that the sub-agent's chunk holds no
// requirement; another chunk is not the sub-agent's to declare.
func (s *Staging) DeclareEmpty(chunk, reason string) (tools.DeclaredEmpty, error) {
	man, err := s.j.Manifest()
	if err != nil {
		return tools.DeclaredEmpty{}, err
	}
	mc, ok := man.Lookup(chunk)
	if !ok {
		return tools.DeclaredEmpty{}, noChunk(chunk, man.Chunks)
	}
	if mc.ID != s.chunk {
		return tools.DeclaredEmpty{}, fmt.Errorf("you analyse %s only; %s is not yours to declare (cite it in a requirement if it states one)", s.chunk, mc.ID)
	}
	s.mu.Lock()
	s.empty = reason
	s.mu.Unlock()
	return tools.DeclaredEmpty{Chunk: mc.ID, File: mc.File, Reason: reason}, nil
}

// Accounted reports whether the staged work accounts for the chunk: a
// requirement cites it, or it is declared empty.
func (s *Staging) Accounted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.empty != "" {
		return true
	}
	for _, r := range s.records {
		for _, c := range r.Citations {
			if c.Chunk == s.chunk {
				return true
			}
		}
	}
	return false
}

// Finish records that the sub-agent finished: its work staged for the
// commit when it accounted for its chunk, else failed, its saves
// discarded.
func (s *Staging) Finish(requests int) (ChunkOutcome, error) {
	accounted := s.Accounted()
	s.mu.Lock()
	o := ChunkOutcome{Chunk: s.chunk, Attempt: s.attempt, Requests: requests}
	if accounted {
		o.State, o.Records, o.Empty = ChunkStaged, s.records, s.empty
	} else {
		o.State = ChunkFailed
		o.Error = "the sub-agent ended without saving a requirement that cites the chunk or declaring it empty"
	}
	s.mu.Unlock()
	return o, s.j.writeOutcome(o)
}

// Discard records that the sub-agent stopped before it finished (an
// interruption between the calls of an answer, its model failing, a
// budget): what it staged may be part of what it meant to save, so
// nothing of it is kept and the chunk is redone.
func (s *Staging) Discard(requests int, why string) (ChunkOutcome, error) {
	o := ChunkOutcome{Chunk: s.chunk, Attempt: s.attempt, Requests: requests, State: ChunkFailed, Error: why}
	return o, s.j.writeOutcome(o)
}

// CommitChunk saves a staged chunk's requirements, giving them their ids,
// and records its declaration in the ledger. A commit cut off by a kill is
// finished by the next call: the requirements saved before it are found
// again, with their ids.
func (j *Job) CommitChunk(chunk string) (ChunkOutcome, error) {
	o, ok, err := j.ChunkOutcome(chunk)
	if err != nil {
		return o, err
	}
	if !ok || (o.State != ChunkStaged && o.State != ChunkCommitting) {
		return o, fmt.Errorf("%s has no staged work to commit (%s)", chunk, o.State)
	}
	o.State = ChunkCommitting
	if err := j.writeOutcome(o); err != nil {
		return o, err
	}
	o.IDs, o.Duplicates = nil, 0
	for _, r := range o.Records {
		saved, err := j.reqs.Save(r)
		if err != nil {
			return o, fmt.Errorf("committing %s: %w", chunk, err)
		}
		if saved.Duplicate {
			o.Duplicates++
			continue
		}
		o.IDs = append(o.IDs, saved.ID)
	}
	if o.Empty != "" {
		if _, err := j.DeclareEmpty(chunk, o.Empty); err != nil {
			return o, fmt.Errorf("committing %s: %w", chunk, err)
		}
	}
	o.State = ChunkCommitted
	return o, j.writeOutcome(o)
}

// FinishCommits finishes the commits a kill cut off.
func (j *Job) FinishCommits() error {
	all, err := j.ChunkOutcomes()
	if err != nil {
		return err
	}
	for _, o := range all {
		if o.State == ChunkCommitting {
			if _, err := j.CommitChunk(o.Chunk); err != nil {
				return err
			}
		}
	}
	return nil
}

// ChunkOutcome reads the outcome of a chunk's sub-agent; ok is false when
// no sub-agent worked on it.
func (j *Job) ChunkOutcome(chunk string) (ChunkOutcome, bool, error) {
	return readOutcome(j, chunk)
}

// ChunkOutcomes reads the outcome of every chunk a sub-agent worked on, in
// the order of their names.
func (j *Job) ChunkOutcomes() ([]ChunkOutcome, error) { return readOutcomes(j) }

func (j *Job) writeOutcome(o ChunkOutcome) error {
	data, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	return j.ws.WriteInternal(subagentOutcome(o.Chunk), append(data, '\n'))
}

func readOutcome(j *Job, chunk string) (ChunkOutcome, bool, error) {
	data, err := j.ws.ReadInternal(subagentOutcome(chunk))
	if errors.Is(err, fs.ErrNotExist) {
		return ChunkOutcome{Chunk: chunk}, false, nil
	}
	if err != nil {
		return ChunkOutcome{}, false, err
	}
	var o ChunkOutcome
	if err := json.Unmarshal(data, &o); err != nil {
		return ChunkOutcome{}, false, fmt.Errorf("%s is damaged: %v", subagentOutcome(chunk), err)
	}
	return o, true, nil
}

func readOutcomes(j *Job) ([]ChunkOutcome, error) {
	names, err := j.subagentNames(".outcome.json")
	if err != nil {
		return nil, err
	}
	var out []ChunkOutcome
	for _, chunk := range names {
		o, ok, err := readOutcome(j, chunk)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, o)
		}
	}
	return out, nil
}

// subagentNames are the chunks with a file of the suffix in SubagentDir.
func (j *Job) subagentNames(suffix string) ([]string, error) {
	names, err := j.ws.Names(SubagentDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // no sub-agent has worked yet
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if chunk, ok := strings.CutSuffix(n, suffix); ok {
			out = append(out, chunk)
		}
	}
	return out, nil
}

// SubagentTranscripts reads every sub-agent's transcript, by chunk: what
// they read, and the model calls they made, which the job's totals count.
func (j *Job) SubagentTranscripts() (map[string][]transcript.Record, error) {
	names, err := j.subagentNames(".jsonl")
	if err != nil {
		return nil, err
	}
	out := map[string][]transcript.Record{}
	for _, chunk := range names {
		recs, err := transcript.LoadAt(j.ws, subagentTranscript(chunk))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", subagentTranscript(chunk), err)
		}
		out[chunk] = recs
	}
	return out, nil
}

// subagentReads are the chunk lines the sub-agents were given, from their
// transcripts' first messages.
func subagentReads(all map[string][]transcript.Record) []tools.FileLines {
	var out []tools.FileLines
	for _, recs := range all {
		for _, r := range recs {
			if r.Type != transcript.TypeMessage || r.Message == nil || r.Message.Data.Kind != tools.KindChunkAssignment {
				continue
			}
			var a tools.ChunkAssignment
			if r.Message.Data.Decode(&a) {
				out = append(out, a.Text)
			}
		}
	}
	return out
}
