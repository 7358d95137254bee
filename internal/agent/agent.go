// Package agent is the loop of one self-directing agent: call the model,
// record its answer, run its tool calls, record the results, check whether
// the plan is complete, repeat. It depends only on interfaces: the model,
// the tools, the completion check, the journal and an optional hook for
// context management.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"syscall"
	"time"

	"creator/internal/humanize"
	"creator/internal/llm"
	"creator/internal/transcript"
)

// Tools runs the model's tool calls. Definitions are read before every
// model call, so the tools sent may grow during a job.
type Tools interface {
	Definitions() []llm.ToolDef
	Call(ctx context.Context, name string, args json.RawMessage) (llm.ToolResult, error)
}

// Catalog is Tools that sends only some of the tools it can run: Known
// names every tool the model may call.
type Catalog interface {
	Tools
	Known() []string
}

// Completion tells whether the job is complete. It looks at the job's
// files (plan and output), never at what the model says.
type Completion interface {
	Check() (CompletionStatus, error)
}

// CompletionStatus is the answer of a completion check.
type CompletionStatus struct {
	Done bool
	// Missing lists what is not done yet (open tasks, a missing output), for
	// the reminder sent when the model stops calling tools too early.
	Missing []string
}

// Journal records the conversation durably (the transcript).
type Journal interface {
	Append(transcript.Record) error
}

// Hook is where context management plugs in. ToolResult may replace a
// tool's result before it enters the conversation (an oversized one);
// BeforeCall prepares the conversation before each model call; Overflow is
// called when the server answers that the prompt is too long and must
// shorten the conversation; err is the server's answer (an
// *llm.ContextLengthError says the window when the server did).
// PromptTokens counts the prompt a call would send.
type Hook interface {
	ToolResult(call llm.ToolCall, result string) string
	BeforeCall(ctx context.Context, conv *Conversation) error
	Overflow(ctx context.Context, conv *Conversation, err error) error
	PromptTokens(conv *Conversation) int
}

// Observer hears about every model call and tool call (telemetry, progress).
type Observer interface {
	ModelCalled(ModelCall)
	ToolCalled(ToolCall)
}

// ModelCall describes one finished model call.
type ModelCall struct {
	// Agent is the agent that made it: "" for the main agent, the chunk
	// for a sub-agent.
	Agent        string
	Step         int
	Model        string
	Usage        llm.Usage
	Counted      int     // prompt tokens as counted before the call
	Cost         float64 // US dollars, by the agent's Price
	Latency      time.Duration
	FinishReason string
	Attempts     int
	ToolCalls    int
	Totals       Totals
	Content      string
	Reasoning    string
}

// ToolCall describes one finished tool call, or one that did not run.
type ToolCall struct {
	Agent     string // as in ModelCall
	Step      int
	Name      string
	Arguments string
	Duration  time.Duration
	Err       error
	Result    string
	// Data is the tool's data beside its text, as the tool gave it.
	Data any
	// Notes say what the loop read how before running it (a tool name,
	// arguments repaired, a call written as text).
	Notes []string
	// Repeat is true for a call answered as a repeat of an earlier one.
	Repeat bool
	// NotRun is true for a call that could not run (Err says why).
	NotRun bool
}

// Totals are the job's cumulative figures.
type Totals struct {
	Steps            int
	PromptTokens     int64
	CompletionTokens int64
	CachedTokens     int64   // of the prompt tokens, as reported by the server
	CostUSD          float64 // by the agent's Price
}

// Tokens is prompt plus completion tokens.
func (t Totals) Tokens() int64 { return t.PromptTokens + t.CompletionTokens }

// Limits stop the job before completion; zero means no limit. They count
// the whole job, across resumes.
type Limits struct {
	MaxSteps  int
	MaxTokens int64
	MaxCost   float64 // US dollars, by the agent's Price
	// MaxOwnSteps limits this agent's own model calls (a sub-agent's),
	// where MaxSteps counts the job's.
	MaxOwnSteps int
	// OwnProgress, when set, raises MaxOwnSteps by the work the agent has
	// done so far (a sub-agent's distinct saves): a model that makes one
	// call per answer needs a call per requirement, so what the limit
	// bounds is the calls that did nothing new, not the size of the work.
	OwnProgress func() int
}

// StopKind says why the loop ended.
type StopKind int

const (
	Completed    StopKind = iota
	StepLimit             // --max-steps reached
	TokenLimit            // --max-tokens reached
	ModelGaveUp           // text-only answers despite reminders
	ToolFailures          // the same tool failed again and again
	ModelFailed           // the server failed after its retries
	Interrupted           // Ctrl-C or SIGTERM
	CostLimit             // --max-cost reached
	Loop                  // the model repeated the same calls again and again
	OutputLimit           // the model's answers were cut off at its output limit
	FolderFailed          // the job's folder cannot be written: permissions, a full disk, a read-only file system
)

// Resumable reports whether `creator resume` can continue after this stop.
func (k StopKind) Resumable() bool { return k != Completed }

func (k StopKind) String() string {
	return [...]string{"completed", "step limit", "token limit", "model gave up", "tool failures", "model failed", "interrupted", "cost limit", "loop", "output limit", "folder failed"}[k]
}

// Outcome is how the loop ended.
type Outcome struct {
	Kind   StopKind
	Reason string
	Totals Totals
	// Err is the model's error when Kind is ModelFailed.
	Err error
}

// Thresholds of the loop.
const (
	// MaxReminders is how many answers in a row without a tool call that
	// could run the model gets a reminder for before the job stops.
	MaxReminders = 3
	// MaxToolFailures is how many answers in a row in which every call of
	// one tool failed stop the job.
	MaxToolFailures = 3
	// A tool that failed in failWindowMax of the job's last failWindow
	// answers is refused for the next pauseAnswers answers.
	failWindow    = 10
	failWindowMax = 7
)

// Agent runs the loop. Fields must be set before Run; Hook and Observer may
// be nil.
type Agent struct {
	Model      llm.Model
	Tools      Tools
	Completion Completion
	Journal    Journal
	Hook       Hook
	Observer   Observer
	// System is the system prompt; it never changes during a job, so
	// servers can cache the prompt prefix.
	System string
	Limits Limits
	Now    func() time.Time
	// Price returns what a call cost in US dollars; nil counts nothing.
	Price func(model string, u llm.Usage) float64
	// Meter, when set, counts the calls of every agent of the job: the
	// limits and the figures reported are its totals. Nil counts this
	// agent's calls only.
	Meter *Meter
	// Label names the agent in what observers hear ("" for the main
	// agent).
	Label string

	// totals count this agent's own calls; its steps number them.
	totals Totals
}

// jobTotals are the figures the limits apply to: the job's with a Meter,
// else this agent's.
func (a *Agent) jobTotals() Totals {
	if a.Meter != nil {
		return a.Meter.Totals()
	}
	return a.totals
}

func (a *Agent) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// Start begins a new job with its first user message (its role is set
// here), which may carry the job's particulars as data.
func (a *Agent) Start(ctx context.Context, first llm.Message) (Outcome, error) {
	conv := &Conversation{}
	first.Role = llm.RoleUser
	if err := a.add(conv, 0, first); err != nil {
		return Outcome{}, err
	}
	return a.Run(ctx, conv)
}

// Run drives the conversation until the job is complete or must stop.
// The returned error is for failures that leave the job in an unknown
// state (the transcript cannot be written); every other end is an Outcome.
func (a *Agent) Run(ctx context.Context, conv *Conversation) (Outcome, error) {
	r := &run{strikes: newStrikes(), repeats: newRepeats(), ids: conv.ids()}
	if c, ok := a.Tools.(Catalog); ok {
		r.names = c.Known()
	} else {
		for _, d := range a.Tools.Definitions() {
			r.names = append(r.names, d.Name)
		}
	}
	r.repeats.seed(conv)
	for {
		if out, stop := a.checkLimits(ctx); stop {
			return a.stop(out.Kind, out.Reason)
		}
		resp, counted, latency, err := a.complete(ctx, conv, r)
		if err != nil {
			if ctx.Err() != nil {
				return a.stop(Interrupted, "interrupted")
			}
			var mf *modelFailure
			if errors.As(err, &mf) {
				return a.modelFailed(mf.err)
			}
			return Outcome{}, err
		}
		step, ans, err := a.record(conv, resp, counted, latency, r)
		if err != nil {
			return Outcome{}, err
		}
		if ans.runnable() == 0 {
			// Nothing ran, so nothing changed in the workspace: the check
			// of the files, if one is needed, is noCallToRun's.
			end, err := a.noCallToRun(conv, step, &ans, r)
			if err != nil {
				return Outcome{}, err
			}
			if end != nil {
				return a.stop(end.kind, end.reason)
			}
			continue
		}
		r.idle = nil
		end, err := a.runCalls(ctx, conv, step, &ans, r)
		if err != nil {
			return Outcome{}, err
		}
		if end != nil {
			return a.stop(end.kind, end.reason)
		}
		if r.folder != nil {
			// No answer of the model mends the folder: the job stops at
			// once, resumable when the folder is.
			return a.stop(FolderFailed, fmt.Sprintf("the job's folder cannot be written (%v): fix its permissions or free space, then resume", r.folder))
		}
		if ctx.Err() != nil {
			return a.stop(Interrupted, "interrupted")
		}
		status, err := a.Completion.Check()
		if err != nil {
			return Outcome{}, err
		}
		if status.Done {
			return a.stop(Completed, "")
		}
	}
}

// ending is why an answer ends the loop.
type ending struct {
	kind   StopKind
	reason string
}

// run is the state of one Run: what the loop counts across answers.
type run struct {
	names []string // every tool the model may call
	// ids are the tool-call ids of the job: of the conversation, and of
	// the transcript's earlier turns that summaries dropped.
	ids     map[string]bool
	strikes *strikes
	repeats *repeats
	// idle describes the answers in a row that had no call to run: for
	// each, why ("text", "cut off", "calls not run", "text calls"). Any
	// answer with a call that could run ends the row, whether the call
	// worked or not: the model is working with the tools again, and its
	// failures and repeats have counts of their own (strikes, repeats).
	idle       []string
	overflowed bool
	// folder is the first error of a call that the job's folder, not the
	// call, caused (FolderError).
	folder error
}

// FolderError reports whether a tool's error comes from the machine, not
// from the call: the job's folder denied a write, the disk is full, the
// file system is read-only.
func FolderError(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// checkLimits stops the loop at an interruption or a budget.
func (a *Agent) checkLimits(ctx context.Context) (Outcome, bool) {
	if ctx.Err() != nil {
		return Outcome{Kind: Interrupted, Reason: "interrupted"}, true
	}
	if out, ok := a.Limits.Reached(a.jobTotals()); ok {
		return out, true
	}
	if a.Limits.MaxOwnSteps > 0 && a.totals.Steps >= a.Limits.MaxOwnSteps+a.ownProgress() {
		return Outcome{Kind: StepLimit, Reason: fmt.Sprintf("its limit of %d model calls was reached", a.Limits.MaxOwnSteps+a.ownProgress())}, true
	}
	return Outcome{}, false
}

// Reached reports whether the job's totals t have reached one of its
// budgets (MaxSteps, MaxTokens, MaxCost), with the outcome the loop stops
// at. An agent started on a Meter past a budget would stop before its
// first call; whoever starts agents asks this first.
func (l Limits) Reached(t Totals) (Outcome, bool) {
	switch {
	case l.MaxSteps > 0 && t.Steps >= l.MaxSteps:
		return Outcome{Kind: StepLimit, Reason: fmt.Sprintf("the step limit of %d was reached", l.MaxSteps)}, true
	case l.MaxTokens > 0 && t.Tokens() >= l.MaxTokens:
		return Outcome{Kind: TokenLimit, Reason: fmt.Sprintf("the token budget of %d was reached", l.MaxTokens)}, true
	case l.MaxCost > 0 && t.CostUSD >= l.MaxCost:
		return Outcome{Kind: CostLimit, Reason: fmt.Sprintf("the cost budget of $%.2f was reached ($%.2f spent)", l.MaxCost, t.CostUSD)}, true
	}
	return Outcome{}, false
}

func (a *Agent) ownProgress() int {
	if a.Limits.OwnProgress == nil {
		return 0
	}
	return a.Limits.OwnProgress()
}

// modelFailure is a model call that failed for good.
type modelFailure struct{ err error }

func (m *modelFailure) Error() string { return m.err.Error() }

// complete prepares the conversation and calls the model. A "context
// length exceeded" answer shortens the conversation once and tries again.
func (a *Agent) complete(ctx context.Context, conv *Conversation, r *run) (llm.Response, int, time.Duration, error) {
	for {
		if a.Hook != nil {
			if err := a.Hook.BeforeCall(ctx, conv); err != nil {
				return llm.Response{}, 0, 0, err
			}
		}
		counted := 0
		if a.Hook != nil {
			counted = a.Hook.PromptTokens(conv)
		}
		start := a.now()
		resp, err := a.Model.Complete(ctx, llm.Request{System: a.System, Messages: conv.Messages, Tools: a.Tools.Definitions()})
		if err == nil {
			r.overflowed = false
			return resp, counted, a.now().Sub(start), nil
		}
		if ctx.Err() != nil {
			return llm.Response{}, 0, 0, ctx.Err()
		}
		if !errors.Is(err, llm.ErrContextLength) || a.Hook == nil || r.overflowed {
			return llm.Response{}, 0, 0, &modelFailure{err}
		}
		r.overflowed = true
		if herr := a.Hook.Overflow(ctx, conv, err); herr != nil {
			return llm.Response{}, 0, 0, &modelFailure{fmt.Errorf("%w; shortening the conversation failed: %v", err, herr)}
		}
	}
}

// record counts a model call, takes its answer in and journals both.
func (a *Agent) record(conv *Conversation, resp llm.Response, counted int, latency time.Duration, r *run) (int, answer, error) {
	a.totals.Steps++
	step := a.totals.Steps
	a.totals.PromptTokens += int64(resp.Usage.PromptTokens)
	a.totals.CompletionTokens += int64(resp.Usage.CompletionTokens)
	a.totals.CachedTokens += int64(resp.Usage.CachedTokens)
	var cost float64
	if a.Price != nil {
		cost = a.Price(a.Model.Name(), resp.Usage)
		a.totals.CostUSD += cost
	}
	job := a.totals
	if a.Meter != nil {
		job = a.Meter.add(resp.Usage, cost)
	}
	ans := take(resp, step, r.names, r.ids)
	conv.Messages = append(conv.Messages, ans.msg)
	if err := a.Journal.Append(transcript.Record{Type: transcript.TypeMessage, Step: step, Message: &ans.msg,
		Original: ans.original, Note: strings.Join(append(slices.Clone(resp.Notes), ans.notes...), "; ")}); err != nil {
		return step, ans, err
	}
	usage := resp.Usage
	if err := a.Journal.Append(transcript.Record{
		Type: transcript.TypeStep, Step: step, Model: a.Model.Name(), Usage: &usage, CountedTokens: counted, CostUSD: cost,
		LatencyMS: latency.Milliseconds(), FinishReason: resp.FinishReason, Attempts: resp.Attempts,
	}); err != nil {
		return step, ans, err
	}
	if a.Observer != nil {
		a.Observer.ModelCalled(ModelCall{Agent: a.Label, Step: step, Model: a.Model.Name(), Usage: usage, Counted: counted, Cost: cost, Latency: latency,
			FinishReason: resp.FinishReason, Attempts: resp.Attempts, ToolCalls: len(ans.msg.ToolCalls), Totals: job,
			Content: resp.Content, Reasoning: resp.Reasoning})
	}
	return step, ans, nil
}

// runCalls answers every call of an answer, in order: the ones that cannot
// run with the reason, the others with their result. Failures count one
// strike per tool for the whole answer; the job stops only after the
// answer, when a tool has failed in MaxToolFailures answers in a row or the
// answers have only repeated calls MaxRepeats times in a row.
func (a *Agent) runCalls(ctx context.Context, conv *Conversation, step int, ans *answer, r *run) (*ending, error) {
	r.strikes.begin()
	r.repeats.begin()
	for i, tc := range ans.msg.ToolCalls {
		taken := ans.calls[i]
		var result string
		var data llm.MessageData
		switch {
		case ctx.Err() != nil:
			result, data = NotRunPrefix+"the job was interrupted", notRunData()
		case taken.problem != "":
			result, data = taken.problem, notRunData()
			a.observeNotRun(step, tc, taken)
		default:
			result, data = a.callTool(ctx, conv, step, tc, taken, r)
		}
		if err := a.addTool(conv, step, tc, result, data); err != nil {
			return nil, err
		}
	}
	if name := r.strikes.end(); name != "" {
		return &ending{ToolFailures, fmt.Sprintf("the tool %s failed in %d answers in a row (last error: %s)", name, MaxToolFailures, r.strikes.last[name])}, nil
	}
	if r.repeats.end() >= MaxRepeats {
		return &ending{Loop, loopReason(r.repeats)}, nil
	}
	return nil, nil
}

// callTool runs one call and returns the text for the model, with its
// data.
func (a *Agent) callTool(ctx context.Context, conv *Conversation, step int, tc llm.ToolCall, taken takenCall, r *run) (string, llm.MessageData) {
	key := CallKey(tc)
	past, visible := r.repeats.earlier(key, conv)
	start := a.now()
	res, kind, err := a.invoke(ctx, tc, r)
	took := a.now().Sub(start)
	raw := res.Text
	outcome := raw
	if err != nil {
		outcome = err.Error()
	}
	switch {
	case kind == KindDisabled: // the loop refused it: no strike, no success
	case err == nil:
		r.strikes.success(tc.Name)
	default:
		r.strikes.failure(tc.Name, err.Error())
		if r.folder == nil && FolderError(err) {
			r.folder = err
		}
	}
	var result string
	repeat := visible && past.same(outcome, err != nil)
	switch {
	case repeat:
		errText := ""
		if err != nil {
			errText = err.Error()
		}
		result, kind = repeatResult(past, errText, r.repeats.run+1 >= MaxRepeats-1), KindRepeat
	case err != nil:
		result = humanize.WithNotes("error: "+err.Error(), taken.notes)
	default:
		if a.Hook != nil {
			raw = a.Hook.ToolResult(tc, raw)
		}
		notes := taken.notes
		if visible {
			notes = append(notes, fmt.Sprintf("this call repeats %s; the result has changed since, so here it is in full", past.where()))
		}
		result = humanize.WithNotes(raw, notes)
	}
	if err != nil && kind != KindDisabled && r.strikes.warn(tc.Name) {
		result += fmt.Sprintf("\n(%s has now failed in %d answers in a row; if all its calls fail in your next answer too, the job stops. Change the arguments or do this another way.)", tc.Name, MaxToolFailures-1)
	}
	r.repeats.record(key, tc, step, result, outcome, err != nil, repeat)
	if a.Observer != nil {
		a.Observer.ToolCalled(ToolCall{Agent: a.Label, Step: step, Name: tc.Name, Arguments: tc.Arguments, Duration: took, Err: err, Result: raw, Data: res.Data, Notes: taken.notes, Repeat: repeat})
	}
	return result, llm.MessageData{Kind: kind, Failed: err != nil, Value: llm.ValueOf(res.Data)}
}

// invoke runs a call's tool, unless the tool is disabled. kind is the
// kind of the result when the loop, not the tool, decides what it is.
func (a *Agent) invoke(ctx context.Context, tc llm.ToolCall, r *run) (res llm.ToolResult, kind string, err error) {
	if r.strikes.isPaused(tc.Name) {
		return res, KindDisabled, fmt.Errorf("%s is paused for up to %d answers because it failed in %d of the job's last %d answers; read its errors above, and meanwhile do other work or find another way", tc.Name, pauseAnswers, failWindowMax, failWindow)
	}
	res, err = a.Tools.Call(ctx, tc.Name, json.RawMessage(tc.Arguments))
	if err != nil && !slices.Contains(r.names, tc.Name) {
		kind = KindUnknownTool
	}
	return res, kind, err
}

func (a *Agent) observeNotRun(step int, tc llm.ToolCall, taken takenCall) {
	if a.Observer != nil {
		a.Observer.ToolCalled(ToolCall{Agent: a.Label, Step: step, Name: tc.Name, Arguments: tc.Arguments, Err: errors.New(strings.TrimPrefix(taken.problem, "error: ")), Notes: taken.notes, NotRun: true})
	}
}

// noCallToRun handles an answer without a call that could run: the job
// may be complete; else the model is told why nothing was done, and a run
// of such answers stops the job.
//
// Such an answer is neutral for the counts of failures and repeats: it
// neither adds to them nor clears them, since nothing ran and nothing
// changed. (Clearing them let a model that alternates a repeated call with
// a text answer loop until the step limit.) The run of such answers is
// itself counted in r.idle, and cleared by any answer with a call that
// could run.
func (a *Agent) noCallToRun(conv *Conversation, step int, ans *answer, r *run) (*ending, error) {
	var status CompletionStatus
	if len(ans.msg.ToolCalls) > 0 {
		// Every call is answered with the reason it did not run.
		for i, tc := range ans.msg.ToolCalls {
			a.observeNotRun(step, tc, ans.calls[i])
			if err := a.addTool(conv, step, tc, ans.calls[i].problem, notRunData()); err != nil {
				return nil, err
			}
		}
	} else {
		var err error
		if status, err = a.Completion.Check(); err != nil {
			return nil, err
		}
		if status.Done {
			return &ending{kind: Completed}, nil
		}
	}
	why := "text"
	switch {
	case ans.cutOff:
		why = "cut off"
	case len(ans.msg.ToolCalls) > 0:
		why = "calls not run"
	case len(ans.unreadable) > 0:
		why = "text calls"
	}
	r.idle = append(r.idle, why)
	if len(r.idle) > MaxReminders {
		return idleStop(r.idle), nil
	}
	if len(ans.msg.ToolCalls) > 0 {
		return nil, nil // the results say why nothing was done
	}
	return nil, a.add(conv, step, llm.Message{Role: llm.RoleUser, Content: reminder(status, len(r.idle), ans, r.names), Data: llm.MessageData{Kind: KindReminder}})
}

// idleStop ends a run of answers without a call that could run, naming
// the output limit when that is what cut every one of them off.
func idleStop(idle []string) *ending {
	n := len(idle)
	all := func(why string) bool {
		for _, w := range idle {
			if w != why {
				return false
			}
		}
		return true
	}
	switch {
	case all("cut off"):
		return &ending{OutputLimit, fmt.Sprintf("the model's last %d answers were cut off at its output limit (finish_reason \"length\") before a complete tool call; "+
			"raise the server's output limit (max_tokens, or n_predict for llama.cpp) or use a model that reasons more briefly", n)}
	case all("text"):
		return &ending{ModelGaveUp, fmt.Sprintf("the model answered without calling a tool %d times in a row although the job is not complete", n)}
	case all("text calls"):
		return &ending{ModelGaveUp, fmt.Sprintf("the model wrote tool calls as text that name no tool, %d times in a row", n)}
	}
	return &ending{ModelGaveUp, fmt.Sprintf("the model sent %d answers in a row without a tool call that could run (%s)", n, strings.Join(idle, ", "))}
}

// add appends a message to the conversation and the journal.
func (a *Agent) add(conv *Conversation, step int, m llm.Message) error {
	conv.Messages = append(conv.Messages, m)
	return a.Journal.Append(transcript.Record{Type: transcript.TypeMessage, Step: step, Message: &m})
}

func (a *Agent) addTool(conv *Conversation, step int, tc llm.ToolCall, result string, data llm.MessageData) error {
	m := llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, ToolName: tc.Name, Content: result, Data: data}
	conv.Messages = append(conv.Messages, m)
	return a.Journal.Append(transcript.Record{Type: transcript.TypeMessage, Step: step, Message: &m, ToolError: data.Failed})
}

func (a *Agent) stop(kind StopKind, reason string) (Outcome, error) {
	out := Outcome{Kind: kind, Reason: reason, Totals: a.jobTotals()}
	note := kind.String()
	if reason != "" && reason != note {
		note += ": " + reason
	}
	return out, a.Journal.Append(transcript.Record{Type: transcript.TypeStop, Step: a.totals.Steps, Note: note})
}

func (a *Agent) modelFailed(err error) (Outcome, error) {
	out, jerr := a.stop(ModelFailed, err.Error())
	out.Err = err
	return out, jerr
}

// Totals are the job's figures so far: the Meter's when there is one.
func (a *Agent) Totals() Totals { return a.jobTotals() }

// reminder is the message sent when an answer has no tool call before the
// job is complete. It says why, when the answer was cut off at the output
// limit or wrote its calls as text, and what is still to do.
func reminder(s CompletionStatus, n int, ans *answer, tools []string) string {
	var b strings.Builder
	switch {
	case ans.cutOff:
		b.WriteString("Your answer was cut off at the output limit (finish_reason \"length\") before it made a complete tool call, so nothing was done. " +
			"Reason briefly, write less text, and make one or a few small tool calls per answer.")
	case len(ans.unreadable) > 0:
		b.WriteString("Your answer has what looks like a tool call written as text, which is not run: ")
		b.WriteString(strings.Join(ans.unreadable, "; "))
		b.WriteString(fmt.Sprintf(". Call tools through the tool-calling interface, never in the text of your answer; the tools are: %s.", strings.Join(tools, ", ")))
	default:
		b.WriteString("The job is not complete, so keep working with the tools; nobody reads text answers.")
	}
	if len(s.Missing) > 0 {
		b.WriteString(" Still to do:\n")
		for _, m := range s.Missing {
			b.WriteString("- " + m + "\n")
		}
	} else {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Call the next tool now. (Reminder %d of %d.)", n, MaxReminders)
	return b.String()
}
