// Package telemetry writes what a job does to .agent/events.jsonl, one
// JSON object per line with a "type": every model call with its tokens,
// latency and cost, every tool call with its duration and outcome, every
// compaction, task change, start and end of a run. People read it with jq;
// status and the tests read it back.
package telemetry

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"creator/internal/agent"
	"creator/internal/jsonl"
)

// File is where the events of a job go, relative to the job folder.
const File = ".agent/events.jsonl"

// Event types.
const (
	TypeLLMCall       = "llm_call"
	TypeToolCall      = "tool_call"
	TypeCompaction    = "compaction"
	TypeTaskStarted   = "task_started"
	TypeTaskCompleted = "task_completed"
	TypeJobStarted    = "job_started"
	TypeJobFinished   = "job_finished"
	TypePublished     = "published"
	// A sub-agent's work on one chunk (analyze_chunks).
	TypeSubagentStarted  = "subagent_started"
	TypeSubagentFinished = "subagent_finished"
	// A failed attempt at the model server, to be tried again.
	TypeServerRetry = "server_retry"
)

// Event is any event, as read back: the union of the fields of all types.
type Event struct {
	Type string    `json:"type"`
	Time time.Time `json:"time"`
	Step int       `json:"step,omitempty"`
	// Chunk is the chunk of the sub-agent that made a call, and of a
	// subagent_started or subagent_finished event.
	Chunk string `json:"chunk,omitempty"`

	// subagent_finished
	Saved    int    `json:"saved,omitempty"`
	Empty    string `json:"empty,omitempty"`
	Requests int    `json:"requests,omitempty"`
	Tokens   int64  `json:"tokens,omitempty"`

	// llm_call
	Model               string   `json:"model,omitempty"`
	PromptTokens        int      `json:"prompt_tokens,omitempty"`
	PromptTokensCounted int      `json:"prompt_tokens_counted,omitempty"`
	CachedTokens        int      `json:"cached_tokens,omitempty"`
	CompletionTokens    int      `json:"completion_tokens,omitempty"`
	LatencyMS           int64    `json:"latency_ms,omitempty"`
	FinishReason        string   `json:"finish_reason,omitempty"`
	Attempts            int      `json:"attempts,omitempty"`
	ToolCalls           int      `json:"tool_calls,omitempty"`
	CompactionBefore    string   `json:"compaction_before,omitempty"`
	CostUSD             *float64 `json:"cost_usd,omitempty"`

	// tool_call
	Tool         string          `json:"tool,omitempty"`
	Arguments    json.RawMessage `json:"arguments,omitempty"`
	DurationMS   int64           `json:"duration_ms,omitempty"`
	Status       string          `json:"status,omitempty"` // also job_finished
	Error        string          `json:"error,omitempty"`
	ResultTokens int             `json:"result_tokens,omitempty"`

	// compaction
	Kind         string `json:"kind,omitempty"`
	TokensBefore int    `json:"tokens_before,omitempty"`
	TokensAfter  int    `json:"tokens_after,omitempty"`
	Note         string `json:"note,omitempty"`

	// task_started, task_completed
	Task int    `json:"task,omitempty"`
	Text string `json:"text,omitempty"`

	// job_started, job_finished
	Resumed         bool            `json:"resumed,omitempty"`
	Settings        json.RawMessage `json:"settings,omitempty"`
	ExitCode        *int            `json:"exit_code,omitempty"`
	Reason          string          `json:"reason,omitempty"`
	Steps           int             `json:"steps,omitempty"`
	TotalPrompt     int64           `json:"total_prompt_tokens,omitempty"`
	TotalCompletion int64           `json:"total_completion_tokens,omitempty"`
	TotalCached     int64           `json:"total_cached_tokens,omitempty"`
	TotalCostUSD    *float64        `json:"total_cost_usd,omitempty"`

	// server_retry
	HTTPStatus int       `json:"http_status,omitempty"`
	Message    string    `json:"message,omitempty"`
	WaitMS     int64     `json:"wait_ms,omitempty"`
	Next       time.Time `json:"next,omitempty"`

	// published
	Publication
}

// Publication is what a published event says: where the requirements
// went (the database without its password), how many, and what changed.
type Publication struct {
	Database     string `json:"database,omitempty"`
	Schema       string `json:"schema,omitempty"`
	Requirements int    `json:"requirements,omitempty"`
	Inserted     int    `json:"inserted,omitempty"`
	Updated      int    `json:"updated,omitempty"`
	Unchanged    int    `json:"unchanged,omitempty"`
	Removed      int    `json:"removed,omitempty"`
	Partial      bool   `json:"partial,omitempty"`
	// PublishID names the publish, so that it is recorded once however
	// often a publish cut short is settled.
	PublishID string `json:"publish_id,omitempty"`
}

// The written forms: each type has exactly its fields, with zero counts
// kept where they are figures.
type (
	llmCall struct {
		Type                string   `json:"type"`
		Time                string   `json:"time"`
		Step                int      `json:"step"`
		Chunk               string   `json:"chunk,omitempty"`
		Model               string   `json:"model"`
		PromptTokens        int      `json:"prompt_tokens"`
		PromptTokensCounted int      `json:"prompt_tokens_counted"`
		CachedTokens        int      `json:"cached_tokens"`
		CompletionTokens    int      `json:"completion_tokens"`
		LatencyMS           int64    `json:"latency_ms"`
		FinishReason        string   `json:"finish_reason"`
		Attempts            int      `json:"attempts"`
		ToolCalls           int      `json:"tool_calls"`
		CompactionBefore    string   `json:"compaction_before,omitempty"`
		CostUSD             *float64 `json:"cost_usd,omitempty"`
	}
	toolCall struct {
		Type         string          `json:"type"`
		Time         string          `json:"time"`
		Step         int             `json:"step"`
		Chunk        string          `json:"chunk,omitempty"`
		Tool         string          `json:"tool"`
		Arguments    json.RawMessage `json:"arguments"`
		DurationMS   int64           `json:"duration_ms"`
		Status       string          `json:"status"`
		Error        string          `json:"error,omitempty"`
		ResultTokens int             `json:"result_tokens"`
		Notes        []string        `json:"notes,omitempty"`
		Repeat       bool            `json:"repeat,omitempty"`
	}
	compaction struct {
		Type         string `json:"type"`
		Time         string `json:"time"`
		Step         int    `json:"step"`
		Kind         string `json:"kind"`
		TokensBefore int    `json:"tokens_before"`
		TokensAfter  int    `json:"tokens_after"`
		Note         string `json:"note,omitempty"`
	}
	taskChange struct {
		Type string `json:"type"`
		Time string `json:"time"`
		Step int    `json:"step"`
		Task int    `json:"task"`
		Text string `json:"text"`
	}
	jobStarted struct {
		Type     string `json:"type"`
		Time     string `json:"time"`
		Step     int    `json:"step"`
		Model    string `json:"model"`
		Resumed  bool   `json:"resumed"`
		Settings any    `json:"settings"`
	}
	jobFinished struct {
		Type            string   `json:"type"`
		Time            string   `json:"time"`
		Step            int      `json:"step"`
		Status          string   `json:"status"`
		ExitCode        int      `json:"exit_code"`
		Reason          string   `json:"reason,omitempty"`
		Steps           int      `json:"steps"`
		TotalPrompt     int64    `json:"total_prompt_tokens"`
		TotalCompletion int64    `json:"total_completion_tokens"`
		TotalCached     int64    `json:"total_cached_tokens"`
		TotalCostUSD    *float64 `json:"total_cost_usd,omitempty"`
	}
	subagentStarted struct {
		Type  string `json:"type"`
		Time  string `json:"time"`
		Step  int    `json:"step"`
		Chunk string `json:"chunk"`
	}
	subagentFinished struct {
		Type     string `json:"type"`
		Time     string `json:"time"`
		Step     int    `json:"step"`
		Chunk    string `json:"chunk"`
		Saved    int    `json:"saved"`
		Empty    string `json:"empty,omitempty"`
		Error    string `json:"error,omitempty"`
		Requests int    `json:"requests"`
		Tokens   int64  `json:"tokens"`
	}
	published struct {
		Type         string `json:"type"`
		Time         string `json:"time"`
		Database     string `json:"database"`
		Schema       string `json:"schema"`
		Requirements int    `json:"requirements"`
		Inserted     int    `json:"inserted"`
		Updated      int    `json:"updated"`
		Unchanged    int    `json:"unchanged"`
		Removed      int    `json:"removed"`
		Partial      bool   `json:"partial"`
		PublishID    string `json:"publish_id,omitempty"`
	}
)

// Counter counts tokens.
type Counter interface {
	Count(string) int
}

// Recorder writes events. It implements agent.Observer; the other events
// have their own methods. It is safe for concurrent use. A failing writer
// does not stop the job: the first error is kept for Err.
type Recorder struct {
	w      io.Writer
	count  Counter
	now    func() time.Time
	priced bool // whether costs are known

	mu        sync.Mutex
	step      int
	compacted []string // kinds of compaction since the last model call
	err       error
}

// New returns a recorder writing to w. priced says whether the model's
// price is known, so that costs are written.
func New(w io.Writer, count Counter, now func() time.Time, priced bool) *Recorder {
	if now == nil {
		now = time.Now
	}
	return &Recorder{w: w, count: count, now: now, priced: priced}
}

// Err is the first write error, if any.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

func (r *Recorder) stamp() string { return r.now().UTC().Format(time.RFC3339Nano) }

// write encodes one event as one line, in one write, so that lines of
// concurrent writers never interleave.
func (r *Recorder) write(v any) {
	data, err := json.Marshal(v)
	if err == nil {
		_, err = r.w.Write(append(data, '\n'))
	}
	if err != nil && r.err == nil {
		r.err = err
	}
}

func (r *Recorder) cost(v float64) *float64 {
	if !r.priced {
		return nil
	}
	return &v
}

// ModelCalled records an llm_call.
func (r *Recorder) ModelCalled(c agent.ModelCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.Agent == "" {
		r.step = c.Step
	}
	r.write(llmCall{
		Type: TypeLLMCall, Time: r.stamp(), Step: c.Step, Chunk: c.Agent, Model: c.Model,
		PromptTokens: c.Usage.PromptTokens, PromptTokensCounted: c.Counted, CachedTokens: c.Usage.CachedTokens,
		CompletionTokens: c.Usage.CompletionTokens, LatencyMS: c.Latency.Milliseconds(),
		FinishReason: c.FinishReason, Attempts: c.Attempts, ToolCalls: c.ToolCalls,
		CompactionBefore: strings.Join(r.compacted, "+"), CostUSD: r.cost(c.Cost),
	})
	r.compacted = nil
}

// ToolCalled records a tool_call.
func (r *Recorder) ToolCalled(c agent.ToolCall) {
	status, msg := "ok", ""
	switch {
	case c.NotRun:
		status, msg = "not_run", clip(c.Err.Error(), 500)
	case c.Err != nil:
		status, msg = "error", clip(c.Err.Error(), 500)
	}
	tokens := 0
	if r.count != nil {
		tokens = r.count.Count(c.Result)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.write(toolCall{Type: TypeToolCall, Time: r.stamp(), Step: c.Step, Chunk: c.Agent, Tool: c.Name, Arguments: ShortenArguments(c.Arguments),
		DurationMS: c.Duration.Milliseconds(), Status: status, Error: msg, ResultTokens: tokens, Notes: c.Notes, Repeat: c.Repeat})
}

// serverRetry is a failed attempt at the model server, tried again.
type serverRetry struct {
	Type       string    `json:"type"`
	Time       string    `json:"time"`
	Step       int       `json:"step"`
	Attempts   int       `json:"attempts"`
	HTTPStatus int       `json:"http_status"`
	Message    string    `json:"message"`
	WaitMS     int64     `json:"wait_ms"`
	Next       time.Time `json:"next"`
}

// ServerRetry records a failed attempt at the model server that is tried
// again, with the server's words: status shows why a job waits.
func (r *Recorder) ServerRetry(attempt, httpStatus int, message string, wait time.Duration, next time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.write(serverRetry{Type: TypeServerRetry, Time: r.stamp(), Step: r.step, Attempts: attempt, HTTPStatus: httpStatus,
		Message: clip(message, 500), WaitMS: wait.Milliseconds(), Next: next.UTC()})
}

// SubagentStarted records that a sub-agent starts on a chunk, in the main
// agent's step.
func (r *Recorder) SubagentStarted(chunk string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.write(subagentStarted{Type: TypeSubagentStarted, Time: r.stamp(), Step: r.step, Chunk: chunk})
}

// SubagentFinished records how a sub-agent's work on a chunk ended: the
// requirements it staged, the chunk declared empty, or the error that left
// it unaccounted for, with its model calls and tokens.
func (r *Recorder) SubagentFinished(chunk string, saved int, empty, errText string, requests int, tokens int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.write(subagentFinished{Type: TypeSubagentFinished, Time: r.stamp(), Step: r.step, Chunk: chunk, Saved: saved, Empty: empty,
		Error: clip(errText, 500), Requests: requests, Tokens: tokens})
}

// Compaction records a clearing or summary of the conversation.
func (r *Recorder) Compaction(kind string, before, after int, note string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.compacted = append(r.compacted, kind)
	r.write(compaction{Type: TypeCompaction, Time: r.stamp(), Step: r.step, Kind: kind, TokensBefore: before, TokensAfter: after, Note: note})
}

// Task records a task started or completed (kind is the event type).
func (r *Recorder) Task(kind string, number int, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.write(taskChange{Type: kind, Time: r.stamp(), Step: r.step, Task: number, Text: text})
}

// JobStarted records the start of a run, and sets the step count a
// resumed job continues from.
func (r *Recorder) JobStarted(model string, resumed bool, step int, settings any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.step = step
	r.write(jobStarted{Type: TypeJobStarted, Time: r.stamp(), Step: step, Model: model, Resumed: resumed, Settings: settings})
}

// JobFinished records the end of a run: the job's status, the exit code
// and the totals.
func (r *Recorder) JobFinished(status string, exitCode int, reason string, t agent.Totals) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.write(jobFinished{Type: TypeJobFinished, Time: r.stamp(), Step: t.Steps, Status: status, ExitCode: exitCode, Reason: reason,
		Steps: t.Steps, TotalPrompt: t.PromptTokens, TotalCompletion: t.CompletionTokens, TotalCached: t.CachedTokens,
		TotalCostUSD: r.cost(t.CostUSD)})
}

// PublishedEvent is the line of events.jsonl that records a publication.
func PublishedEvent(at time.Time, p Publication) []byte {
	data, _ := json.Marshal(published{Type: TypePublished, Time: at.UTC().Format(time.RFC3339Nano), Database: p.Database,
		Schema: p.Schema, Requirements: p.Requirements, Inserted: p.Inserted, Updated: p.Updated, Unchanged: p.Unchanged,
		Removed: p.Removed, Partial: p.Partial, PublishID: p.PublishID})
	return append(data, '\n')
}

// maxArgChars is the longest string argument kept whole in an event.
const maxArgChars = 200

// ShortenArguments returns a tool call's arguments as JSON with long
// string values cut (a write_file content), or, when they are not JSON,
// as a JSON string of their start.
func ShortenArguments(args string) json.RawMessage {
	var v any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		data, _ := json.Marshal(clip(args, maxArgChars))
		return data
	}
	data, err := json.Marshal(shorten(v))
	if err != nil {
		return json.RawMessage(`null`)
	}
	return data
}

func shorten(v any) any {
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) > maxArgChars {
			return clip(x, maxArgChars)
		}
	case map[string]any:
		for k, val := range x {
			x[k] = shorten(val)
		}
	case []any:
		for i, val := range x {
			x[i] = shorten(val)
		}
	}
	return v
}

func clip(s string, most int) string {
	r := []rune(s)
	if len(r) <= most {
		return s
	}
	return string(r[:most]) + "…(" + strconv.Itoa(len(r)) + " characters)"
}

// Read parses events, one per line (internal/jsonl: a torn last line, a
// crash while writing, is left out).
func Read(r io.Reader) ([]Event, error) { return jsonl.Read[Event](File, r) }
