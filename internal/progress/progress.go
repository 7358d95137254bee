// Package progress shows a running job on stderr: one updating line on a
// terminal, one plain line per task change elsewhere.
package progress

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"creator/compaction"
	"creator/internal/agent"
	"creator/internal/cost"
	"creator/internal/coverage"
	"creator/internal/humanize"
	"creator/internal/index"
	"creator/internal/job"
	"creator/internal/jobrun"
	"creator/internal/llm"
	"creator/planner"
	"creator/tools"
)

// Options say where and how much a Display shows.
type Options struct {
	Out io.Writer
	// Live keeps one updating line, for a terminal Width columns wide.
	Live  bool
	Width func() int
	// Quiet shows nothing; Verbose adds the model's text and reasoning and
	// every tool call.
	Quiet, Verbose bool
	// RedrawEvery spaces redraws of the live line (default 200 ms).
	RedrawEvery time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Display reports a running job. On a terminal it keeps one line up to
// date: step, current task, tasks done, requirements saved, tokens (and
// cost) and elapsed time. Elsewhere (a log, CI) it prints one plain line
// per task change.
type Display struct {
	out         io.Writer
	width       func() int
	quiet       bool
	verbose     bool
	live        bool // the updating line
	redrawEvery time.Duration
	job         *job.View
	priced      bool
	now         func() time.Time

	mu          sync.Mutex
	step        int
	started     time.Time
	task        string // current task, "3. Find candidates"
	done, total int
	reqs        int
	covered     int // chunks covered, of chunks
	chunks      int
	// fan is the analyze_chunks call under way.
	fan    jobrun.ChunkProgress
	totals agent.Totals
	// waiting is the server's failure the client is waiting to try
	// again after, until the next answer.
	waiting    *llm.Retry
	shown      bool // the live line is on the screen
	lastDraw   time.Time
	lastText   string
	stopTicker chan struct{}
	tickerDone chan struct{}
}

// New makes a display; it shows nothing until the run starts.
func New(o Options) *Display {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.RedrawEvery == 0 {
		o.RedrawEvery = 200 * time.Millisecond
	}
	return &Display{out: o.Out, width: o.Width, quiet: o.Quiet, verbose: o.Verbose && !o.Quiet, live: o.Live && !o.Quiet,
		redrawEvery: o.RedrawEvery, now: o.Now}
}

// printf prints a line of its own, above the live line when there is one.
func (p *Display) printf(format string, a ...any) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.printLocked(fmt.Sprintf(format, a...))
}

func (p *Display) printLocked(line string) {
	if p.shown {
		fmt.Fprint(p.out, "\r\x1b[K")
		p.shown = false
	}
	fmt.Fprintln(p.out, line)
	if p.live && p.stopTicker != nil {
		p.drawLocked(true)
	}
}

// columns is the width of the terminal, 80 when unknown.
func (p *Display) columns() int {
	if p.width != nil {
		if w := p.width(); w > 0 {
			return w
		}
	}
	return 80
}

// IndexOpened tells of a search index that had to be rebuilt, or that
// could not be opened.
func (p *Display) IndexOpened(st index.SyncStats, err error) {
	switch {
	case err != nil:
		p.printf("creator: warning: %v; search_files works with regex: true only", err)
	case st.Rebuilt && st.Reason != "no index yet":
		p.printf("creator: search index rebuilt (%s): %d files", st.Reason, st.Files)
	case st.Indexed+st.Removed > 0 && p.verbose:
		p.printf("creator: search index: %d changed files indexed again, %d removed", st.Indexed, st.Removed)
	}
}

// Started prints the first line and, on a terminal, starts the live line.
func (p *Display) Started(s jobrun.Start) {
	verb := "started"
	if s.Resumed {
		verb = "resumed"
	}
	p.printf("creator: job '%s' %s with model %s on %s (folder %s)", s.View.ID, verb, s.Model, strings.Join(s.Info.InputNames(), ", "), s.View.Dir)
	if p.verbose {
		c := s.Context
		p.printf("creator: context window %s tokens; clearing from %s, summary at %s, %d tool results kept, results over %s tokens saved to .agent/results/; counted with %s",
			humanize.Int(c.ContextWindow), humanize.Int(c.ClearAt), humanize.Int(c.SummarizeAt), c.KeepToolResults, humanize.Int(c.ResultBudget), s.Tokenizer)
		if s.Priced && s.Price != (cost.Price{}) {
			p.printf("creator: priced at $%g in, $%g out per million tokens", s.Price.In, s.Price.Out)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.job = s.View
	p.priced = s.Priced
	p.started, p.totals, p.step = p.now(), s.Totals, s.Totals.Steps
	if p.job != nil {
		p.reqs = p.job.CountSaved()
	}
	p.loadPlanLocked()
	if !p.live {
		return
	}
	p.stopTicker, p.tickerDone = make(chan struct{}), make(chan struct{})
	go p.tick(p.stopTicker, p.tickerDone)
	p.drawLocked(true)
}

// tick redraws the live line every second, so the elapsed time moves while
// the model thinks.
func (p *Display) tick(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.drawLocked(true)
			p.mu.Unlock()
		}
	}
}

// Stop ends the live line: the lines printed after it start clean. It may
// be called more than once.
func (p *Display) Stop() {
	p.mu.Lock()
	stop, done := p.stopTicker, p.tickerDone
	p.stopTicker = nil
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.job = nil // the run's job, closed by whoever opened it
	if p.shown {
		fmt.Fprint(p.out, "\r\x1b[K")
		p.shown = false
	}
}

func (p *Display) loadPlanLocked() {
	if p.job == nil {
		return
	}
	plan, err := p.job.Plan()
	if err != nil {
		return
	}
	s := planner.SummaryOf(plan)
	p.done, p.total, p.task = s.Done, s.Total, ""
	if s.Current != nil {
		p.task = fmt.Sprintf("%d. %s", s.Current.Number, s.Current.Text)
	}
}

// line is the live line's text.
func (p *Display) line() string {
	parts := []string{fmt.Sprintf("step %d", p.step)}
	if p.total > 0 {
		parts = append(parts, fmt.Sprintf("%d/%d tasks", p.done, p.total))
	}
	if p.chunks > 0 {
		parts = append(parts, fmt.Sprintf("%d/%d chunks covered", p.covered, p.chunks))
	}
	if p.fan.Running > 0 {
		parts = append(parts, humanize.Plural(p.fan.Running, "sub-agent")+" running")
	}
	parts = append(parts, humanize.Plural(p.reqs, "requirement"))
	tokens := humanize.Int(p.totals.Tokens()) + " tokens"
	if p.priced && p.totals.CostUSD > 0 {
		tokens += " (" + humanize.Dollars(p.totals.CostUSD) + ")"
	}
	parts = append(parts, tokens, humanize.Duration(p.now().Sub(p.started)))
	if w := p.waiting; w != nil {
		parts = append(parts, "waiting for the server: "+retryText(*w))
	}
	// The task comes last: on a narrow terminal it is what gets cut.
	if p.task != "" {
		parts = append(parts, "task "+p.task)
	}
	return strings.Join(parts, " · ")
}

// drawLocked rewrites the live line, at most every redrawEvery unless forced.
func (p *Display) drawLocked(force bool) {
	if !p.live || p.stopTicker == nil {
		return
	}
	now := time.Now()
	if !force && now.Sub(p.lastDraw) < p.redrawEvery {
		return
	}
	text := humanize.Clip(p.line(), p.columns()-1)
	if p.shown && text == p.lastText {
		return
	}
	p.lastDraw, p.lastText = now, text
	fmt.Fprint(p.out, "\r\x1b[K"+text)
	p.shown = true
}

// ModelCalled updates the line; with --verbose it prints the call.
func (p *Display) ModelCalled(c agent.ModelCall) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.step, p.totals, p.waiting = c.Totals.Steps, c.Totals, nil
	if p.verbose {
		who := fmt.Sprintf("step %d", c.Totals.Steps)
		if c.Agent != "" {
			who = fmt.Sprintf("%s, call %d", c.Agent, c.Step)
		}
		head := fmt.Sprintf("[%s] %s prompt (%s counted) + %s completion tokens, %s", who, humanize.Int(c.Usage.PromptTokens), humanize.Int(c.Counted), humanize.Int(c.Usage.CompletionTokens), c.Latency.Round(time.Millisecond))
		if c.Usage.CachedTokens > 0 {
			head += fmt.Sprintf(", %s cached", humanize.Int(c.Usage.CachedTokens))
		}
		p.printLocked(head)
		if r := strings.TrimSpace(c.Reasoning); r != "" {
			p.printLocked("  reasoning: " + humanize.Clip(humanize.OneLine(r), 400))
		}
		if t := strings.TrimSpace(c.Content); t != "" {
			p.printLocked("  text: " + humanize.Clip(humanize.OneLine(t), 400))
		}
	}
	p.drawLocked(false)
}

// ServerRetried tells why the job waits: the server's failed answer and
// when the next attempt goes, once per failure — a line of its own with
// --verbose and where no line is kept up to date, on the live line
// otherwise, until the server answers.
func (p *Display) ServerRetried(r llm.Retry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waiting = &r
	if !p.quiet && (p.verbose || !p.live) {
		p.printLocked("creator: the model server failed (attempt " + fmt.Sprint(r.Attempt) + "): " + retryText(r))
	}
	p.drawLocked(true)
}

// retryText is a failure tried again, for people.
func retryText(r llm.Retry) string {
	what := "no answer"
	if r.Status != 0 {
		what = fmt.Sprintf("HTTP %d", r.Status)
	}
	if r.Message != "" {
		what += " " + strconv.Quote(humanize.Clip(humanize.OneLine(r.Message), 160))
	}
	return fmt.Sprintf("%s; trying again at %s (in %s)", what, r.Next.Local().Format("15:04:05"), r.Wait.Round(100*time.Millisecond))
}

// ToolCalled updates the line; with --verbose it prints the call.
func (p *Display) ToolCalled(c agent.ToolCall) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// Counting the saves spares a folder scan at every save.
	if saved, ok := c.Data.(tools.SavedRequirement); ok && c.Err == nil && !c.Repeat && !saved.Duplicate && !saved.Staged {
		p.reqs++
	}
	if p.verbose {
		status := "ok"
		if c.Err != nil {
			status = "error: " + humanize.Clip(humanize.OneLine(c.Err.Error()), 200)
		}
		p.printLocked(fmt.Sprintf("  %s %s → %s (%s)", c.Name, humanize.Clip(humanize.OneLine(c.Arguments), 160), status, c.Duration.Round(100*time.Microsecond)))
	}
	p.drawLocked(false)
}

// Compacted shows, with --verbose, how context management shrank the
// conversation.
func (p *Display) Compacted(e compaction.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.verbose {
		p.printLocked(fmt.Sprintf("[step %d] context %s: %s → %s tokens (%s)", p.step, e.Kind, humanize.Int(e.Before), humanize.Int(e.After), e.Note))
	}
	p.drawLocked(false)
}

// ChunksChanged shows the sub-agents at work and counts the requirements
// their chunks committed.
func (p *Display) ChunksChanged(c jobrun.ChunkProgress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqs += c.Saved
	p.fan = c
	p.drawLocked(false)
}

// CoverageChanged updates the chunks covered on the line.
func (p *Display) CoverageChanged(r coverage.Report) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.covered, p.chunks = r.Covered(), r.Chunks
	p.drawLocked(false)
}

// PlanChanged shows a task that started or was completed.
func (p *Display) PlanChanged(e planner.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.loadPlanLocked()
	if p.quiet {
		return
	}
	if p.live {
		p.drawLocked(true)
		return
	}
	verb := "started"
	if e.Kind == "task_completed" {
		verb = "completed"
	}
	p.printLocked(fmt.Sprintf("[step %d] task %d %s: %s", p.step, e.Task.Number, verb, e.Task.Text))
}
