package jobrun

import (
	"sync"

	"creator/internal/agent"
	"creator/internal/coverage"
	"creator/internal/document"
	"creator/internal/job"
	"creator/internal/transcript"
	"creator/tools"
)

// DefaultMinCoverage is the share of chunks that must be covered before a
// job can complete when none is given: all of them.
const DefaultMinCoverage = 1.0

// coverageWatch notes in the job's coverage ledger what the agent reads,
// and tells the reporter how far the coverage has come. The figures it
// reports are the job's ledger measured against the manifest and the
// citations as the calls went, kept up without reading the folder; the
// completion check and finalize_output call job.Coverage, which reads the
// manifest and the citations from the files again.
type coverageWatch struct {
	job       *job.Job
	documents []string
	report    Reporter

	mu       sync.Mutex
	manifest document.Manifest
	cited    map[string]bool
}

// openCoverage rebuilds the job's ledger from the transcript — what the
// agent read and declared is there even when a kill came before the
// ledger was written.
func openCoverage(j *job.Job, recs []transcript.Record, documents []string, report Reporter) (*coverageWatch, error) {
	if err := j.RebuildCoverage(transcript.Messages(recs)); err != nil {
		return nil, err
	}
	w := &coverageWatch{job: j, documents: documents, report: report}
	var err error
	if w.manifest, err = j.Manifest(); err != nil {
		return nil, err
	}
	if w.cited, err = j.Cited(); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *coverageWatch) ModelCalled(agent.ModelCall) {}

// ToolCalled notes chunk lines read, new chunks and citations, then
// reports the coverage when it may have changed.
func (w *coverageWatch) ToolCalled(c agent.ToolCall) {
	if c.Err != nil {
		return
	}
	w.mu.Lock()
	changed := true
	switch d := c.Data.(type) {
	case tools.FileLines:
		changed, _ = w.job.NoteRead(d)
	case tools.Chunked:
		if m, err := w.job.Manifest(); err == nil {
			w.manifest = m
		}
	case tools.SavedRequirement:
		for _, ch := range d.Chunks {
			w.cited[ch] = true
		}
	case tools.DeclaredEmpty:
	default:
		changed = false
	}
	var r coverage.Report
	if changed {
		r = w.job.MeasureWith(w.manifest, w.cited, w.documents)
	}
	w.mu.Unlock()
	if changed {
		w.report.CoverageChanged(r)
	}
}

// committed takes in a sub-agent's chunk committed: the chunks its
// requirements cite, and the ledger, which may hold its declaration.
func (w *coverageWatch) committed(cited []string) {
	w.mu.Lock()
	for _, ch := range cited {
		w.cited[ch] = true
	}
	r := w.job.MeasureWith(w.manifest, w.cited, w.documents)
	w.mu.Unlock()
	w.report.CoverageChanged(r)
}

// started reports the coverage the run starts with.
func (w *coverageWatch) started() {
	w.mu.Lock()
	r := w.job.MeasureWith(w.manifest, w.cited, w.documents)
	w.mu.Unlock()
	w.report.CoverageChanged(r)
}
