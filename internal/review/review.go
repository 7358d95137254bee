// Package review is a person's review of a job's requirements: decisions
// (accept, reject with a reason, edit) kept in each requirement's record
// and validation.md, the source passage of each citation, and the local
// web page and JSON API that serve them (docs/review.md).
package review

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"time"

	"creator/internal/export"
	"creator/internal/output"
	"creator/internal/reqstore"
	"creator/internal/requirement"
	"creator/internal/reviewlog"
	"creator/workspace"
)

// Files is the access to the job folder a review needs.
type Files interface {
	ReadInternal(rel string) ([]byte, error)
	WriteFile(rel string, data []byte) (workspace.WriteResult, error)
	// AppendInternal appends to a log and flushes it to disk.
	AppendInternal(rel string, data []byte) error
}

// Config wires a Service.
type Config struct {
	JobID string
	Store *reqstore.Store
	Files Files
	Now   func() time.Time
	// Reviewer names who decides when a decision names nobody; when
	// empty, every change must name its reviewer.
	Reviewer string
	// Reviewers, when given, are the only names a decision may carry.
	Reviewers []string
	// Coverage measures the job's coverage for the summary.md written
	// again after decisions; nil leaves coverage out of it.
	Coverage func() (*output.Coverage, error)
	// OutputDelay is the quiet time after the last decision before the
	// output files are written again; 0 writes them after every decision.
	OutputDelay time.Duration
	// Log, when set, gets the errors of the output files written in the
	// background.
	Log io.Writer
}

// Service reviews one job's requirements. It is safe for concurrent use:
// changes are made one at a time.
type Service struct {
	cfg Config
	mu  sync.Mutex
	// loaded says whether the logs below were read.
	loaded   bool
	history  *history
	comments []reviewlog.Comment
	// statuses are the review statuses of the requirements under review,
	// by id, for the progress; nil until needed.
	statuses map[string]string
	// stale says the output files do not show every decision yet, and
	// staleValidation names the requirements whose validation.md does not;
	// timer writes them once decisions pause.
	stale           bool
	staleValidation map[string]bool
	timer           *time.Timer
	// unwritten names the requirements whose record lacks a logged change
	// (its write failed); the next change of one writes it first.
	unwritten map[string]bool
}

// New returns the review of the job cfg names.
func New(cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{cfg: cfg, staleValidation: map[string]bool{}, unwritten: map[string]bool{}}
}

// Item is a requirement as the review lists it.
type Item struct {
	requirement.Record
	// ReviewStatus is pending, accepted, rejected or edited.
	ReviewStatus string `json:"review_status"`
	// Version counts the changes of the requirement's review.
	Version int `json:"version"`
}

// itemOf is r as the review lists it; s.mu is held and the logs loaded.
func (s *Service) itemOf(r requirement.Record) Item {
	return Item{Record: r, ReviewStatus: r.ReviewStatus(), Version: s.history.version(r.ID)}
}

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
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(); err != nil {
		return Listing{}, err
	}
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
		l.Requirements = append(l.Requirements, s.itemOf(r))
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
	item, err := s.Item(id)
	if err != nil {
		return Detail{}, err
	}
	d := Detail{Item: item, Sources: []Source{}}
	rec := item.Record
	for _, c := range rec.Citations {
		d.Sources = append(d.Sources, s.source(c))
	}
	return d, nil
}

// Item is requirement id as the review lists it.
func (s *Service) Item(id string) (Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(); err != nil {
		return Item{}, err
	}
	rec, err := s.record(id)
	if err != nil {
		return Item{}, err
	}
	return s.itemOf(rec), nil
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

// Sync brings the job in line with its review log and rebuilds what
// derives from the records' reviews — each requirement's validation.md
// and the output files — so that a review stopped anywhere leaves nothing
// behind: a change logged whose record was not written yet (a kill
// between the two) is written (reconcile).
func (s *Service) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loaded, s.statuses = false, nil // read again: the files may have changed since
	if err := s.load(); err != nil {
		return err
	}
	if err := s.reconcile(); err != nil {
		return err
	}
	s.unwritten = map[string]bool{}
	entries, err := s.cfg.Store.List()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		if e.Err == nil && (e.Record.Review != nil || s.history.version(e.Record.ID) > 0) {
			if err := s.writeValidation(e.Record); err != nil {
				return err
			}
		}
	}
	if _, _, err = s.refreshOutput(); err != nil {
		return err
	}
	s.stale, s.staleValidation = false, map[string]bool{}
	return nil
}
