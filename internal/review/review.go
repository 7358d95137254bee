// Package review is a person's review of a job's requirements: decisions
// (accept, reject with a reason, edit) kept in each requirement's record
// and validation.md, the source passage of each citation, and the local
// web page and JSON API that serve them (docs/review.md).
package review

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"creator/internal/export"
	"creator/internal/output"
	"creator/internal/reqstore"
	"creator/internal/requirement"
	"creator/workspace"
)

// Files is the access to the job folder a review needs.
type Files interface {
	ReadInternal(rel string) ([]byte, error)
	WriteFile(rel string, data []byte) (workspace.WriteResult, error)
}

// Config wires a Service.
type Config struct {
	JobID string
	Store *reqstore.Store
	Files Files
	Now   func() time.Time
	// Reviewer names who decides; may be empty.
	Reviewer string
	// Coverage measures the job's coverage for the summary.md written
	// again after a decision; nil leaves coverage out of it.
	Coverage func() (*output.Coverage, error)
}

// Service reviews one job's requirements. It is safe for concurrent use:
// decisions are taken one at a time.
type Service struct {
	cfg Config
	mu  sync.Mutex
}

// New returns the review of the job cfg names.
func New(cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{cfg: cfg}
}

// Item is a requirement as the review lists it.
type Item struct {
	requirement.Record
	// ReviewStatus is pending, accepted, rejected or edited.
	ReviewStatus string `json:"review_status"`
}

func itemOf(r requirement.Record) Item { return Item{Record: r, ReviewStatus: r.ReviewStatus()} }

// Listing is every requirement under review.
type Listing struct {
	Job string `json:"job"`
	// From says where the list comes from: "output" (the job's
	// output/requirements.json) or "saved" (the requirements saved so
	// far, when the job has no output yet).
	From         string     `json:"from"`
	Progress     Progress   `json:"progress"`
	Vocabulary   Vocabulary `json:"vocabulary"`
	Requirements []Item     `json:"requirements"`
	Problems     []string   `json:"problems,omitempty"`
}

// Progress counts the decisions.
type Progress = requirement.Tally

// Vocabulary is the values the enumerated fields take.
type Vocabulary struct {
	Types      []string `json:"types"`
	Categories []string `json:"categories"`
	Priorities []string `json:"priorities"`
	Decisions  []string `json:"decisions"`
	Editable   []string `json:"editable"`
}

// Records are the requirements under review (reqstore.Store.Reviewable):
// from says where they come from, "output" or "saved".
func (s *Service) Records() (recs []requirement.Record, from string, problems []string, err error) {
	recs, fromOutput, problems, err := s.cfg.Store.Reviewable()
	from = "saved"
	if fromOutput {
		from = "output"
	}
	return recs, from, problems, err
}

// List lists the requirements under review with their review status.
func (s *Service) List() (Listing, error) {
	recs, from, problems, err := s.Records()
	if err != nil {
		return Listing{}, err
	}
	l := Listing{
		Job: s.cfg.JobID, From: from, Progress: requirement.TallyOf(recs), Problems: problems,
		Vocabulary: Vocabulary{Types: requirement.Types, Categories: requirement.Categories, Priorities: requirement.Priorities,
			Decisions: requirement.ReviewDecisions, Editable: Editable},
		Requirements: make([]Item, 0, len(recs)),
	}
	for _, r := range recs {
		l.Requirements = append(l.Requirements, itemOf(r))
	}
	return l, nil
}

// Detail is one requirement with the source passage of each citation.
type Detail struct {
	Item
	Sources []Source `json:"sources"`
}

// Source is a citation's quote in the context of its chunk: the chunk's
// text is Before + Quote + After.
type Source struct {
	Document  string `json:"document"`
	Chunk     string `json:"chunk"`
	Page      int    `json:"page,omitempty"`
	FirstPage int    `json:"first_page,omitempty"`
	LastPage  int    `json:"last_page,omitempty"`
	// Section is the heading path of the place the quote stands.
	Section []string `json:"section,omitempty"`
	Before  string   `json:"before"`
	Quote   string   `json:"quote"`
	After   string   `json:"after"`
	// Problem says why the quote is not shown in its chunk.
	Problem string `json:"problem,omitempty"`
}

// Detail returns requirement id with its source passages.
func (s *Service) Detail(id string) (Detail, error) {
	rec, err := s.record(id)
	if err != nil {
		return Detail{}, err
	}
	d := Detail{Item: itemOf(rec), Sources: []Source{}}
	for _, c := range rec.Citations {
		d.Sources = append(d.Sources, s.source(c))
	}
	return d, nil
}

// record is requirement id as the review shows it.
func (s *Service) record(id string) (requirement.Record, error) {
	rec, err := s.cfg.Store.ReviewableOne(id)
	if errors.Is(err, reqstore.ErrNotFound) {
		return rec, fmt.Errorf("%w: %s is not among the requirements of job '%s'", reqstore.ErrNotFound, id, s.cfg.JobID)
	}
	return rec, err
}

func (s *Service) source(c requirement.Citation) Source {
	src := Source{Document: c.Document, Chunk: c.Chunk, Page: c.Page, Quote: c.Quote}
	p, err := s.cfg.Store.Passage(c)
	src.FirstPage, src.LastPage = p.Chunk.FirstPage, p.Chunk.LastPage
	if err != nil {
		src.Problem = err.Error()
		src.Before = p.Body
		src.Section = export.SectionAt(p.Chunk, p.Body, -1)
		return src
	}
	src.Before, src.Quote, src.After = p.Body[:p.Start], p.Body[p.Start:p.End], p.Body[p.End:]
	src.Section = export.SectionAt(p.Chunk, p.Body, p.Start)
	return src
}

// Decide takes a decision on requirement id: its record gets the review
// (and, for an edit, the new values), checked as a saved requirement is
// checked; then validation.md and the output files are written again.
// The record is the decision's commit point: what follows it is derived
// from the records and rebuilt by Sync.
func (s *Service) Decide(id string, d Decision) (Item, Progress, error) {
	if err := d.check(); err != nil {
		return Item{}, Progress{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	at := s.cfg.Now().UTC().Truncate(time.Second).Format(time.RFC3339)
	rec, err := s.cfg.Store.Amend(id, func(r *requirement.Record) error {
		return apply(r, d, s.cfg.Reviewer, at)
	})
	if err != nil {
		var check *reqstore.CheckError
		if errors.As(err, &check) {
			return Item{}, Progress{}, inputErrorf("%s cannot take this decision: %v", id, check.Err)
		}
		return Item{}, Progress{}, err
	}
	if err := s.writeValidation(rec); err != nil {
		return Item{}, Progress{}, err
	}
	recs, hasOutput, err := s.refreshOutput()
	if err != nil {
		return Item{}, Progress{}, err
	}
	if !hasOutput {
		if recs, _, _, err = s.Records(); err != nil {
			return Item{}, Progress{}, err
		}
	}
	return itemOf(rec), requirement.TallyOf(recs), nil
}

// apply makes decision d on r.
func apply(r *requirement.Record, d Decision, by, at string) error {
	changes := map[string]requirement.Change{}
	if r.Review != nil {
		for k, c := range r.Review.Changes {
			changes[k] = c
		}
	}
	edited := false
	for _, name := range slices.Sorted(maps.Keys(d.Changes)) {
		value := strings.TrimSpace(d.Changes[name])
		f := field(r, name)
		if *f == value {
			continue
		}
		edited = true
		from := *f
		if c, ok := changes[name]; ok {
			from = c.From
		}
		*f = value
		if value == from {
			delete(changes, name) // back to the extracted value
		} else {
			changes[name] = requirement.Change{From: from, To: value}
		}
	}
	if d.Decision == requirement.Edited && !edited {
		return inputErrorf("the changes change nothing: each value is the one %s has; to keep it as it is, accept it", r.ID)
	}
	status := d.Decision
	if status == requirement.Edited && len(changes) == 0 {
		status = requirement.Accepted // every field is back to its extracted value
	}
	r.Review = &requirement.Review{Status: status, Note: d.Note, By: by, At: at}
	if len(changes) > 0 {
		r.Review.Changes = changes
	}
	return nil
}

// refreshOutput brings the output files up to date with the records
// (reqstore.Store.RefreshOutput).
func (s *Service) refreshOutput() ([]requirement.Record, bool, error) {
	var cov *output.Coverage
	if s.cfg.Coverage != nil {
		c, err := s.cfg.Coverage()
		if err != nil {
			return nil, false, err
		}
		cov = c
	}
	return s.cfg.Store.RefreshOutput(cov)
}

// Sync rebuilds what derives from the records' reviews — each reviewed
// requirement's validation.md and the output files — so that a review
// stopped between a record and the files after it leaves nothing behind.
func (s *Service) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	entries, err := s.cfg.Store.List()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		if e.Err == nil && e.Record.Review != nil {
			if err := s.writeValidation(e.Record); err != nil {
				return err
			}
		}
	}
	_, _, err = s.refreshOutput()
	return err
}
