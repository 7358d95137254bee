package main

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"creator/compaction"
	"creator/internal/agent"
	"creator/internal/humanize"
	"creator/planner"
	"creator/workspace"
)

// progress reports a running job on stderr. On a terminal it keeps one
// line up to date: step, current task, tasks done, requirements saved,
// tokens (and cost) and elapsed time. Elsewhere (a log, CI) it prints one
// plain line per task change. --verbose adds the model's text and
// reasoning and every tool call; --quiet prints nothing. It also keeps the
// usage in job.json current after every model call.
type progress struct {
	streams *IOStreams
	quiet   bool
	verbose bool
	live    bool // the updating line
	job     *workspace.Job
	priced  bool
	now     func() time.Time

	mu          sync.Mutex
	step        int
	started     time.Time
	task        string // current task, "3. Find candidates"
	done, total int
	reqs        int
	totals      agent.Totals
	compactions int // in this run
	// baseCompactions were recorded in job.json by earlier runs.
	baseCompactions int
	shown           bool // the live line is on the screen
	lastDraw        time.Time
	lastText        string
	stopTicker      chan struct{}
	tickerDone      chan struct{}
}

// redrawEvery spaces redraws of the live line; tests set it to zero.
var redrawEvery = 200 * time.Millisecond

func newProgress(streams *IOStreams, quiet, verbose bool, job *workspace.Job, priced bool, now func() time.Time) *progress {
	if now == nil {
		now = time.Now
	}
	return &progress{streams: streams, quiet: quiet, verbose: verbose && !quiet, live: streams.ErrTTY && !quiet,
		job: job, priced: priced, now: now}
}

// printf prints a line of its own, above the live line when there is one.
func (p *progress) printf(format string, a ...any) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.printLocked(fmt.Sprintf(format, a...))
}

func (p *progress) printLocked(line string) {
	if p.shown {
		fmt.Fprint(p.streams.ErrOut, "\r\x1b[K")
		p.shown = false
	}
	fmt.Fprintln(p.streams.ErrOut, line)
	if p.live && p.stopTicker != nil {
		p.drawLocked(true)
	}
}

// start prints the first line and, on a terminal, starts the live line.
func (p *progress) start(verb, model string, info workspace.Info, totals agent.Totals) {
	var names []string
	for _, in := range info.Inputs {
		names = append(names, in.Name)
	}
	p.printf("creator: job '%s' %s with model %s on %s (folder %s)", p.job.ID, verb, model, strings.Join(names, ", "), p.job.Dir)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started, p.totals, p.step = p.now(), totals, totals.Steps
	p.baseCompactions = info.Usage.Compactions
	p.reqs = countRequirements(p.job.Dir)
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
func (p *progress) tick(stop, done chan struct{}) {
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

// stop ends the live line: the lines printed after it start clean. It may
// be called more than once.
func (p *progress) stop() {
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
	if p.shown {
		fmt.Fprint(p.streams.ErrOut, "\r\x1b[K")
		p.shown = false
	}
}

func (p *progress) loadPlanLocked() {
	plan, err := planner.New(p.job, nil).Load()
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
func (p *progress) line() string {
	parts := []string{fmt.Sprintf("step %d", p.step)}
	if p.total > 0 {
		parts = append(parts, fmt.Sprintf("%d/%d tasks", p.done, p.total))
	}
	parts = append(parts, humanize.Plural(p.reqs, "requirement"))
	tokens := humanize.Int(p.totals.Tokens()) + " tokens"
	if p.priced && p.totals.CostUSD > 0 {
		tokens += " (" + dollars(p.totals.CostUSD) + ")"
	}
	parts = append(parts, tokens, humanize.Duration(p.now().Sub(p.started)))
	// The task comes last: on a narrow terminal it is what gets cut.
	if p.task != "" {
		parts = append(parts, "task "+p.task)
	}
	return strings.Join(parts, " · ")
}

// drawLocked rewrites the live line, at most every redrawEvery unless forced.
func (p *progress) drawLocked(force bool) {
	if !p.live || p.stopTicker == nil {
		return
	}
	now := time.Now()
	if !force && now.Sub(p.lastDraw) < redrawEvery {
		return
	}
	text := humanize.Clip(p.line(), p.streams.width()-1)
	if p.shown && text == p.lastText {
		return
	}
	p.lastDraw, p.lastText = now, text
	fmt.Fprint(p.streams.ErrOut, "\r\x1b[K"+text)
	p.shown = true
}

func (p *progress) ModelCalled(c agent.ModelCall) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.step, p.totals = c.Step, c.Totals
	_, _ = p.job.UpdateInfo(func(i *workspace.Info) {
		i.Usage = usageOf(c.Totals, p.priced, p.baseCompactions+p.compactions)
	})
	if p.verbose {
		head := fmt.Sprintf("[step %d] %s prompt (%s counted) + %s completion tokens, %s", c.Step, humanize.Int(c.Usage.PromptTokens), humanize.Int(c.Counted), humanize.Int(c.Usage.CompletionTokens), c.Latency.Round(time.Millisecond))
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

func (p *progress) ToolCalled(c agent.ToolCall) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// A new requirement says "saved REQ-…"; one saved before says "already
	// saved as …". Counting on saves the folder scan at every save.
	if c.Name == "save_requirement" && c.Err == nil && strings.HasPrefix(c.Result, "saved ") {
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

func (p *progress) compacted(e compaction.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.compactions++
	if p.verbose {
		p.printLocked(fmt.Sprintf("[step %d] context %s: %s → %s tokens (%s)", p.step, e.Kind, humanize.Int(e.Before), humanize.Int(e.After), e.Note))
	}
	p.drawLocked(false)
}

func (p *progress) planChanged(e planner.Event) {
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
