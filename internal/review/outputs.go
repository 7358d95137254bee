package review

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"creator/internal/reviewlog"
)

// outputsChanged notes that the output files and validation.md of the
// changed requirements no longer show every decision, and writes them
// again: at once without OutputDelay, else once decisions pause for
// OutputDelay. Writing them takes a while on a large job (every output
// file; a flushed write for each validation.md), a decision only its log
// line and record; the log and the records stay the truth, and Sync
// rebuilds the files from them after a kill. s.mu is held.
func (s *Service) outputsChanged() error {
	s.stale = true
	if s.cfg.OutputDelay <= 0 {
		return s.writeOutputs()
	}
	if s.timer == nil {
		s.timer = time.AfterFunc(s.cfg.OutputDelay, s.flushQuiet)
	} else {
		s.timer.Reset(s.cfg.OutputDelay)
	}
	return nil
}

// writeOutputs writes validation.md of the changed requirements and the
// output files again when they are stale; s.mu is held.
func (s *Service) writeOutputs() error {
	if err := s.writeValidations(slices.Sorted(maps.Keys(s.staleValidation))); err != nil {
		return err
	}
	if !s.stale {
		return nil
	}
	if _, _, err := s.refreshOutput(); err != nil {
		return err
	}
	s.stale = false
	return nil
}

// validationWriters is how many validation.md files are written at once:
// each write waits on its flush to disk, and the file system flushes
// writes that wait together at once.
const validationWriters = 8

// writeValidations writes validation.md of requirements ids, several at
// once; s.mu is held.
func (s *Service) writeValidations(ids []string) error {
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	next := make(chan string)
	for range min(validationWriters, len(ids)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range next {
				rec, err := s.cfg.Store.Get(id)
				if err == nil {
					err = s.writeValidation(rec)
				}
				mu.Lock()
				if err == nil {
					delete(s.staleValidation, id)
				} else if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	for _, id := range ids {
		next <- id
	}
	close(next)
	wg.Wait()
	return first
}

// Flush writes the output files now when decisions since they were last
// written are not in them yet; the review calls it as it stops.
func (s *Service) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
	}
	return s.writeOutputs()
}

// OutputsPending reports whether decisions wait to be written into the
// output files.
func (s *Service) OutputsPending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stale
}

// flushQuiet is the timer's work: the output files written once
// decisions paused. An error is logged; the next decision, Flush or Sync
// tries again.
func (s *Service) flushQuiet() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writeOutputs(); err != nil && s.cfg.Log != nil {
		fmt.Fprintf(s.cfg.Log, "creator: cannot write the output files after the decisions (they are in the records and %s; the next review or Ctrl-C writes them): %v\n", reviewlog.DecisionsFile, err)
	}
}
