package reqstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"creator/internal/document"
	"creator/internal/output"
	"creator/internal/requirement"
	"creator/workspace"
)

// ErrNotFound is Amend's and Get's error for an id no saved requirement has.
var ErrNotFound = errors.New("no such requirement")

// CheckError is Amend's error when the changed requirement does not pass
// the checks of a saved one: nothing was written.
type CheckError struct {
	Err error
}

func (e *CheckError) Error() string { return e.Err.Error() }
func (e *CheckError) Unwrap() error { return e.Err }

var idPattern = regexp.MustCompile(`^REQ-([0-9]{3,})$`)

// FileOf is a file in the folder of requirement id: FileOf("REQ-007",
// "validation.md") is requirements/req_007/validation.md. ok is false when
// id is not a requirement id.
func FileOf(id, name string) (file string, ok bool) {
	m := idPattern.FindStringSubmatch(id)
	if m == nil {
		return "", false
	}
	return "requirements/req_" + m[1] + "/" + name, true
}

// fileOfID is the final.json of a requirement id.
func fileOfID(id string) (string, bool) { return FileOf(id, "final.json") }

// Get reads the saved requirement id.
func (s *Store) Get(id string) (requirement.Record, error) {
	file, ok := fileOfID(id)
	if !ok {
		return requirement.Record{}, fmt.Errorf("%w: %q is not a requirement id (REQ-001, REQ-002, …)", ErrNotFound, id)
	}
	data, err := s.files.ReadInternal(file)
	if errors.Is(err, fs.ErrNotExist) {
		return requirement.Record{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return requirement.Record{}, err
	}
	var rec requirement.Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return rec, fmt.Errorf("%s is not valid JSON: %v", file, err)
	}
	if rec.ID != id {
		return rec, fmt.Errorf("%s has id %s, not %s", file, rec.ID, id)
	}
	return rec, nil
}

// Amend rewrites the saved requirement id with change applied to it. The
// changed record is checked as Save checks a new one — texts on one line,
// title length, the schema, and each citation's quote found verbatim in its
// chunk — and written only when it passes; the id and the review stay as
// change leaves them.
func (s *Store) Amend(id string, change func(*requirement.Record) error) (requirement.Record, error) {
	return s.AmendThen(id, change, nil)
}

// AmendThen is Amend with commit called once the changed record passed
// its checks, before it is written: with the record as it was and as it
// will be written. An error of commit leaves the record as it was; so a
// log of changes can take each change before the record does (see write).
func (s *Store) AmendThen(id string, change func(*requirement.Record) error, commit func(before, after requirement.Record) error) (requirement.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.Get(id)
	if err != nil {
		return rec, err
	}
	before := clone(rec)
	if err := change(&rec); err != nil {
		return rec, err
	}
	checked, err := tidy(rec)
	if err != nil {
		return rec, &CheckError{err}
	}
	checked.ID, checked.Review = rec.ID, rec.Review
	if _, err := s.checkCitations(&checked); err != nil {
		return rec, &CheckError{err}
	}
	data, err := requirement.Marshal(checked)
	if err != nil {
		return rec, err
	}
	if err := requirement.Validate(data); err != nil {
		return rec, &CheckError{err}
	}
	file, _ := fileOfID(id)
	if err := s.writeRecord(file, data, commit, before, checked); err != nil {
		return rec, err
	}
	s.index = nil // the text, and so the dedup key, may have changed
	return checked, nil
}

// preparer is the file access that can write a file under a temporary
// name, flushed to disk, and put it in place later without flushing its
// folder (workspace.Files.PrepareFile).
type preparer interface {
	PrepareFile(rel string, data []byte) (*workspace.PendingFile, error)
}

// writeRecord writes a record's file after commit. With files that can prepare
// a file (preparer), the record is written and flushed under a temporary
// name while commit runs — the flushes of both wait together — and takes
// its name once commit succeeded, its folder not flushed: commit logged
// the change, flushed to disk, and the log gives it back should a power
// cut undo the rename.
func (s *Store) writeRecord(file string, data []byte, commit func(before, after requirement.Record) error, before, after requirement.Record) error {
	p, ok := s.files.(preparer)
	if commit == nil || !ok {
		if commit != nil {
			if err := commit(before, after); err != nil {
				return err
			}
		}
		_, err := s.files.WriteFile(file, data)
		return err
	}
	type prepared struct {
		file *workspace.PendingFile
		err  error
	}
	done := make(chan prepared, 1)
	go func() {
		f, err := p.PrepareFile(file, data)
		done <- prepared{f, err}
	}()
	cerr := commit(before, after)
	pf := <-done
	switch {
	case cerr != nil:
		if pf.file != nil {
			pf.file.Abort()
		}
		return cerr
	case pf.err != nil:
		return pf.err
	}
	_, err := pf.file.Commit()
	return err
}

// clone is a copy of r that shares nothing a change of it can reach.
func clone(r requirement.Record) requirement.Record {
	c := r
	c.Frameworks, c.Citations, c.Attributes = slices.Clone(r.Frameworks), slices.Clone(r.Citations), maps.Clone(r.Attributes)
	if r.Review != nil {
		rv := *r.Review
		rv.Changes = maps.Clone(rv.Changes)
		c.Review = &rv
	}
	return c
}

// Passage is a citation's quote in the context of its chunk.
type Passage struct {
	Chunk document.ManifestChunk
	// Body is the chunk's text; the quote is Body[Start:End].
	Body       string
	Start, End int
}

// Passage finds a citation's quote in its chunk, as saving it did.
func (s *Store) Passage(c requirement.Citation) (Passage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, err := loadChunks(s.files)
	if err != nil {
		return Passage{}, err
	}
	mc, body, err := ch.body(c.Chunk)
	if err != nil {
		return Passage{}, err
	}
	start, end, ok := ch.find(mc.ID, body, c.Quote)
	if !ok {
		return Passage{Chunk: mc, Body: body}, quoteNotFound(c, body)
	}
	return Passage{Chunk: mc, Body: body, Start: start, End: end}, nil
}

// RefreshOutput brings the output files up to date with the reviews of
// the requirements in them: each record of output/requirements.json takes
// the review and the reviewable fields (title, text, type, category,
// priority) of its saved requirement, and requirements.json,
// requirements.csv and summary.md (with cov, and the note a partial output
// opens with) are written again when anything changed. Which requirements
// the output holds, and in what order, stays as finalizing made it. It
// returns the output's records as they now stand; a job without output has
// nothing to refresh (nil, false).
func (s *Store) RefreshOutput(cov *output.Coverage) (recs []requirement.Record, hasOutput bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, hasOutput, err = s.readOutput()
	if err != nil || !hasOutput {
		return nil, hasOutput, err
	}
	recs, changed := s.withReviews(recs)
	if !changed {
		return recs, true, nil
	}
	ch, err := loadChunks(s.files)
	if err != nil {
		return nil, true, err
	}
	summary, _ := s.files.ReadInternal(output.SummaryFile)
	return recs, true, s.write(recs, ch, noteOf(summary), cov)
}

// readOutput reads output/requirements.json; ok is false when the job
// has none.
func (s *Store) readOutput() (recs []requirement.Record, ok bool, err error) {
	data, err := s.files.ReadInternal(output.RequirementsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if err := json.Unmarshal(data, &recs); err != nil {
		return nil, true, fmt.Errorf("%s is not valid: %v", output.RequirementsFile, err)
	}
	return recs, true, nil
}

// WithReviews returns recs, records of the output, with the review and
// the reviewable fields of their saved requirements (see RefreshOutput),
// so that a reader of the output sees every decision made, even one whose
// refresh of the output was cut off.
func (s *Store) WithReviews(recs []requirement.Record) []requirement.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	out, _ := s.withReviews(recs)
	return out
}

func (s *Store) withReviews(recs []requirement.Record) ([]requirement.Record, bool) {
	out := slices.Clone(recs)
	changed := false
	for i, r := range out {
		if next, differs := s.withReview(r); differs {
			out[i], changed = next, true
		}
	}
	return out, changed
}

// withReview is r, a record of the output, with the review and the
// reviewable fields of its saved requirement; differs says whether they
// changed it.
func (s *Store) withReview(r requirement.Record) (next requirement.Record, differs bool) {
	saved, err := s.Get(r.ID)
	if err != nil || saved.Review == nil && r.Review == nil {
		return r, false
	}
	next = r
	next.Title, next.Text, next.Type, next.Category, next.Priority, next.Review =
		saved.Title, saved.Text, saved.Type, saved.Category, saved.Priority, saved.Review
	return next, next.Title != r.Title || next.Text != r.Text || next.Type != r.Type || next.Category != r.Category ||
		next.Priority != r.Priority || !reflect.DeepEqual(next.Review, r.Review)
}

// noteOf is the note withNote put above a summary: its first line, when
// that is a quotation.
func noteOf(summary []byte) string {
	first, _, _ := strings.Cut(string(summary), "\n")
	if note, ok := strings.CutPrefix(first, "> "); ok {
		return note
	}
	return ""
}

// Reviewable are the requirements a person reviews: those of the job's
// output, with their reviews (WithReviews), or, before the job has an
// output, the requirements saved so far. fromOutput says which; problems
// name saved files that cannot be read.
func (s *Store) Reviewable() (recs []requirement.Record, fromOutput bool, problems []string, err error) {
	return s.reviewable(s.List)
}

// ReviewableOf is Reviewable with the saved requirements as List gave
// them (saved, listErr), for a caller that has read them already.
func (s *Store) ReviewableOf(saved []Entry, listErr error) (recs []requirement.Record, fromOutput bool, problems []string, err error) {
	return s.reviewable(func() ([]Entry, error) { return saved, listErr })
}

// reviewable is Reviewable; list lists the saved requirements, needed
// only before the job has an output.
func (s *Store) reviewable(list func() ([]Entry, error)) (recs []requirement.Record, fromOutput bool, problems []string, err error) {
	recs, fromOutput, err = s.readOutput()
	if err != nil || fromOutput {
		return s.WithReviews(recs), fromOutput, nil, err
	}
	entries, err := list()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil, err
	}
	for _, e := range entries {
		if e.Err != nil {
			problems = append(problems, fmt.Sprintf("%s cannot be read: %v", e.File, e.Err))
			continue
		}
		recs = append(recs, e.Record)
	}
	return recs, false, problems, nil
}

// Output reads the job's output/requirements.json, checked against the
// schema, with every review decision on its requirements (WithReviews);
// jobID names the job in the errors.
func (s *Store) Output(jobID string) ([]requirement.Record, error) {
	data, err := output.ReadValid(jobID, s.files.ReadInternal)
	if err != nil {
		return nil, err
	}
	var recs []requirement.Record
	if err := json.Unmarshal(data, &recs); err != nil {
		return nil, fmt.Errorf("job '%s': %s: %w", jobID, output.RequirementsFile, err)
	}
	return s.WithReviews(recs), nil
}

// ReviewableOne is requirement id as Reviewable gives it, read without
// the others; ErrNotFound when it is not among them.
func (s *Store) ReviewableOne(id string) (requirement.Record, error) {
	recs, fromOutput, err := s.readOutput()
	if err != nil {
		return requirement.Record{}, err
	}
	if !fromOutput {
		return s.Get(id)
	}
	for _, r := range recs {
		if r.ID == id {
			s.mu.Lock()
			defer s.mu.Unlock()
			rec, _ := s.withReview(r)
			return rec, nil
		}
	}
	return requirement.Record{}, fmt.Errorf("%w: %s is not among the requirements of the output", ErrNotFound, id)
}
