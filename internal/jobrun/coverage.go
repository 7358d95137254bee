package jobrun

import (
	"sync"

	"creator/internal/agent"
	"creator/internal/coverage"
	"creator/internal/document"
	"creator/internal/transcript"
	"creator/tools"
	"creator/workspace"
)

// DefaultMinCoverage is the share of chunks that must be covered before a
// job can complete when none is given: all of them.
const DefaultMinCoverage = 1.0

// coverageWatch keeps the job's coverage ledger current with what the
// agent reads, and tells the reporter how far the coverage has come. The
// figures it reports are kept up as the calls go; the completion check
// and finalize_output measure from the files.
type coverageWatch struct {
	ledger    *coverage.Ledger
	job       *workspace.Job
	documents []string
	report    Reporter

	mu       sync.Mutex
	manifest document.Manifest
	cited    map[string]bool
}

// openCoverage rebuilds the ledger from the transcript — what the agent
// read and declared is there even when a kill came before the ledger was
// written — and keeps it in .agent/coverage.json.
func openCoverage(job *workspace.Job, recs []transcript.Record, documents []string, report Reporter) (*coverageWatch, error) {
	ledger := coverage.New(job.Internal)
	tools.ReplayCoverage(ledger, transcript.Messages(recs))
	if err := ledger.Save(); err != nil {
		return nil, err
	}
	w := &coverageWatch{ledger: ledger, job: job, documents: documents, report: report}
	var err error
	if w.manifest, err = coverage.Manifest(job.Internal); err != nil {
		return nil, err
	}
	if w.cited, err = coverage.CitedChunks(job); err != nil {
		return nil, err
	}
	return w, nil
}

// measure measures the coverage from the job's files.
func (w *coverageWatch) measure() (coverage.Report, error) {
	return w.ledger.MeasureJob(w.job, w.documents)
}

// manifestOf reads the chunk manifest.
func (w *coverageWatch) manifestOf() (document.Manifest, error) {
	return coverage.Manifest(w.job.Internal)
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
		if changed = tools.NoteRead(w.ledger, d); changed {
			_ = w.ledger.Save()
		}
	case tools.Chunked:
		if m, err := w.manifestOf(); err == nil {
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
		r = w.ledger.Measure(w.manifest, w.cited, w.documents)
	}
	w.mu.Unlock()
	if changed {
		w.report.CoverageChanged(r)
	}
}

// started reports the coverage the run starts with.
func (w *coverageWatch) started() {
	w.mu.Lock()
	r := w.ledger.Measure(w.manifest, w.cited, w.documents)
	w.mu.Unlock()
	w.report.CoverageChanged(r)
}
