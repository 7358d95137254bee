package batch

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"creator/internal/humanize"
)

// DisplayOptions say where and how a Display shows a batch.
type DisplayOptions struct {
	Out io.Writer
	// Live keeps a table up to date, for a terminal Width columns wide;
	// otherwise each change of a document's state is one plain line.
	Live  bool
	Width func() int
	// Quiet shows nothing.
	Quiet bool
	// RedrawEvery spaces redraws of the table (default 200 ms).
	RedrawEvery time.Duration
}

// MaxRows is the most documents the live table lists; a larger batch
// lists the running ones and counts the others.
const MaxRows = 15

// Display shows a running batch on stderr.
type Display struct {
	o      DisplayOptions
	mu     sync.Mutex
	b      *Batch
	total  int
	drawn  int // lines of the table on the screen
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

// NewDisplay makes a display; Watch starts it.
func NewDisplay(o DisplayOptions) *Display {
	if o.RedrawEvery == 0 {
		o.RedrawEvery = 200 * time.Millisecond
	}
	return &Display{o: o}
}

// Changed is for Options.Changed: a plain line per change of state when
// the table is not live.
func (d *Display) Changed(i int, e Entry) {
	if d.o.Quiet || d.o.Live {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprintf(d.o.Out, "creator: [%d/%d] %s\n", i+1, d.total, Line(e))
}

// Line is a document's state in one line.
func Line(e Entry) string {
	s := fmt.Sprintf("%s: %s", e.Path, e.State)
	switch e.State {
	case Running:
		if e.resume {
			return fmt.Sprintf("%s (job %s, resumed)", s, e.Job)
		}
		return fmt.Sprintf("%s (job %s)", s, e.Job)
	case Refused, Failed:
		return s + ": " + humanize.OneLine(e.Error)
	case Pending:
		return s
	}
	s += fmt.Sprintf(" · %s · %d/%d chunks · %s · %s (job %s)", humanize.Plural(e.Requirements, "requirement"), e.ChunksDone, e.ChunksTotal,
		humanize.Plural(e.Requests, "request"), humanize.Duration(e.Elapsed), e.Job)
	if e.Skipped {
		s += ", completed before"
	}
	if e.Error != "" {
		s += ": " + humanize.Clip(humanize.OneLine(e.Error), 300)
	}
	return s
}

// Watch shows the batch until Stop: a table kept up to date on a terminal.
func (d *Display) Watch(b *Batch) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.b, d.total = b, len(b.entries)
	if d.o.Quiet {
		return
	}
	if !d.o.Live {
		// What the batch decided before running: jobs done before, and
		// documents that cannot be read.
		for i, e := range b.Snapshot() {
			if e.State != Pending {
				fmt.Fprintf(d.o.Out, "creator: [%d/%d] %s\n", i+1, d.total, Line(e))
			}
		}
		return
	}
	d.drawLocked()
	d.stop, d.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(d.done)
		t := time.NewTicker(d.o.RedrawEvery)
		defer t.Stop()
		for {
			select {
			case <-d.stop:
				return
			case <-t.C:
				d.mu.Lock()
				d.drawLocked()
				d.mu.Unlock()
			}
		}
	}()
}

// Stop draws the table a last time and leaves it on the screen.
func (d *Display) Stop() {
	d.mu.Lock()
	if d.closed || d.stop == nil {
		d.closed = true
		d.mu.Unlock()
		return
	}
	d.closed = true
	close(d.stop)
	d.mu.Unlock()
	<-d.done
	d.mu.Lock()
	d.drawLocked()
	d.mu.Unlock()
}

// drawLocked redraws the table over the one on the screen.
func (d *Display) drawLocked() {
	lines := Table(d.b.Snapshot(), d.columns())
	var sb strings.Builder
	if d.drawn > 0 {
		fmt.Fprintf(&sb, "\x1b[%dA", d.drawn)
	}
	for _, l := range lines {
		sb.WriteString("\r\x1b[K")
		sb.WriteString(l)
		sb.WriteByte('\n')
	}
	sb.WriteString("\x1b[J")
	fmt.Fprint(d.o.Out, sb.String())
	d.drawn = len(lines)
}

func (d *Display) columns() int {
	if d.o.Width != nil {
		if w := d.o.Width(); w > 0 {
			return w
		}
	}
	return 80
}

// Table is the live table's lines, each at most width columns: a header
// and a row per document (document, state, chunks done/total,
// requirements, requests, elapsed); over MaxRows documents, the running
// ones and a line that counts the others.
func Table(entries []Entry, width int) []string {
	rows := entries
	var rest []Entry
	if len(entries) > MaxRows {
		rows = nil
		for _, e := range entries {
			if e.State == Running && len(rows) < MaxRows {
				rows = append(rows, e)
			} else {
				rest = append(rest, e)
			}
		}
	}
	name := 8
	for _, e := range rows {
		name = max(name, len([]rune(filepath.Base(e.Path))))
	}
	name = min(name, max(12, width-62))
	format := fmt.Sprintf("%%-%ds  %%-11s  %%9s  %%12s  %%8s  %%8s", name)
	lines := []string{fmt.Sprintf(format, "DOCUMENT", "STATE", "CHUNKS", "REQUIREMENTS", "REQUESTS", "ELAPSED")}
	for _, e := range rows {
		chunks, elapsed := "-", "-"
		if e.ChunksTotal > 0 {
			chunks = fmt.Sprintf("%d/%d", e.ChunksDone, e.ChunksTotal)
		}
		if e.Elapsed > 0 {
			elapsed = humanize.Duration(e.Elapsed.Round(time.Second))
		}
		lines = append(lines, fmt.Sprintf(format, humanize.Clip(filepath.Base(e.Path), name), e.State, chunks,
			humanize.Int(e.Requirements), humanize.Int(e.Requests), elapsed))
	}
	if len(rest) > 0 {
		s := Summary{Documents: rest}
		var parts []string
		for _, st := range []State{Pending, Completed, Stopped, Interrupted, Refused, Failed} {
			if n := s.Count(st); n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, st))
			}
		}
		lines = append(lines, fmt.Sprintf("… and %s: %s", humanize.Plural(len(rest), "more document"), strings.Join(parts, ", ")))
	}
	for i, l := range lines {
		lines[i] = humanize.Clip(strings.TrimRight(l, " "), width-1)
	}
	return lines
}
