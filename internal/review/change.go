package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"creator/internal/jsonl"
	"creator/internal/markdown"
	"creator/internal/reqstore"
	"creator/internal/requirement"
	"creator/internal/reviewlog"
)

// history is the decision log as read: every entry, and per requirement
// its entries in order.
type history struct {
	entries []reviewlog.Entry
	byReq   map[string][]int // requirement id → indexes into entries
	undone  map[int]bool     // Seq of each entry an undo took back
}

func newHistory(entries []reviewlog.Entry) *history {
	h := &history{byReq: map[string][]int{}, undone: map[int]bool{}}
	for _, e := range entries {
		h.add(e)
	}
	return h
}

func (h *history) add(e reviewlog.Entry) {
	h.byReq[e.Requirement] = append(h.byReq[e.Requirement], len(h.entries))
	h.entries = append(h.entries, e)
	if e.Action == reviewlog.Undo {
		h.undone[e.Undoes] = true
	}
}

// version is requirement id's version: the number of its entries.
func (h *history) version(id string) int { return len(h.byReq[id]) }

func (h *history) of(id string) []reviewlog.Entry {
	out := make([]reviewlog.Entry, 0, len(h.byReq[id]))
	for _, i := range h.byReq[id] {
		out = append(out, h.entries[i])
	}
	return out
}

// lastUndoable is requirement id's last decision not taken back.
func (h *history) lastUndoable(id string) (reviewlog.Entry, bool) {
	idx := h.byReq[id]
	for i := len(idx) - 1; i >= 0; i-- {
		if e := h.entries[idx[i]]; e.Action != reviewlog.Undo && !h.undone[e.Seq] {
			return e, true
		}
	}
	return reviewlog.Entry{}, false
}

func (h *history) nextSeq() int {
	if len(h.entries) == 0 {
		return 1
	}
	return h.entries[len(h.entries)-1].Seq + 1
}

// load reads the logs, once; s.mu is held.
func (s *Service) load() error {
	if s.loaded {
		return nil
	}
	entries, err := readLog[reviewlog.Entry](s.cfg.Files, reviewlog.DecisionsFile)
	if err != nil {
		return err
	}
	comments, err := readLog[reviewlog.Comment](s.cfg.Files, reviewlog.CommentsFile)
	if err != nil {
		return err
	}
	s.history, s.comments, s.loaded = newHistory(entries), comments, true
	return nil
}

func readLog[T any](files Files, file string) ([]T, error) {
	data, err := files.ReadInternal(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return jsonl.Parse[T](file, data)
}

// ConflictError is a change taken on another version of a requirement
// than its current one, or an undo with nothing to undo: nothing was
// changed. Requirement is the requirement as it stands.
type ConflictError struct {
	msg         string
	Requirement Item
}

func (e *ConflictError) Error() string { return e.msg }

// History is requirement id's decision log, oldest first.
func (s *Service) History(id string) ([]reviewlog.Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.loadFor(id); err != nil {
		return nil, err
	}
	return s.history.of(id), nil
}

// loadFor reads the logs (load) and checks that id is among the
// requirements under review; s.mu is held.
func (s *Service) loadFor(id string) error {
	if err := s.load(); err != nil {
		return err
	}
	_, err := s.record(id)
	return err
}

// Decide takes a decision on requirement id: its record gets the review
// (and, for an edit, the new values; for pending, its extracted values
// back), checked as a saved requirement is checked. The decision is
// logged first, then the record is written: the record is the review's
// current state, the log its history, and Sync writes a logged change a
// kill kept from the record. validation.md follows at once, the output
// files after OutputDelay.
func (s *Service) Decide(id string, d Decision) (Item, Progress, error) {
	if err := d.check(); err != nil {
		return Item{}, Progress{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	item, err := s.decide(id, d, reviewlog.Decision)
	if err != nil {
		return Item{}, Progress{}, err
	}
	p, err := s.progress()
	return item, p, err
}

// decide is Decide with s.mu held; action is what the log calls it.
func (s *Service) decide(id string, d Decision, action string) (Item, error) {
	if err := s.load(); err != nil {
		return Item{}, err
	}
	who, err := s.reviewer(d.Reviewer)
	if err != nil {
		return Item{}, err
	}
	if err := s.checkVersion(id, d.Version); err != nil {
		return Item{}, err
	}
	at := s.now()
	return s.change(id, action, who, at, func(r *requirement.Record) (string, error) {
		return d.Note, apply(r, d, who, at)
	}, 0)
}

// Undo takes back the last change of requirement id not taken back yet:
// its review status, fields and note are those before it. The undo is
// logged as a change of its own; version, when given, must be the
// requirement's version.
func (s *Service) Undo(id, reviewer string, version *int) (Item, Progress, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(); err != nil {
		return Item{}, Progress{}, err
	}
	who, err := s.reviewer(strings.TrimSpace(reviewer))
	if err != nil {
		return Item{}, Progress{}, err
	}
	if err := s.checkVersion(id, version); err != nil {
		return Item{}, Progress{}, err
	}
	last, ok := s.history.lastUndoable(id)
	if !ok {
		rec, err := s.record(id)
		if err != nil {
			return Item{}, Progress{}, err
		}
		return Item{}, Progress{}, &ConflictError{fmt.Sprintf("%s has no change to undo", id), s.itemOf(rec)}
	}
	item, err := s.change(id, reviewlog.Undo, who, s.now(), func(r *requirement.Record) (string, error) {
		for name, c := range last.Changes {
			if f := field(r, name); f != nil {
				*f = c.Old
			}
		}
		r.Review = cloneReview(last.Before)
		return r.ReviewNote(), nil
	}, last.Seq)
	if err != nil {
		return Item{}, Progress{}, err
	}
	p, err := s.progress()
	return item, p, err
}

// BulkResult is the outcome of a bulk decision on one requirement: the
// requirement as it now stands, or why the decision was refused — both
// for a requirement changed since the version the decision was taken on.
type BulkResult struct {
	ID          string `json:"id"`
	Requirement *Item  `json:"requirement,omitempty"`
	Error       string `json:"error,omitempty"`
}

// maxBulk bounds the requirements of one bulk decision.
const maxBulk = 10000

// Bulk takes decision d (accepted, rejected or pending) on each of ids,
// one after the other, each logged on its own; a refusal of one leaves
// the others taken. versions, when it names a requirement, is the version
// the decision was taken on: a requirement changed since is left as it
// stands, its result holding the conflict and the requirement now.
func (s *Service) Bulk(ids []string, d Decision, versions map[string]int) ([]BulkResult, Progress, error) {
	if d.Decision == requirement.Edited {
		return nil, Progress{}, inputErrorf("a bulk decision is accepted, rejected or pending; edit requirements one at a time")
	}
	if d.Version != nil {
		return nil, Progress{}, inputErrorf("a bulk decision takes no \"version\"")
	}
	if err := d.check(); err != nil {
		return nil, Progress{}, err
	}
	if len(ids) == 0 {
		return nil, Progress{}, inputErrorf("\"ids\" is empty: name the requirements to decide on")
	}
	if len(ids) > maxBulk {
		return nil, Progress{}, inputErrorf("\"ids\" names %d requirements; send at most %d at once", len(ids), maxBulk)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(); err != nil {
		return nil, Progress{}, err
	}
	if _, err := s.reviewer(d.Reviewer); err != nil {
		return nil, Progress{}, err
	}
	for id, v := range versions {
		if v < 0 {
			return nil, Progress{}, inputErrorf("\"versions\" gives %s version %d: a version is 0 or more", id, v)
		}
	}
	results := make([]BulkResult, 0, len(ids))
	for _, id := range ids {
		one := d
		if v, ok := versions[id]; ok {
			one.Version = &v
		}
		item, err := s.decide(id, one, reviewlog.Bulk)
		var input *InputError
		var conflict *ConflictError
		switch {
		case err == nil:
			results = append(results, BulkResult{ID: id, Requirement: &item})
		case errors.As(err, &conflict):
			results = append(results, BulkResult{ID: id, Error: err.Error(), Requirement: &conflict.Requirement})
		case errors.As(err, &input) || errors.Is(err, reqstore.ErrNotFound):
			results = append(results, BulkResult{ID: id, Error: err.Error()})
		default:
			return results, Progress{}, err
		}
	}
	p, err := s.progress()
	return results, p, err
}

// checkVersion refuses a change taken on another version than the
// current one of requirement id; s.mu is held.
func (s *Service) checkVersion(id string, version *int) error {
	if version == nil || *version == s.history.version(id) {
		return nil
	}
	rec, err := s.record(id)
	if err != nil {
		return err
	}
	item := s.itemOf(rec)
	if *version > item.Version {
		// Versions only grow, so this one was never given: not a change
		// someone made meanwhile, but a version the client made up.
		return &ConflictError{fmt.Sprintf("%s is at version %d (%s); version %d was never given: reload it and decide again",
			id, item.Version, item.ReviewStatus, *version), item}
	}
	return &ConflictError{fmt.Sprintf("%s changed since version %d: it is at version %d now (%s); reload it and decide again",
		id, *version, item.Version, item.ReviewStatus), item}
}

// change makes a change of requirement id's record, logs it and writes
// the record; undoes is the Seq of the entry an undo takes back. s.mu is
// held.
func (s *Service) change(id, action, who, at string, edit func(*requirement.Record) (note string, err error), undoes int) (Item, error) {
	if s.unwritten[id] {
		// A change logged before could not be written into the record.
		if err := s.reconcileOne(id); err != nil {
			return Item{}, err
		}
		delete(s.unwritten, id)
	}
	var note string
	var entry reviewlog.Entry
	logged := false
	rec, err := s.cfg.Store.AmendThen(id, func(r *requirement.Record) error {
		n, err := edit(r)
		note = n
		return err
	}, func(before, after requirement.Record) error {
		entry = reviewlog.Entry{
			Seq: s.history.nextSeq(), Time: at, Reviewer: who, Requirement: id, Action: action,
			From: before.ReviewStatus(), To: after.ReviewStatus(), Changes: fieldChanges(before, after), Note: note,
			Version: s.history.version(id) + 1, Undoes: undoes, Before: cloneReview(before.Review), After: cloneReview(after.Review),
		}
		line, err := jsonl.Line(entry)
		if err != nil {
			return err
		}
		if err := s.cfg.Files.AppendInternal(reviewlog.DecisionsFile, line); err != nil {
			return err
		}
		logged = true
		return nil
	})
	if logged {
		// The log holds the change: its Seq and the version are taken,
		// whether or not the record could be written.
		s.history.add(entry)
	}
	if logged && err != nil {
		s.unwritten[id] = true
	}
	if err != nil {
		var check *reqstore.CheckError
		if errors.As(err, &check) {
			return Item{}, inputErrorf("%s cannot take this decision: %v", id, check.Err)
		}
		return Item{}, err
	}
	s.staleValidation[id] = true
	if s.statuses != nil {
		if _, ok := s.statuses[id]; ok {
			s.statuses[id] = rec.ReviewStatus()
		}
	}
	if err := s.outputsChanged(); err != nil {
		return Item{}, err
	}
	return s.itemOf(rec), nil
}

// apply makes decision d on r.
func apply(r *requirement.Record, d Decision, by, at string) error {
	if d.Decision == requirement.Pending {
		if r.Review == nil {
			return inputErrorf("%s is pending already", r.ID)
		}
		for name, c := range r.Review.Changes {
			if f := field(r, name); f != nil {
				*f = c.From
			}
		}
		r.Review = nil
		return nil
	}
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

// fieldChanges are the editable fields a and b differ in.
func fieldChanges(a, b requirement.Record) map[string]reviewlog.Change {
	var out map[string]reviewlog.Change
	for _, name := range Editable {
		if old, now := *field(&a, name), *field(&b, name); old != now {
			if out == nil {
				out = map[string]reviewlog.Change{}
			}
			out[name] = reviewlog.Change{Old: old, New: now}
		}
	}
	return out
}

func cloneReview(rv *requirement.Review) *requirement.Review {
	if rv == nil {
		return nil
	}
	c := *rv
	c.Changes = maps.Clone(rv.Changes)
	return &c
}

// sameReview reports whether two reviews are the same, as final.json
// holds them.
func sameReview(a, b *requirement.Review) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// reconcile writes into each record the logged changes of it that a
// kill or a power cut kept from the record: the log line is flushed to
// disk before the record is written, so a record may lack its last
// change (a kill between the two), or more (a power cut that undid the
// renames of records written since the last flush). The record is found
// in its log as left by its latest entry — or as found by its first — and
// the entries after that are written into it; a record that matches no
// entry was changed by other means and is left as it is. s.mu is held.
func (s *Service) reconcile() error {
	for _, id := range slices.Sorted(maps.Keys(s.history.byReq)) {
		if err := s.reconcileOne(id); err != nil {
			return err
		}
	}
	return nil
}

// reconcileOne is reconcile of requirement id.
func (s *Service) reconcileOne(id string) error {
	entries := s.history.of(id)
	rec, err := s.cfg.Store.Get(id)
	if errors.Is(err, reqstore.ErrNotFound) || len(entries) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	from := -1 // the entries from this one on are missing from the record
	for i := len(entries) - 1; i >= 0; i-- {
		if matches(rec, entries[i], false) {
			from = i + 1
			break
		}
	}
	if from < 0 && matches(rec, entries[0], true) {
		from = 0
	}
	if from < 0 || from == len(entries) {
		return nil
	}
	_, err = s.cfg.Store.Amend(id, func(r *requirement.Record) error {
		for _, e := range entries[from:] {
			for name, c := range e.Changes {
				if f := field(r, name); f != nil {
					*f = c.New
				}
			}
			r.Review = cloneReview(e.After)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: cannot write the changes %d to %d of %s into its record: %w", reviewlog.DecisionsFile, entries[from].Seq, entries[len(entries)-1].Seq, id, err)
	}
	return nil
}

// matches reports whether r is as entry e left it, or, with before, as e
// found it.
func matches(r requirement.Record, e reviewlog.Entry, before bool) bool {
	rv := e.After
	if before {
		rv = e.Before
	}
	if !sameReview(r.Review, rv) {
		return false
	}
	for name, c := range e.Changes {
		f := field(&r, name)
		want := c.New
		if before {
			want = c.Old
		}
		if f == nil || *f != want {
			return false
		}
	}
	return true
}

// maxReviewer bounds a reviewer's name, in characters.
const maxReviewer = 100

// CheckReviewerName refuses a name no change may carry: empty, over
// maxReviewer characters, or holding an invisible character
// (markdown.Invisible), with which two reviewers' names could look alike
// or a name could reorder what the history around it shows.
func CheckReviewerName(name string) error {
	if name == "" {
		return inputErrorf("the reviewer's name is empty")
	}
	if n := utf8.RuneCountInString(name); n > maxReviewer {
		return inputErrorf("the reviewer's name is %d characters long; keep it to %d", n, maxReviewer)
	}
	pos := 0
	for _, r := range name {
		pos++
		if markdown.Invisible(r) {
			return inputErrorf("the reviewer's name %q holds the invisible character U+%04X at character %d (a control, format or separator character): a name is made of characters people see", name, r, pos)
		}
	}
	return nil
}

// reviewer is who makes a change: name, or the default reviewer, one of
// the reviewers when they are restricted. Every change names someone: a
// change that names nobody in a review without a default reviewer is
// refused.
func (s *Service) reviewer(name string) (string, error) {
	given := name != ""
	if !given {
		name = s.cfg.Reviewer
	}
	switch {
	case !given && len(s.cfg.Reviewers) > 0 && !slices.Contains(s.cfg.Reviewers, name):
		return "", inputErrorf("name the reviewer in \"reviewer\": one of %s", strings.Join(s.cfg.Reviewers, ", "))
	case name == "":
		return "", inputErrorf("\"reviewer\" is missing: name who decides in \"reviewer\" (this review has no default reviewer)")
	}
	if err := CheckReviewerName(name); err != nil {
		return "", err
	}
	if len(s.cfg.Reviewers) > 0 && !slices.Contains(s.cfg.Reviewers, name) {
		return "", inputErrorf("%q is not a reviewer of this review: the reviewers are %s", name, strings.Join(s.cfg.Reviewers, ", "))
	}
	return name, nil
}

// Reviewers are the names a change may carry; empty when any name goes.
func (s *Service) Reviewers() []string { return slices.Clone(s.cfg.Reviewers) }

// DefaultReviewer is who makes a change that names nobody.
func (s *Service) DefaultReviewer() string { return s.cfg.Reviewer }

func (s *Service) now() string {
	return s.cfg.Now().UTC().Truncate(time.Second).Format(time.RFC3339)
}

// progress counts the review statuses of the requirements under review;
// s.mu is held. The statuses are read once and then kept with each change.
func (s *Service) progress() (Progress, error) {
	if s.statuses == nil {
		recs, _, _, err := s.Records()
		if err != nil {
			return Progress{}, err
		}
		s.statuses = make(map[string]string, len(recs))
		for _, r := range recs {
			s.statuses[r.ID] = r.ReviewStatus()
		}
	}
	t := Progress{Total: len(s.statuses)}
	for _, st := range s.statuses {
		switch st {
		case requirement.Accepted:
			t.Accepted++
		case requirement.Edited:
			t.Edited++
		case requirement.Rejected:
			t.Rejected++
		default:
			t.Pending++
		}
	}
	t.Reviewed = t.Total - t.Pending
	return t, nil
}
