package reqstore

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"creator/internal/humanize"
	"creator/internal/output"
	"creator/internal/requirement"
)

// Result is what Finalize wrote.
type Result struct {
	// Records are the requirements in output/requirements.json, in the
	// order of their first quote in the source.
	Records []requirement.Record
	// Repeats are the requirements left out because they repeat one
	// before them.
	Repeats []Repeat
	// Invalid are the problems of the requirements left out of a partial
	// output; empty otherwise.
	Invalid []Problem
}

// Repeat is a requirement left out because it repeats an earlier one.
type Repeat struct {
	ID string // the one left out
	Of string // the one kept
}

// ProblemKind is what is wrong with a saved requirement.
type ProblemKind int

const (
	// Unreadable: final.json cannot be read or is not JSON.
	Unreadable ProblemKind = iota
	// BadRecord: the record does not match the schema.
	BadRecord
	// MisplacedID: the record's id is not the one of its folder.
	MisplacedID
	// BadCitation: a citation does not check out against its chunk.
	BadCitation
)

// A Problem is why a saved requirement cannot go into the output.
type Problem struct {
	Kind     ProblemKind
	File     string // requirements/req_NNN/final.json
	ID       string // the record's id, once read
	Want     string // MisplacedID: the id its folder gives it
	Citation int    // BadCitation: which, from 1
	Err      error  // Unreadable, BadRecord, BadCitation: what is wrong
}

func (p Problem) String() string {
	switch p.Kind {
	case Unreadable:
		return fmt.Sprintf("%s cannot be read: %v", p.File, p.Err)
	case MisplacedID:
		return fmt.Sprintf("%s has id %s; in this folder it must be %s", p.File, p.ID, p.Want)
	case BadCitation:
		return fmt.Sprintf("%s citation %d: %v", p.ID, p.Citation, p.Err)
	}
	return fmt.Sprintf("%s: %v", p.File, p.Err)
}

// InvalidError is Finalize's error when saved requirements are invalid:
// nothing was written.
type InvalidError struct {
	Problems []Problem
}

func (e *InvalidError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return "the output was not written: " + strings.Join(parts, "; ")
}

// String says in one line what was written:
// "wrote output/requirements.json with 2 requirements (…), …; REQ-003 repeats REQ-001 and was left out".
func (r Result) String() string {
	parts := requirement.TypeCounts(r.Records)
	msg := fmt.Sprintf("wrote %s with %s", output.RequirementsFile, humanize.Plural(len(r.Records), "requirement"))
	if len(parts) > 0 {
		msg += " (" + strings.Join(parts, ", ") + ")"
	}
	msg += fmt.Sprintf(", %s and %s", output.SummaryFile, output.CSVFile)
	for _, rep := range r.Repeats {
		msg += fmt.Sprintf("; %s repeats %s and was left out", rep.ID, rep.Of)
	}
	if len(r.Invalid) > 0 {
		shown := make([]string, 0, 3)
		for _, p := range r.Invalid[:min(3, len(r.Invalid))] {
			shown = append(shown, p.String())
		}
		msg += fmt.Sprintf("; %s left out: %s", humanize.Plural(len(r.Invalid), "invalid requirement"), strings.Join(shown, "; "))
	}
	return msg
}

// Finalize checks every saved requirement again and writes
// output/requirements.json (in source order), output/summary.md and
// output/requirements.csv. Invalid requirements stop it with an
// *InvalidError, unless partialNote is given: then the output is partial,
// of a job stopped before completion, invalid requirements are left out
// and summary.md opens with the note. cov, when given, is the coverage
// summary.md reports.
func (s *Store) Finalize(partialNote string, cov *output.Coverage) (Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, err := s.loadChunks()
	if err != nil {
		return Result{}, err
	}
	saved, err := s.List()
	if err != nil {
		return Result{}, err
	}
	res, problems := collect(ch, saved)
	if len(problems) > 0 && partialNote == "" {
		return Result{}, &InvalidError{Problems: problems}
	}
	res.Invalid = problems
	if err := s.write(res.Records, ch, partialNote, cov); err != nil {
		return Result{}, err
	}
	return res, nil
}

type position struct {
	chunk, offset int
}

// collect checks the saved requirements and returns the valid ones in
// source order, leaving out repeats, and the problems of the others.
func collect(ch *chunks, saved []Entry) (Result, []Problem) {
	order := map[string]int{}
	for i, c := range ch.man.Chunks {
		order[c.ID] = i
	}
	var res Result
	var problems []Problem
	pos := map[string]position{}
	keys := map[string]string{}
	for _, e := range saved {
		ps := checkEntry(ch, &e, order, pos)
		if len(ps) > 0 {
			problems = append(problems, ps...)
			continue
		}
		key := dedupKey(e.Record)
		if first, dup := keys[key]; dup {
			res.Repeats = append(res.Repeats, Repeat{ID: e.Record.ID, Of: first})
			continue
		}
		keys[key] = e.Record.ID
		res.Records = append(res.Records, e.Record)
	}
	sort.SliceStable(res.Records, func(i, j int) bool {
		a, b := pos[res.Records[i].ID], pos[res.Records[j].ID]
		if a.chunk != b.chunk {
			return a.chunk < b.chunk
		}
		return a.offset < b.offset
	})
	return res, problems
}

// checkEntry checks one saved requirement: readable, valid, in its own
// folder, its citations found. It sets the pages of the citations to
// those of their quotes and records the position of the first quote.
func checkEntry(ch *chunks, e *Entry, order map[string]int, pos map[string]position) []Problem {
	if e.Err != nil {
		return []Problem{{Kind: Unreadable, File: e.File, Err: e.Err}}
	}
	if err := requirement.Validate(e.Raw); err != nil {
		return []Problem{{Kind: BadRecord, File: e.File, Err: err}}
	}
	if want := "REQ-" + strings.TrimPrefix(e.Folder, "req_"); e.Record.ID != want {
		return []Problem{{Kind: MisplacedID, File: e.File, ID: e.Record.ID, Want: want}}
	}
	var problems []Problem
	for i, c := range e.Record.Citations {
		checked, off, _, err := ch.check(c)
		if err != nil {
			problems = append(problems, Problem{Kind: BadCitation, File: e.File, ID: e.Record.ID, Citation: i + 1, Err: err})
			continue
		}
		if i == 0 {
			pos[e.Record.ID] = position{order[c.Chunk], off}
		}
		e.Record.Citations[i].Page = checked.Page
	}
	return problems
}

// write writes the output files of recs.
func (s *Store) write(recs []requirement.Record, ch *chunks, partialNote string, cov *output.Coverage) error {
	jsonData, err := output.JSON(recs)
	if err != nil {
		return err
	}
	// A safety net: each record was validated as read from its final.json,
	// but what is written is the record marshalled again, its pages set
	// from the quotes, and the list's own rules (unique ids) checked here
	// only; an invalid output must never be written.
	if err := output.Validate(jsonData); err != nil {
		return err
	}
	csvData, err := output.CSV(recs)
	if err != nil {
		return err
	}
	var docs []string
	for _, c := range ch.man.Chunks {
		if !slices.Contains(docs, c.Document) {
			docs = append(docs, c.Document)
		}
	}
	for _, f := range []struct {
		path string
		data []byte
	}{{output.CSVFile, csvData}, {output.SummaryFile, withNote(partialNote, output.Summary(recs, docs, cov, ch.sections(recs)))}, {output.RequirementsFile, jsonData}} {
		if _, err := s.files.WriteFile(f.path, f.data); err != nil {
			return err
		}
	}
	return nil
}

// withNote puts a note above a Markdown document.
func withNote(note string, doc []byte) []byte {
	if note == "" {
		return doc
	}
	return append([]byte("> "+note+"\n\n"), doc...)
}
