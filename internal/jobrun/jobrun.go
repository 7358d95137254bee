// Package jobrun runs the agent on a job: it wires the tools, the planner,
// context management, the search index, telemetry and the person's progress
// display around a model, records the run in job.json, and says how the
// run ended. It is the application layer between the command line and the
// packages that do the work.
package jobrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"creator/compaction"
	"creator/internal/agent"
	"creator/internal/cost"
	"creator/internal/coverage"
	"creator/internal/document"
	"creator/internal/humanize"
	"creator/internal/index"
	"creator/internal/job"
	"creator/internal/llm"
	"creator/internal/output"
	"creator/internal/telemetry"
	"creator/internal/tokens"
	"creator/internal/transcript"
	"creator/planner"
	"creator/tools"
	"creator/workspace"
)

// Config is one run of a job.
type Config struct {
	// Job is the open job; the caller holds its lock.
	Job *job.Job
	// Model answers the agent; ModelName is recorded in job.json.
	Model     llm.Model
	ModelName string
	// Pricing is the model's price per million tokens and whether it is
	// known; an unknown price leaves the cost out of every figure.
	Price  cost.Price
	Priced bool
	// Settings are the run's budgets (MaxSteps, MaxTokens, MaxCost), its
	// context management (ContextWindow, SummarizeAt, KeepToolResults), the
	// encoding prompts are counted with (Tokenizer; empty is
	// tokens.DefaultEncoding), the share of chunks that must be covered
	// before the job can complete (MinCoverage; 0 is DefaultMinCoverage) and
	// whether every tool definition goes with every request (AllTools)
	// instead of the core tools and those the model found
	// (tools.DeferredTools). They are recorded in job.json for later
	// resumes.
	Settings workspace.Settings
	// Compaction holds the figures of context management that are not
	// settings (ResultBudget, ClearAt, RecentSteps, Disabled), for tests and
	// comparisons; its ContextWindow, SummarizeAt and KeepToolResults must
	// be zero, those come from Settings.
	Compaction compaction.Config
	// Transcript is the conversation to resume from; nil starts the job.
	Transcript []transcript.Record
	// Embedder embeds the job's passages for semantic search; nil leaves
	// search to keywords.
	Embedder index.Embedder
	// Extracted are the documents CheckDocuments extracted; the agent's
	// extraction takes a job's document from there when its bytes are the
	// same. Nil (a resumed job) extracts each document anew.
	Extracted *document.Cache
	// PDFPassword opens the job's encrypted PDFs that need one, when
	// Extracted is nil. It is never recorded: not a setting.
	PDFPassword string
	// Reporter shows the run to a person; nil shows nothing.
	Reporter Reporter
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// limits are the budgets of the run.
func (c Config) limits() agent.Limits {
	s := c.Settings
	return agent.Limits{MaxSteps: s.MaxSteps, MaxTokens: s.MaxTokens, MaxCost: s.MaxCost}
}

// contextConfig is how the conversation is kept within the model's window.
func (c Config) contextConfig() compaction.Config {
	cm, s := c.Compaction, c.Settings
	cm.ContextWindow, cm.SummarizeAt, cm.KeepToolResults = s.ContextWindow, s.SummarizeAt, s.KeepToolResults
	return cm
}

// tokenizer names the encoding prompts are counted with.
func (c Config) tokenizer() string {
	if c.Settings.Tokenizer == "" {
		return tokens.DefaultEncoding
	}
	return c.Settings.Tokenizer
}

// parallel is how many sub-agents analyse chunks at once; 0 leaves the
// chunks to the main agent (no analyze_chunks).
func (c Config) parallel() int {
	if c.Settings.Parallel == nil {
		return 0
	}
	return max(*c.Settings.Parallel, 0)
}

// minCoverage is the share of chunks that must be covered before the job
// can complete.
func (c Config) minCoverage() float64 {
	if c.Settings.MinCoverage == 0 {
		return DefaultMinCoverage
	}
	return c.Settings.MinCoverage
}

// Start is what a reporter learns when the agent starts.
type Start struct {
	// View is the job as readers see it, for a reporter that reads its
	// plan or requirements. It is Config.Job's: the reporter does not close
	// it, whoever opened the job does, after Run.
	View      *job.View
	Resumed   bool
	Model     string
	Info      workspace.Info
	Totals    agent.Totals
	Context   compaction.Config // as context management applies it
	Priced    bool
	Price     cost.Price
	Tokenizer string
}

// Reporter shows a running job to a person. Its methods are called from
// the agent's goroutine; Stop may be called more than once.
type Reporter interface {
	agent.Observer
	Started(Start)
	// IndexOpened says how the search index was brought up to date; err
	// means search works with regular expressions only.
	IndexOpened(st index.SyncStats, err error)
	PlanChanged(planner.Event)
	Compacted(compaction.Event)
	// CoverageChanged tells how far the documents are covered.
	CoverageChanged(coverage.Report)
	// ChunksChanged tells how far an analyze_chunks call has come; it is
	// called from the sub-agents' goroutines.
	ChunksChanged(ChunkProgress)
	// ServerRetried tells why the job waits: a failed attempt at the
	// model server, tried again (llm.Retry).
	ServerRetried(llm.Retry)
	Stop()
}

// Outcome is how a run ended.
type Outcome struct {
	Status workspace.Status
	// Agent is the agent's outcome: the kind of stop, its reason, totals.
	Agent agent.Outcome
	// Resume is the command that continues the job, with a higher limit
	// when a budget stopped it; empty for a completed job.
	Resume string
	// Partial, for a job stopped at a budget, describes the output written
	// from what was saved so far; PartialErr says why there is none.
	Partial    string
	PartialErr error
	// Exit is the process exit code the outcome maps to (docs/exit-codes.md).
	Exit int
	// Context is what context management did in this run.
	Context compaction.Stats
}

// DefaultMaxSteps is the step budget of a job when none is given.
const DefaultMaxSteps = 500

// Process exit codes (docs/exit-codes.md).
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitIncomplete  = 3   // stopped before completion; resumable
	ExitInterrupted = 130 // Ctrl-C or SIGTERM; resumable
)

// OutputWritten reports whether output/requirements.json was written by
// the run: a completed job, or partial output at a budget.
func (o Outcome) OutputWritten() bool {
	return o.Status == workspace.StatusCompleted || (o.Partial != "" && o.PartialErr == nil)
}

// Ending is the run's exit code and, unless the job completed, what to
// say: why it stopped (with advice on the model server, when there is
// some) and the command that goes on.
func (o Outcome) Ending(jobID, advice string) (code int, msg string) {
	switch {
	case o.Status == workspace.StatusCompleted:
		return o.Exit, ""
	case o.Status == workspace.StatusInterrupted:
		return o.Exit, "interrupted; continue with: " + o.Resume
	case advice != "":
		return o.Exit, fmt.Sprintf("job '%s' stopped: %s: %s; then continue with: %s", jobID, o.Agent.Reason, advice, o.Resume)
	}
	return o.Exit, fmt.Sprintf("job '%s' stopped before completion: %s; continue with: %s", jobID, o.Agent.Reason, o.Resume)
}

// run is one Run call's parts.
type run struct {
	cfg      Config
	job      *job.Job
	ws       *workspace.Job // the job's raw files: the index, extraction, saved results
	report   Reporter
	now      func() time.Time
	planner  *planner.Planner
	events   *telemetry.Recorder
	agent    *agent.Agent
	context  *compaction.Manager
	coverage *coverageWatch
	usage    *usageRecorder
	fanout   *fanout // nil without sub-agents
	// meter counts the model calls of the main agent and its sub-agents.
	meter    *agent.Meter
	resuming bool
}

// Run runs the agent on the job until it completes or stops, and records
// the outcome in job.json, the plan's log and the events file. The error
// is for failures of the program (a file that cannot be written), not for
// a job that stopped.
func Run(ctx context.Context, cfg Config) (Outcome, error) {
	r := &run{cfg: cfg, job: cfg.Job, ws: cfg.Job.Workspace(), report: cfg.Reporter, now: cfg.Now, resuming: cfg.Transcript != nil}
	if r.report == nil {
		r.report = Silent{}
	}
	if r.now == nil {
		r.now = time.Now
	}
	defer r.report.Stop()
	info, err := r.job.Info()
	if err != nil {
		return Outcome{}, err
	}
	events, err := r.job.OpenEvents()
	if err != nil {
		return Outcome{}, fmt.Errorf("cannot open the job's events file: %w", err)
	}
	defer events.Close()
	if c := cfg.Compaction; c.ContextWindow != 0 || c.SummarizeAt != 0 || c.KeepToolResults != 0 {
		return Outcome{}, errors.New("jobrun: the context window, summary threshold and kept tool results are settings, not Config.Compaction")
	}
	counter, err := tokens.New(cfg.tokenizer())
	if err != nil {
		return Outcome{}, err
	}
	r.events = telemetry.New(events, counter, r.now, cfg.Priced)
	r.planner = r.job.Plan()
	r.planner.OnChange = r.planChanged
	searcher, closeIndex := r.openIndex(ctx)
	defer closeIndex()
	if err := r.assemble(counter, searcher, info); err != nil {
		return Outcome{}, err
	}
	if a, ok := cfg.Model.(llm.Adaptive); ok && info.Usage.Steps > 0 {
		// The server has answered this job: if it cannot be reached now,
		// it is restarting, and worth waiting for.
		a.MarkAnswered()
	}
	if rc, ok := cfg.Model.(llm.Retries); ok {
		rc.OnRetry(r.serverRetried)
		defer rc.OnRetry(nil)
	}
	return r.drive(ctx, info)
}

// serverRetried tells of a failed attempt at the model server that the
// client tries again: in the job's events (status shows it) and to the
// reporter.
func (r *run) serverRetried(rt llm.Retry) {
	r.events.ServerRetry(rt.Attempt, rt.Status, rt.Message, rt.Wait, rt.Next)
	r.report.ServerRetried(rt)
}

func (r *run) planChanged(e planner.Event) {
	r.report.PlanChanged(e)
	kind := telemetry.TypeTaskStarted
	if e.Kind == "task_completed" {
		kind = telemetry.TypeTaskCompleted
	}
	r.events.Task(kind, e.Task.Number, e.Task.Text)
}

// openIndex opens the job's search index, brought up to date with its
// files and kept so by the job's change watcher. Without it, search_files
// still scans with regular expressions.
func (r *run) openIndex(ctx context.Context) (tools.Searcher, func()) {
	idx, err := index.OpenWith(ctx, r.ws.Dir, r.ws.FS(), index.Options{Embedder: r.cfg.Embedder})
	if err != nil {
		r.report.IndexOpened(index.SyncStats{}, err)
		return index.ScanOnly{FS: r.ws.FS(), Reason: err}, func() {}
	}
	r.report.IndexOpened(idx.Stats(), nil)
	r.ws.Watch(idx)
	return idx, func() {
		r.ws.Watch(nil)
		_ = idx.Close()
	}
}

// drive records the run as started, runs the agent and concludes.
func (r *run) drive(ctx context.Context, info workspace.Info) (Outcome, error) {
	cfg := r.cfg
	if _, err := r.job.UpdateInfo(func(i *workspace.Info) {
		i.Status, i.StopReason, i.FinishedAt = workspace.StatusRunning, "", nil
		i.Model = cfg.ModelName
		i.Settings = cfg.Settings
	}); err != nil {
		return Outcome{}, err
	}
	verb := "started"
	if r.resuming {
		verb = "resumed"
	}
	_ = r.planner.Log(fmt.Sprintf("job %s with model %s", verb, cfg.ModelName))
	conv, startTotals := agent.Rebuild(cfg.Transcript)
	jobTotals, err := r.subagentTotals(startTotals)
	if err != nil {
		return Outcome{}, err
	}
	r.meter = agent.NewMeter(jobTotals)
	r.agent.Meter = r.meter
	r.events.JobStarted(cfg.ModelName, r.resuming, startTotals.Steps, cfg.Settings)
	r.report.Started(Start{View: r.job.View(), Resumed: r.resuming, Model: cfg.ModelName, Info: info, Totals: jobTotals,
		Context: r.context.Config(), Priced: cfg.Priced, Price: cfg.Price, Tokenizer: cfg.tokenizer()})
	r.coverage.started()

	var out agent.Outcome
	first := firstMessage(r.job.ID, info)
	if r.resuming {
		out, err = r.agent.ResumeRebuilt(ctx, conv, startTotals, first)
	} else {
		out, err = r.agent.Start(ctx, first)
	}
	r.report.Stop()
	if err != nil {
		r.finish(workspace.StatusFailed, err.Error(), r.agent.Totals())
		r.events.JobFinished(string(workspace.StatusFailed), ExitFailure, err.Error(), r.agent.Totals())
		return Outcome{}, err
	}
	o := r.conclude(out)
	o.Context = r.context.Stats()
	r.events.JobFinished(string(o.Status), o.Exit, out.Reason, out.Totals)
	return o, nil
}

// subagentTotals adds the model calls of the job's sub-agents, from their
// transcripts, to the main agent's.
func (r *run) subagentTotals(main agent.Totals) (agent.Totals, error) {
	subs, err := r.job.SubagentTranscripts()
	if err != nil {
		return main, err
	}
	t := main
	for _, recs := range subs {
		t = t.Plus(agent.StepTotals(recs))
	}
	return t, nil
}

// firstMessage opens the conversation: the job and its input files, also
// as data.
func firstMessage(id string, info workspace.Info) llm.Message {
	var docs []string
	for _, in := range info.Inputs {
		docs = append(docs, fmt.Sprintf("input/%s (%s)", in.Name, humanize.Bytes(in.Bytes)))
	}
	return llm.Message{Content: fmt.Sprintf("Job %s. Source documents: %s. Start by reading instructions.md.", id, strings.Join(docs, ", ")),
		Data: llm.MessageData{Value: llm.ValueOf(workspace.Assignment{Job: id, Inputs: info.InputNames()})}}
}

// conclude records how the run ended, writes the output of a job stopped
// at a budget, and maps the outcome to an exit code.
func (r *run) conclude(out agent.Outcome) Outcome {
	o := Outcome{Agent: out, Resume: "creator resume --job " + r.job.ID}
	switch out.Kind {
	case agent.Completed:
		o.Status, o.Resume, o.Exit = workspace.StatusCompleted, "", ExitOK
		r.finish(o.Status, "", out.Totals)
		_ = r.planner.Log("job completed")
		return o
	case agent.Interrupted:
		o.Status, o.Exit = workspace.StatusInterrupted, ExitInterrupted
		r.finish(o.Status, "", out.Totals)
		_ = r.planner.Log("job interrupted")
		return o
	case agent.ToolFailures, agent.FolderFailed:
		o.Status = workspace.StatusFailed
		r.finish(o.Status, out.Reason, out.Totals)
		r.noteError(out)
	default:
		o.Status = workspace.StatusStopped
		r.finish(o.Status, out.Reason, out.Totals)
	}
	_ = r.planner.Log("job stopped: " + out.Reason)
	o.Resume += r.higherLimit(out)
	if budget(out.Kind) {
		// A budget is not a failure: what exists so far becomes the output.
		note := fmt.Sprintf("Partial result: the job stopped before completion (%s). Continue it with `%s`.", out.Reason, o.Resume)
		var cov *output.Coverage
		if m, err := r.job.Coverage(); err == nil {
			note = fmt.Sprintf("Partial result: the job stopped before completion (%s); coverage: %s. Continue it with `%s`.", out.Reason, m, o.Resume)
			cov = m.Summary()
		}
		res, err := r.job.Requirements().Finalize(note, cov)
		if err != nil {
			o.PartialErr = err
		} else {
			o.Partial = res.String()
		}
	}
	o.Exit = ExitIncomplete
	switch {
	case out.Kind == agent.FolderFailed:
		// The machine's to mend, not a limit: an error.
		o.Exit = ExitFailure
	case out.Kind != agent.ModelFailed:
	case errors.Is(out.Err, llm.ErrAuth):
		// A wrong key is not fixed by waiting.
		o.Exit = ExitFailure
	case errors.Is(out.Err, llm.ErrUnreachable):
		// No server at the address before the job's first answer: a
		// setting to fix.
		o.Exit = ExitUsage
	}
	return o
}

// learnedWindow records the context window the server stated: it is the
// job's setting from now on, so a resume uses it unless --context-window
// says otherwise.
func (r *run) learnedWindow(tokens int) {
	r.cfg.Settings.ContextWindow = tokens
	_, _ = r.job.UpdateInfo(func(i *workspace.Info) { i.Settings.ContextWindow = tokens })
	_ = r.planner.Log(fmt.Sprintf("the model server says its context window is %d tokens; context management uses that from now on", tokens))
}

// budget reports whether the job stopped at one of its budgets.
func budget(k agent.StopKind) bool {
	return k == agent.StepLimit || k == agent.TokenLimit || k == agent.CostLimit
}

// higherLimit is the flag that lets a job stopped at a budget go on.
func (r *run) higherLimit(out agent.Outcome) string {
	l := r.cfg.limits()
	switch out.Kind {
	case agent.StepLimit:
		return fmt.Sprintf(" --max-steps %d", max(2*l.MaxSteps, l.MaxSteps+100))
	case agent.TokenLimit:
		return fmt.Sprintf(" --max-tokens %d", max(2*l.MaxTokens, 2*out.Totals.Tokens()))
	case agent.CostLimit:
		// Twice the budget, or twice what was spent (one call can overshoot).
		return fmt.Sprintf(" --max-cost %g", max(2*l.MaxCost, ceilCents(2*out.Totals.CostUSD)))
	}
	return ""
}

// finish records the final state in job.json.
func (r *run) finish(status workspace.Status, reason string, t agent.Totals) {
	now := r.now().UTC()
	_, _ = r.job.UpdateInfo(func(i *workspace.Info) {
		i.Status, i.StopReason = status, reason
		i.Usage = usageOf(t, r.cfg.Priced, i.Usage.Compactions)
		i.FinishedAt = &now
	})
}

// usageOf is the job.json form of the totals.
func usageOf(t agent.Totals, priced bool, compactions int) workspace.Usage {
	u := workspace.Usage{Steps: t.Steps, PromptTokens: t.PromptTokens, CompletionTokens: t.CompletionTokens, CachedTokens: t.CachedTokens, Compactions: compactions}
	if priced {
		c := t.CostUSD
		u.CostUSD = &c
	}
	return u
}

// noteError appends what stopped the job to notes/errors.md, for the
// person who looks at the job folder and for the agent after a resume.
func (r *run) noteError(out agent.Outcome) {
	entry := fmt.Sprintf("\n## %s — the job stopped\n\n%s.\n\nFix the cause if it is outside the job, then continue with `creator resume --job %s`.\n",
		r.now().UTC().Format(time.RFC3339), strings.TrimSuffix(out.Reason, "."), r.job.ID)
	_ = r.job.AppendNote("notes/errors.md", entry)
}

// CheckDocuments reads each document as the agent's extraction will, so
// that one that cannot be used (damaged, encrypted, scanned, empty, too
// large) is refused before a job is made and any model call is paid for.
// It returns what it extracted, for Config.Extracted: the job's copies of
// the documents are then not extracted again. The error is the
// document's own; the caller says what it means (no job was created).
//
// opts are the extraction's: the most text a document may give (MaxText,
// 0: document.DefaultMaxText) and the password of encrypted PDFs.
func CheckDocuments(paths []string, opts document.Options) (*document.Cache, error) {
	return CheckDocumentsContext(context.Background(), paths, opts)
}

// CheckDocumentsContext is CheckDocuments that stops, with ctx's error,
// when ctx ends (an interrupt during the extraction of a large PDF).
func CheckDocumentsContext(ctx context.Context, paths []string, opts document.Options) (*document.Cache, error) {
	extracted := document.NewCache(opts)
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			continue // workspace.Create says what is wrong with it
		} else if err != nil {
			continue
		}
		if _, err := extracted.ExtractContext(ctx, p); err != nil {
			return nil, err
		}
	}
	return extracted, nil
}
