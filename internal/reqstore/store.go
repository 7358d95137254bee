// Package reqstore is the store of a job's requirements: it checks a
// requirement's citations against the chunks, gives it the next id, keeps
// it in requirements/req_NNN/final.json unless it repeats one saved before,
// and builds the output files from the saved requirements.
package reqstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"creator/internal/humanize"
	"creator/internal/requirement"
	"creator/workspace"
)

// FS is the file access the store needs. Paths are relative to the job
// folder.
type FS interface {
	// Names lists a folder, sorted.
	Names(dir string) ([]string, error)
	// ReadInternal reads a file.
	ReadInternal(rel string) ([]byte, error)
	// WriteFile creates or replaces a file, creating its folders.
	WriteFile(rel string, data []byte) (workspace.WriteResult, error)
}

// Store is the store of one job's requirements. It is safe for concurrent
// use.
type Store struct {
	files FS
	mu    sync.Mutex
	// index of the saved requirements, for finding duplicates and the next
	// id without reading every final.json on every save; rebuilt when the
	// folders in requirements/ are not the ones it knows.
	index   map[string]Ref // dedup key → requirement
	folders []string
	maxN    int
	// chunks are those of the last check, reloaded for the next.
	chunks *chunks
}

// Open returns the store of the requirements kept in files.
func Open(files FS) *Store {
	return &Store{files: files}
}

// Ref names a saved requirement.
type Ref struct {
	ID   string // REQ-001
	File string // requirements/req_001/final.json
}

// Saved is the outcome of Save.
type Saved struct {
	// Ref is the requirement saved or, for a duplicate, the one it repeats.
	Ref
	// Duplicate is set when nothing was written because the requirement
	// repeats Ref.
	Duplicate bool
	// Staged is set when the requirement is kept for a later commit,
	// which gives its id; Ref.ID is then a provisional one and Ref.File
	// is empty.
	Staged bool
	// Record is the requirement as stored (as checked, for a duplicate).
	Record requirement.Record
	// Corrections say which citation fields were stored otherwise than
	// given, in the order of the citations.
	Corrections []Correction
}

// CorrectionKind is what a Correction changed.
type CorrectionKind int

const (
	// ChunkName: a chunk named by its file or path, in another case, or by
	// its number.
	ChunkName CorrectionKind = iota
	// DocumentName: a document named by its path in input/ or in another
	// case.
	DocumentName
	// DocumentSource: a document named by the text extracted from it.
	DocumentSource
	// Page: the page of a quote, corrected to the page the quote is on.
	Page
)

// A Correction is a citation field stored otherwise than it was given.
type Correction struct {
	Kind   CorrectionKind
	Chunk  string // the citation's chunk, as stored
	Given  string // the value given: "3", "input/GoBD.pdf"; a page in decimal
	Stored string // the value stored: "chunk_003", "GoBD.pdf"; a page in decimal
}

// Save checks a requirement and keeps it under the next id, unless it
// repeats one saved before. The draft's id is ignored; its texts are put
// on one line, its frameworks deduplicated, and each citation is checked
// against its chunk: the chunk and document are stored in their canonical
// form, the quote as it stands in the source, and the page the quote is on.
func (s *Store) Save(draft requirement.Record) (Saved, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, corrections, err := s.checkLocked(draft)
	if err != nil {
		return Saved{}, err
	}
	key := dedupKey(rec)
	ref, dup, err := s.lookup(key)
	if err != nil {
		return Saved{}, err
	}
	if dup {
		return Saved{Ref: ref, Duplicate: true, Record: rec}, nil
	}
	n := s.maxN + 1
	rec.ID = fmt.Sprintf("REQ-%03d", n)
	dir := fmt.Sprintf("req_%03d", n)
	ref = Ref{ID: rec.ID, File: fileOf(dir)}
	data, err := requirement.Marshal(rec) // validated by checkLocked
	if err != nil {
		return Saved{}, err
	}
	if _, err := s.files.WriteFile(ref.File, data); err != nil {
		return Saved{}, err
	}
	s.index[key] = ref
	if i, found := slices.BinarySearch(s.folders, dir); !found {
		s.folders = slices.Insert(s.folders, i, dir)
	}
	s.maxN = n
	return Saved{Ref: ref, Record: rec, Corrections: corrections}, nil
}

// Check checks a requirement as Save does and returns it as Save would
// store it, without an id and without writing it: for saves staged before
// they are given their ids (a sub-agent's, committed in the document's
// order). Its Ref is empty and it is never a Duplicate.
func (s *Store) Check(draft requirement.Record) (Saved, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, corrections, err := s.checkLocked(draft)
	if err != nil {
		return Saved{}, err
	}
	return Saved{Record: rec, Corrections: corrections}, nil
}

// checkLocked tidies a draft, checks its citations and validates it
// against the schema; s.mu is held.
func (s *Store) checkLocked(draft requirement.Record) (requirement.Record, []Correction, error) {
	rec, err := tidy(draft)
	if err != nil {
		return rec, nil, err
	}
	corrections, err := s.checkCitations(&rec)
	if err != nil {
		return rec, nil, err
	}
	// Validated with a placeholder id: the schema wants one, the store
	// gives the real one.
	probe := rec
	probe.ID = "REQ-000"
	data, err := requirement.Marshal(probe)
	if err != nil {
		return rec, nil, err
	}
	if err := requirement.Validate(data); err != nil {
		return rec, nil, err
	}
	return rec, corrections, nil
}

// SameRequirement reports whether two checked requirements are one: the
// same text citing the same quotes, as Save finds duplicates.
func SameRequirement(a, b requirement.Record) bool { return dedupKey(a) == dedupKey(b) }

// tidy puts a draft's texts on one line (its source id and attributes
// too), deduplicates its frameworks and checks the fields the schema cannot
// explain well.
func tidy(draft requirement.Record) (requirement.Record, error) {
	rec := requirement.Record{
		SourceID: humanize.OneLine(draft.SourceID), Title: humanize.OneLine(draft.Title), Text: humanize.OneLine(draft.Text), Type: draft.Type, Category: draft.Category,
		Priority: draft.Priority, Confidence: draft.Confidence, Rationale: humanize.OneLine(draft.Rationale), Frameworks: []string{},
		Citations: draft.Citations,
	}
	var problems []string
	switch {
	case rec.Title == "":
		problems = append(problems, "title is empty")
	case utf8.RuneCountInString(rec.Title) > requirement.MaxTitleLength:
		problems = append(problems, fmt.Sprintf("title is %d characters long; keep it to %d", utf8.RuneCountInString(rec.Title), requirement.MaxTitleLength))
	}
	if rec.Text == "" {
		problems = append(problems, "text is empty")
	}
	if rec.Rationale == "" {
		problems = append(problems, "rationale is empty")
	}
	if rec.Confidence < 0 || rec.Confidence > 1 {
		problems = append(problems, "confidence must be between 0 and 1")
	}
	if len(rec.Citations) == 0 {
		problems = append(problems, "citations are empty; cite at least one quote")
	}
	if n := utf8.RuneCountInString(rec.SourceID); n > requirement.MaxSourceIDLength {
		problems = append(problems, fmt.Sprintf("source_id is %d characters long; keep it to %d: the document's id of the requirement, not its text", n, requirement.MaxSourceIDLength))
	}
	attrs, attrProblems := tidyAttributes(draft.Attributes)
	rec.Attributes, problems = attrs, append(problems, attrProblems...)
	seen := map[string]bool{}
	for _, f := range draft.Frameworks {
		if f = humanize.OneLine(f); f != "" && !seen[f] {
			seen[f] = true
			rec.Frameworks = append(rec.Frameworks, f)
		}
	}
	if len(problems) > 0 {
		return rec, errors.New(strings.Join(problems, "; "))
	}
	return rec, nil
}

// tidyAttributes puts the names and values of attributes on one line and
// leaves out those without a value; it names what is wrong with the rest.
// No attributes are nil.
func tidyAttributes(given map[string]string) (map[string]string, []string) {
	var problems []string
	out := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(given)) {
		k, v := humanize.OneLine(name), humanize.OneLine(given[name])
		switch {
		case v == "":
			continue // an empty column says nothing
		case k == "":
			problems = append(problems, fmt.Sprintf("attributes: the value %q has no name", humanize.Clip(v, 40)))
		case utf8.RuneCountInString(k) > requirement.MaxAttributeNameLength:
			problems = append(problems, fmt.Sprintf("attributes: the name %q is longer than %d characters", humanize.Clip(k, 40), requirement.MaxAttributeNameLength))
		case utf8.RuneCountInString(v) > requirement.MaxAttributeValueLength:
			problems = append(problems, fmt.Sprintf("attributes: the value of %q is %d characters long; keep it to %d", k, utf8.RuneCountInString(v), requirement.MaxAttributeValueLength))
		default:
			if _, twice := out[k]; twice {
				problems = append(problems, fmt.Sprintf("attributes: %q is given twice", k))
			}
			out[k] = v
		}
	}
	if len(out) > requirement.MaxAttributes {
		problems = append(problems, fmt.Sprintf("attributes: %d given; keep them to %d, the document's columns of the requirement", len(out), requirement.MaxAttributes))
	}
	if len(out) == 0 {
		return nil, problems
	}
	return out, problems
}

// checkCitations checks the citations of rec against the chunks and
// replaces them with their stored form.
func (s *Store) checkCitations(rec *requirement.Record) ([]Correction, error) {
	ch, err := s.loadChunks()
	if err != nil {
		return nil, err
	}
	given := rec.Citations
	rec.Citations = nil
	var corrections []Correction
	for i, c := range given {
		cit, _, cc, err := ch.check(requirement.Citation{Document: humanize.OneLine(c.Document), Chunk: humanize.OneLine(c.Chunk), Page: c.Page, Quote: c.Quote})
		if err != nil {
			if len(given) > 1 {
				return nil, fmt.Errorf("citation %d: %v", i+1, err)
			}
			return nil, err
		}
		corrections = append(corrections, cc...)
		rec.Citations = append(rec.Citations, cit)
	}
	return corrections, nil
}

// loadChunks loads the chunks for an operation, reusing what the last one
// read of files that did not change; s.mu is held.
func (s *Store) loadChunks() (*chunks, error) {
	ch, err := s.chunks.reload(s.files)
	if err == nil {
		s.chunks = ch
	}
	return ch, err
}

// findDuplicate returns the saved requirement that rec repeats: the same
// text citing the same quotes. rec's citations must be in their stored
// form, as Save leaves them.
func (s *Store) findDuplicate(rec requirement.Record) (Ref, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lookup(dedupKey(rec))
}

// lookup returns the saved requirement of a dedup key. The index is
// brought up to date with the folders first and, as a folder can keep its
// name while its final.json is removed or rewritten, a requirement found
// is read again: when its file no longer holds it, the index is rebuilt.
func (s *Store) lookup(key string) (Ref, bool, error) {
	if err := s.refreshIndex(false); err != nil {
		return Ref{}, false, err
	}
	ref, ok := s.index[key]
	if !ok || s.holds(ref, key) {
		return ref, ok, nil
	}
	if err := s.refreshIndex(true); err != nil {
		return Ref{}, false, err
	}
	ref, ok = s.index[key]
	return ref, ok, nil
}

// holds reports whether ref's file still holds the requirement of key.
func (s *Store) holds(ref Ref, key string) bool {
	data, err := s.files.ReadInternal(ref.File)
	if err != nil {
		return false
	}
	var rec requirement.Record
	return json.Unmarshal(data, &rec) == nil && rec.ID == ref.ID && dedupKey(rec) == key
}

// dedupKey identifies a requirement by its text and its quotes.
func dedupKey(r requirement.Record) string {
	parts := []string{requirement.Normalize(r.Text).Text}
	for _, c := range r.Citations {
		parts = append(parts, c.Chunk, requirement.Normalize(c.Quote).Text)
	}
	return strings.Join(parts, "\x00")
}

func fileOf(dir string) string { return "requirements/" + dir + "/final.json" }

// Entry is one saved requirement file.
type Entry struct {
	Folder string // req_001
	File   string // requirements/req_001/final.json
	Record requirement.Record
	Raw    []byte // the file's content
	Err    error  // the file cannot be read or is not JSON
}

// List reads every requirements/req_*/final.json, in folder order. A
// folder without final.json, where a requirement is being drafted, is
// left out.
func (s *Store) List() ([]Entry, error) {
	names, err := s.files.Names("requirements")
	if err != nil {
		return nil, err
	}
	return s.entries(names), nil
}

// entries reads the final.json of the req_* folders among names, the
// names in requirements/.
func (s *Store) entries(names []string) []Entry {
	var out []Entry
	for _, name := range names {
		if !strings.HasPrefix(name, "req_") {
			continue
		}
		e := Entry{Folder: name, File: fileOf(name)}
		e.Raw, e.Err = s.files.ReadInternal(e.File)
		if errors.Is(e.Err, fs.ErrNotExist) {
			continue
		}
		if e.Err == nil {
			e.Err = json.Unmarshal(e.Raw, &e.Record)
		}
		out = append(out, e)
	}
	return out
}

// refreshIndex rebuilds the index of saved requirements when the folders
// of requirements/ changed behind it, or always when force is set.
func (s *Store) refreshIndex(force bool) error {
	names, err := s.files.Names("requirements")
	if err != nil {
		return err
	}
	if !force && s.index != nil && slices.Equal(names, s.folders) {
		return nil
	}
	saved := s.entries(names)
	s.index, s.folders, s.maxN = map[string]Ref{}, names, 0
	// The next id is one more than the highest req_NNN folder, even one
	// without final.json (the agent may be drafting in it), so an id is
	// never given twice. An empty folder is left by a save cut off between
	// making the folder and writing final.json: its id is still free, and
	// taking it keeps the ids of a resumed job those of an uninterrupted one.
	withFinal := make(map[string]bool, len(saved))
	for _, e := range saved {
		withFinal[e.Folder] = true
	}
	for _, name := range names {
		v, err := strconv.Atoi(strings.TrimPrefix(name, "req_"))
		if err != nil || !strings.HasPrefix(name, "req_") {
			continue
		}
		if !withFinal[name] {
			if inside, err := s.files.Names("requirements/" + name); err == nil && len(inside) == 0 {
				continue
			}
		}
		s.maxN = max(s.maxN, v)
	}
	for _, e := range saved {
		if e.Err != nil {
			continue
		}
		if v, err := strconv.Atoi(strings.TrimPrefix(e.Record.ID, "REQ-")); err == nil {
			s.maxN = max(s.maxN, v)
		}
		s.index[dedupKey(e.Record)] = Ref{ID: e.Record.ID, File: e.File}
	}
	return nil
}
