// Package batch runs one job per document, several at once: it finds the
// documents, gives each a stable job id, decides for each whether its job
// runs, resumes or is already done, runs the jobs through a Runner (the
// same path as creator run and resume), stops them at the batch's budget
// or at Ctrl-C, and writes what became of each document to batch.json and
// batch.md at the workspace root.
package batch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"creator/internal/agent"
	"creator/internal/coverage"
	"creator/internal/document"
	"creator/internal/job"
	"creator/internal/jobrun"
	"creator/tools"
	"creator/workspace"
)

// DefaultJobs is how many documents a batch works on at once.
const DefaultJobs = 2

// State is where a document of the batch stands.
type State string

const (
	// Pending: not started yet, or not started at all because Ctrl-C or
	// the batch's budget came first; the next batch runs it.
	Pending State = "pending"
	Running State = "running"
	// Completed: the job is done, in this batch or an earlier one.
	Completed State = "completed"
	// Stopped: the job stopped before completion and is resumable (a job
	// budget, the batch's budget, a loop, a failing server…).
	Stopped State = "stopped"
	// Interrupted: Ctrl-C stopped the job; resumable.
	Interrupted State = "interrupted"
	// Refused: the document cannot be used (damaged, encrypted, scanned,
	// empty…); no job was made. Permanent until the file changes.
	Refused State = "refused"
	// Failed: the job could not run: an error of the program, a job
	// folder that cannot be read, a key the model server rejects.
	Failed State = "failed"
)

// Entry is one document of the batch, as batch.json and --json show it.
type Entry struct {
	Path         string `json:"path"`
	Job          string `json:"job"`
	State        State  `json:"state"`
	Requirements int    `json:"requirements"`
	ChunksTotal  int    `json:"chunks_total"`
	ChunksDone   int    `json:"chunks_done"`
	// Requests are the model requests of the job, across its runs,
	// sub-agents' included.
	Requests int    `json:"requests"`
	Error    string `json:"error"`

	// Resume is the command that continues a stopped or interrupted job.
	Resume string `json:"-"`
	// Tokens and Cost are what this batch spent on the document.
	Tokens int64   `json:"-"`
	Cost   float64 `json:"-"`
	// Elapsed is how long the job ran in this batch.
	Elapsed time.Duration `json:"-"`
	// Skipped is true for a job completed before this batch.
	Skipped bool `json:"-"`

	resume bool      // the job folder exists: resume it
	began  time.Time // when it started running
	exit   int       // the job's exit code
}

// Runner runs one job, as creator run and resume do, with rep as its
// progress reporter. The caller closes nothing: the Runner opens, locks and
// closes the job. The error is for failures of the program.
type Runner interface {
	// Check reads a document as its job will (jobrun.CheckDocuments with
	// the runner's limits): an error is a document refused for good.
	Check(path string) (*document.Cache, error)
	// Start creates the job id for the document and runs it; extracted is
	// what Check read of it.
	Start(ctx context.Context, id, path string, extracted *document.Cache, rep jobrun.Reporter) (jobrun.Outcome, error)
	// Resume continues the job id.
	Resume(ctx context.Context, id string, rep jobrun.Reporter) (jobrun.Outcome, error)
}

// Options are one batch.
type Options struct {
	// Root is the workspace root; Documents the files, in order (Discover).
	Root      string
	Documents []string
	// Jobs is how many documents are worked on at once (0: DefaultJobs).
	Jobs   int
	Runner Runner
	// MaxTokens and MaxCost bound what this batch spends, all its jobs
	// together (0: no limit). At the limit no job starts and the running
	// ones stop, resumably.
	MaxTokens int64
	MaxCost   float64
	// Changed, if set, is told of each document whose state changes.
	Changed func(i int, e Entry)
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Batch is a batch being run.
type Batch struct {
	o       Options
	mu      sync.Mutex
	entries []Entry
	started time.Time
	tokens  int64
	cost    float64
	budget  string // why the batch's budget stopped it; "" while not
	stop    context.CancelCauseFunc
	// Notes are things said about the documents before the run: the
	// same document found twice.
	Notes []string
}

// errBudget is the cause of the cancellation at the batch's budget.
var errBudget = errors.New("the batch's budget was reached")

// New gives each document its job id and decides whether its job runs,
// resumes or is done already. A document given twice (the same bytes
// under the same name) is kept once, with a note.
func New(o Options) (*Batch, error) {
	if o.Jobs <= 0 {
		o.Jobs = DefaultJobs
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	b := &Batch{o: o, started: o.Now()}
	byID := map[string]string{}
	for _, p := range o.Documents {
		e := Entry{Path: p, State: Pending}
		id, err := JobID(p)
		if err != nil {
			e.State, e.Error = Refused, err.Error()
			b.entries = append(b.entries, e)
			continue
		}
		e.Job = id
		if first, ok := byID[id]; ok {
			b.Notes = append(b.Notes, fmt.Sprintf("%s is the same document as %s (job %s); it is run once", p, first, id))
			continue
		}
		byID[id] = p
		b.classify(&e)
		b.entries = append(b.entries, e)
	}
	return b, nil
}

// classify looks for the document's job: none (it runs), completed
// (skipped), else resumed.
func (b *Batch) classify(e *Entry) {
	v, err := job.OpenView(b.o.Root, e.Job)
	if errors.Is(err, workspace.ErrNoJob) {
		return
	}
	if err != nil {
		e.State, e.Error = Failed, err.Error()
		return
	}
	defer v.Close()
	info, err := v.Info()
	if err != nil {
		e.State, e.Error = Failed, fmt.Sprintf("job %s: %v", e.Job, err)
		return
	}
	e.resume = true
	if info.Status == workspace.StatusCompleted {
		e.State, e.Skipped = Completed, true
		figures(v, info, e)
	}
}

// figures fills in what the job folder says of the job.
func figures(v *job.View, info workspace.Info, e *Entry) {
	e.Requirements = v.CountSaved()
	e.Requests = info.Usage.Steps
	if r, err := v.Coverage(); err == nil {
		e.ChunksTotal, e.ChunksDone = r.Chunks, r.Chunks-r.Uncovered
	}
}

// Snapshot is the documents as they stand; Elapsed counts for the running
// ones too.
func (b *Batch) Snapshot() []Entry {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := append([]Entry(nil), b.entries...)
	now := b.o.Now()
	for i := range out {
		if out[i].State == Running {
			out[i].Elapsed = now.Sub(out[i].began)
		}
	}
	return out
}

// Started is when the batch began.
func (b *Batch) Started() time.Time { return b.started }

// Run runs the jobs, Options.Jobs at once, in the documents' order, until
// each has ended or ctx is cancelled (each job then stops resumably).
func (b *Batch) Run(ctx context.Context) Summary {
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	b.mu.Lock()
	b.stop = stop
	b.mu.Unlock()
	var todo []int
	for i, e := range b.entries {
		if e.State == Pending {
			todo = append(todo, i)
		}
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range b.o.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				b.runOne(ctx, runCtx, i)
			}
		}()
	}
	for _, i := range todo {
		select {
		case next <- i:
		case <-runCtx.Done():
		}
		if runCtx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
	b.mu.Lock()
	for i := range b.entries {
		switch e := &b.entries[i]; {
		case e.State != Pending:
		case b.budget != "":
			e.Error = "not started: " + b.budget
		case ctx.Err() != nil:
			e.Error = "not started: interrupted"
		}
	}
	b.mu.Unlock()
	s := Summary{Started: b.started, Finished: b.o.Now(), Documents: b.Snapshot(), Interrupted: ctx.Err() != nil}
	b.mu.Lock()
	s.Budget, s.Tokens, s.Cost = b.budget, b.tokens, b.cost
	b.mu.Unlock()
	return s
}

// update changes document i and tells Options.Changed when its state
// changed.
func (b *Batch) update(i int, change func(e *Entry)) {
	b.mu.Lock()
	before := b.entries[i].State
	change(&b.entries[i])
	e := b.entries[i]
	b.mu.Unlock()
	if e.State != before && b.o.Changed != nil {
		if e.State == Running {
			e.Elapsed = 0
		}
		b.o.Changed(i, e)
	}
}

// runOne runs the job of document i under runCtx; ctx is the batch's own
// (Ctrl-C).
func (b *Batch) runOne(ctx, runCtx context.Context, i int) {
	if runCtx.Err() != nil {
		return
	}
	var e Entry
	b.update(i, func(x *Entry) { x.began = b.o.Now(); e = *x })
	// A new document is read before its job is said to run: one that
	// cannot be used is refused, never shown running.
	var extracted *document.Cache
	if !e.resume {
		var cerr error
		if extracted, cerr = b.o.Runner.Check(e.Path); cerr != nil {
			b.update(i, func(e *Entry) {
				e.State, e.Error, e.Elapsed = Refused, cerr.Error(), b.o.Now().Sub(e.began)
			})
			return
		}
	}
	b.update(i, func(x *Entry) { x.State = Running })
	rep := &reporter{b: b, i: i}
	var out jobrun.Outcome
	var err error
	if e.resume {
		out, err = b.o.Runner.Resume(runCtx, e.Job, rep)
	} else {
		out, err = b.o.Runner.Start(runCtx, e.Job, e.Path, extracted, rep)
	}
	b.finish(ctx, runCtx, i, out, err)
}

// finish records how document i's job ended.
func (b *Batch) finish(ctx, runCtx context.Context, i int, out jobrun.Outcome, err error) {
	var info workspace.Info
	var fig Entry
	if v, verr := job.OpenView(b.o.Root, b.entries[i].Job); verr == nil {
		if info, verr = v.Info(); verr == nil {
			figures(v, info, &fig)
		}
		v.Close()
	}
	b.update(i, func(e *Entry) {
		e.Elapsed = b.o.Now().Sub(e.began)
		if fig.Requests > 0 || fig.ChunksTotal > 0 || fig.Requirements > 0 {
			e.Requirements, e.Requests, e.ChunksTotal, e.ChunksDone = fig.Requirements, fig.Requests, fig.ChunksTotal, fig.ChunksDone
		}
		e.exit = out.Exit
		switch {
		case err != nil && errors.Is(err, context.Canceled) && ctx.Err() != nil:
			e.State, e.Resume = Interrupted, "creator resume --job "+e.Job
		case err != nil && errors.Is(err, context.Canceled) && context.Cause(runCtx) == errBudget:
			e.State, e.Error, e.Resume = Stopped, b.budget, "creator resume --job "+e.Job
		case err != nil:
			e.State, e.Error, e.exit = Failed, err.Error(), jobrun.ExitFailure
		case out.Status == workspace.StatusCompleted:
			e.State, e.Error = Completed, ""
		case out.Status == workspace.StatusInterrupted && ctx.Err() != nil:
			e.State, e.Resume = Interrupted, out.Resume
		case out.Status == workspace.StatusInterrupted:
			// The batch's budget stopped it.
			e.State, e.Error, e.Resume, e.exit = Stopped, b.budget, out.Resume, jobrun.ExitIncomplete
		case out.Exit == jobrun.ExitFailure:
			e.State, e.Error, e.Resume = Failed, out.Agent.Reason, out.Resume
		default:
			e.State, e.Error, e.Resume = Stopped, out.Agent.Reason, out.Resume
		}
	})
}

// spend counts a model call's usage against the batch's budget and stops
// the batch when it is reached.
func (b *Batch) spend(tokens int64, cost float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tokens += tokens
	b.cost += cost
	if b.budget != "" {
		return
	}
	switch {
	case b.o.MaxTokens > 0 && b.tokens >= b.o.MaxTokens:
		b.budget = fmt.Sprintf("the batch reached --batch-max-tokens %d", b.o.MaxTokens)
	case b.o.MaxCost > 0 && b.cost >= b.o.MaxCost:
		b.budget = fmt.Sprintf("the batch reached --batch-max-cost %g", b.o.MaxCost)
	default:
		return
	}
	if b.stop != nil {
		b.stop(errBudget)
	}
}

// reporter follows one job for the batch: its requests, requirements and
// chunks, and what it spends. It prints nothing.
type reporter struct {
	jobrun.Silent
	b *Batch
	i int
}

func (r *reporter) Started(s jobrun.Start) {
	n := 0
	if s.View != nil {
		n = s.View.CountSaved()
	}
	r.b.update(r.i, func(e *Entry) { e.Requests, e.Requirements = s.Totals.Steps, n })
}

func (r *reporter) ModelCalled(c agent.ModelCall) {
	r.b.update(r.i, func(e *Entry) {
		e.Requests++
		e.Tokens += int64(c.Usage.PromptTokens + c.Usage.CompletionTokens)
		e.Cost += c.Cost
	})
	r.b.spend(int64(c.Usage.PromptTokens+c.Usage.CompletionTokens), c.Cost)
}

func (r *reporter) ToolCalled(c agent.ToolCall) {
	if saved, ok := c.Data.(tools.SavedRequirement); ok && c.Err == nil && !c.Repeat && !saved.Duplicate && !saved.Staged {
		r.b.update(r.i, func(e *Entry) { e.Requirements++ })
	}
}

func (r *reporter) CoverageChanged(c coverage.Report) {
	r.b.update(r.i, func(e *Entry) { e.ChunksTotal, e.ChunksDone = c.Chunks, c.Chunks-c.Uncovered })
}

func (r *reporter) ChunksChanged(c jobrun.ChunkProgress) {
	r.b.update(r.i, func(e *Entry) { e.Requirements += c.Saved })
}
