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
	"strings"
	"time"

	"creator/internal/llm"
	"creator/internal/transcript"
)

// Tools runs the model's tool calls.
type Tools interface {
	Definitions() []llm.ToolDef
	Call(ctx context.Context, name string, args json.RawMessage) (string, error)
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
// shorten the conversation. PromptTokens counts the prompt a call would send.
type Hook interface {
	ToolResult(call llm.ToolCall, result string) string
	BeforeCall(ctx context.Context, conv *Conversation) error
	Overflow(ctx context.Context, conv *Conversation) error
	PromptTokens(conv *Conversation) int
}

// Observer hears about every model call and tool call (telemetry, progress).
type Observer interface {
	ModelCalled(ModelCall)
	ToolCalled(ToolCall)
}

// ModelCall describes one finished model call.
type ModelCall struct {
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

// ToolCall describes one finished tool call.
type ToolCall struct {
	Step      int
	Name      string
	Arguments string
	Duration  time.Duration
	Err       error
	Result    string
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
)

// Resumable reports whether `creator resume` can continue after this stop.
func (k StopKind) Resumable() bool { return k != Completed }

func (k StopKind) String() string {
	return [...]string{"completed", "step limit", "token limit", "model gave up", "tool failures", "model failed", "interrupted", "cost limit"}[k]
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
	// MaxReminders is how many reminders in a row the model gets for
	// answering without a tool call before the job stops.
	MaxReminders = 3
	// MaxToolFailures is how many failures in a row of one tool stop the job.
	MaxToolFailures = 3
	// A tool that failed failWindowMax of its last failWindow calls is
	// refused for the rest of the run.
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

	totals Totals
}

func (a *Agent) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// Start begins a new job with its first user message.
func (a *Agent) Start(ctx context.Context, firstMessage string) (Outcome, error) {
	conv := &Conversation{}
	if err := a.add(conv, 0, llm.Message{Role: llm.RoleUser, Content: firstMessage}); err != nil {
		return Outcome{}, err
	}
	return a.Run(ctx, conv)
}

// Run drives the conversation until the job is complete or must stop.
// The returned error is for failures that leave the job in an unknown
// state (the transcript cannot be written); every other end is an Outcome.
func (a *Agent) Run(ctx context.Context, conv *Conversation) (Outcome, error) {
	defs := a.Tools.Definitions()
	fails := newFailures()
	reminders := 0
	overflowed := false
	for {
		if ctx.Err() != nil {
			return a.stop(Interrupted, "interrupted")
		}
		if lim := a.Limits.MaxSteps; lim > 0 && a.totals.Steps >= lim {
			return a.stop(StepLimit, fmt.Sprintf("the step limit of %d was reached", lim))
		}
		if lim := a.Limits.MaxTokens; lim > 0 && a.totals.Tokens() >= lim {
			return a.stop(TokenLimit, fmt.Sprintf("the token budget of %d was reached", lim))
		}
		if lim := a.Limits.MaxCost; lim > 0 && a.totals.CostUSD >= lim {
			return a.stop(CostLimit, fmt.Sprintf("the cost budget of $%.2f was reached ($%.2f spent)", lim, a.totals.CostUSD))
		}
		if a.Hook != nil {
			if err := a.Hook.BeforeCall(ctx, conv); err != nil {
				if ctx.Err() != nil {
					return a.stop(Interrupted, "interrupted")
				}
				return Outcome{}, err
			}
		}
		step := a.totals.Steps + 1
		counted := 0
		if a.Hook != nil {
			counted = a.Hook.PromptTokens(conv)
		}
		start := a.now()
		resp, err := a.Model.Complete(ctx, llm.Request{System: a.System, Messages: conv.Messages, Tools: defs})
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return a.stop(Interrupted, "interrupted")
			case errors.Is(err, llm.ErrContextLength) && a.Hook != nil && !overflowed:
				// Shorten the conversation and try once more.
				overflowed = true
				if herr := a.Hook.Overflow(ctx, conv); herr != nil {
					return a.modelFailed(fmt.Errorf("%w; shortening the conversation failed: %v", err, herr))
				}
				continue
			}
			return a.modelFailed(err)
		}
		overflowed = false
		a.totals.Steps++
		a.totals.PromptTokens += int64(resp.Usage.PromptTokens)
		a.totals.CompletionTokens += int64(resp.Usage.CompletionTokens)
		a.totals.CachedTokens += int64(resp.Usage.CachedTokens)
		var cost float64
		if a.Price != nil {
			cost = a.Price(a.Model.Name(), resp.Usage)
			a.totals.CostUSD += cost
		}

		msg := llm.Message{Role: llm.RoleAssistant, Content: resp.Content, Reasoning: resp.Reasoning, ToolCalls: fixCallIDs(resp.ToolCalls, step)}
		if err := a.add(conv, step, msg); err != nil {
			return Outcome{}, err
		}
		usage := resp.Usage
		if err := a.Journal.Append(transcript.Record{
			Type: transcript.TypeStep, Step: step, Model: a.Model.Name(), Usage: &usage, CountedTokens: counted, CostUSD: cost,
			LatencyMS: a.now().Sub(start).Milliseconds(), FinishReason: resp.FinishReason, Attempts: resp.Attempts,
		}); err != nil {
			return Outcome{}, err
		}
		if a.Observer != nil {
			a.Observer.ModelCalled(ModelCall{Step: step, Model: a.Model.Name(), Usage: usage, Counted: counted, Cost: cost, Latency: a.now().Sub(start),
				FinishReason: resp.FinishReason, Attempts: resp.Attempts, ToolCalls: len(msg.ToolCalls), Totals: a.totals,
				Content: resp.Content, Reasoning: resp.Reasoning})
		}

		if len(msg.ToolCalls) == 0 {
			status, err := a.Completion.Check()
			if err != nil {
				return Outcome{}, err
			}
			if status.Done {
				return a.stop(Completed, "")
			}
			if reminders == MaxReminders {
				return a.stop(ModelGaveUp, fmt.Sprintf("the model answered without calling a tool %d times in a row although the job is not complete", MaxReminders+1))
			}
			reminders++
			if err := a.add(conv, step, llm.Message{Role: llm.RoleUser, Content: reminder(status, reminders)}); err != nil {
				return Outcome{}, err
			}
			continue
		}
		reminders = 0

		stopKind, stopReason := Completed, ""
		for _, tc := range msg.ToolCalls {
			var result string
			var failed bool
			switch {
			case stopReason != "":
				result, failed = notRun+"stopped: "+stopReason, true
			case ctx.Err() != nil:
				result, failed = notRun+"was interrupted", true
			default:
				result, failed = a.callTool(ctx, step, tc, fails)
			}
			if err := a.addTool(conv, step, tc, result, failed); err != nil {
				return Outcome{}, err
			}
			if stopReason == "" && fails.consecutive[tc.Name] >= MaxToolFailures {
				stopKind = ToolFailures
				stopReason = fmt.Sprintf("the tool %s failed %d times in a row (last error: %s)", tc.Name, MaxToolFailures, fails.last[tc.Name])
			}
		}
		if stopReason != "" {
			return a.stop(stopKind, stopReason)
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

// callTool runs one tool call and returns the text for the model.
func (a *Agent) callTool(ctx context.Context, step int, tc llm.ToolCall, fails *failures) (string, bool) {
	var result string
	var err error
	start := a.now()
	if fails.disabled[tc.Name] {
		err = fmt.Errorf("%s is disabled for the rest of this run because it failed %d of its last %d calls; do this another way", tc.Name, failWindowMax, failWindow)
	} else {
		result, err = a.Tools.Call(ctx, tc.Name, json.RawMessage(tc.Arguments))
	}
	if a.Observer != nil {
		a.Observer.ToolCalled(ToolCall{Step: step, Name: tc.Name, Arguments: tc.Arguments, Duration: a.now().Sub(start), Err: err, Result: result})
	}
	if err == nil {
		fails.success(tc.Name)
		if a.Hook != nil {
			result = a.Hook.ToolResult(tc, result)
		}
		return result, false
	}
	n := fails.failure(tc.Name, err)
	text := "error: " + err.Error()
	if n == MaxToolFailures-1 {
		text += fmt.Sprintf("\n(%s has now failed %d times in a row; one more failure stops the job. Change the arguments or do this another way.)", tc.Name, n)
	}
	return text, true
}

// add appends a message to the conversation and the journal.
func (a *Agent) add(conv *Conversation, step int, m llm.Message) error {
	conv.Messages = append(conv.Messages, m)
	return a.Journal.Append(transcript.Record{Type: transcript.TypeMessage, Step: step, Message: &m})
}

func (a *Agent) addTool(conv *Conversation, step int, tc llm.ToolCall, result string, failed bool) error {
	m := llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, ToolName: tc.Name, Content: result}
	conv.Messages = append(conv.Messages, m)
	return a.Journal.Append(transcript.Record{Type: transcript.TypeMessage, Step: step, Message: &m, ToolError: failed})
}

func (a *Agent) stop(kind StopKind, reason string) (Outcome, error) {
	out := Outcome{Kind: kind, Reason: reason, Totals: a.totals}
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

// Totals are the job's figures so far.
func (a *Agent) Totals() Totals { return a.totals }

// reminder is the message sent when the model answers without a tool call
// before the job is complete.
func reminder(s CompletionStatus, n int) string {
	var b strings.Builder
	b.WriteString("The job is not complete, so keep working with the tools; nobody reads text answers.")
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

// fixCallIDs gives every tool call a unique id: some servers omit ids or
// repeat them, and the protocol needs one result per id.
func fixCallIDs(calls []llm.ToolCall, step int) []llm.ToolCall {
	seen := map[string]bool{}
	out := make([]llm.ToolCall, len(calls))
	for i, tc := range calls {
		if tc.ID == "" || seen[tc.ID] {
			tc.ID = fmt.Sprintf("call_%d_%d", step, i+1)
		}
		seen[tc.ID] = true
		out[i] = tc
	}
	return out
}

// failures counts tool failures per tool.
type failures struct {
	consecutive map[string]int
	recent      map[string][]bool
	disabled    map[string]bool
	last        map[string]string
}

func newFailures() *failures {
	return &failures{consecutive: map[string]int{}, recent: map[string][]bool{}, disabled: map[string]bool{}, last: map[string]string{}}
}

func (f *failures) success(name string) {
	f.consecutive[name] = 0
	f.note(name, false)
}

func (f *failures) failure(name string, err error) int {
	f.consecutive[name]++
	f.last[name] = err.Error()
	f.note(name, true)
	return f.consecutive[name]
}

func (f *failures) note(name string, failed bool) {
	r := append(f.recent[name], failed)
	if len(r) > failWindow {
		r = r[len(r)-failWindow:]
	}
	f.recent[name] = r
	n := 0
	for _, x := range r {
		if x {
			n++
		}
	}
	if n >= failWindowMax {
		f.disabled[name] = true
	}
}
