// Package transcript records a job's conversation in .agent/transcript.jsonl:
// one JSON object per line, appended and flushed to disk before the next
// model call, so a resumed job can rebuild the conversation exactly.
package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"creator/internal/jsonl"
	"creator/internal/llm"
)

// File is the transcript's path inside the job folder.
const File = ".agent/transcript.jsonl"

// Record types.
const (
	TypeMessage    = "message"    // one message of the conversation
	TypeStep       = "step"       // usage and timing of one model call
	TypeResume     = "resume"     // a process took the job up again
	TypeCompaction = "compaction" // older messages replaced by a summary
	TypeStop       = "stop"       // the loop ended, with its reason
)

// Record is one line of the transcript. A step's assistant message, its tool
// results and its step record share the Step number.
type Record struct {
	Type string    `json:"type"`
	Time time.Time `json:"time"`
	Step int       `json:"step,omitempty"`

	Message *llm.Message `json:"message,omitempty"` // message
	// Original is an assistant message as the model sent it, when the
	// loop took it in changed: calls read from its text, a tool name or
	// arguments repaired, arguments cut off at the output limit replaced.
	// Note says what was changed. Message is what the conversation holds.
	Original *llm.Message `json:"original,omitempty"`
	// ToolError and DurationMS describe a tool result message.
	ToolError  bool  `json:"tool_error,omitempty"`
	DurationMS int64 `json:"duration_ms,omitempty"`

	Model        string     `json:"model,omitempty"` // step
	Usage        *llm.Usage `json:"usage,omitempty"`
	LatencyMS    int64      `json:"latency_ms,omitempty"`
	FinishReason string     `json:"finish_reason,omitempty"`
	Attempts     int        `json:"attempts,omitempty"`

	// CountedTokens is the prompt as counted before the call (step).
	CountedTokens int `json:"counted_tokens,omitempty"`
	// CostUSD is what the call cost, when its price is known (step).
	CostUSD float64 `json:"cost_usd,omitempty"`

	// A compaction: Kind is "clear" (old tool results replaced, long
	// arguments shortened, listed in Edits) or "summary" (Messages is the
	// whole conversation after it).
	Kind         string        `json:"kind,omitempty"`
	Edits        []Edit        `json:"edits,omitempty"`
	Messages     []llm.Message `json:"messages,omitempty"`
	TokensBefore int           `json:"tokens_before,omitempty"`
	TokensAfter  int           `json:"tokens_after,omitempty"`
	// Note explains a resume, compaction or stop.
	Note string `json:"note,omitempty"`
}

// Edit changes one message of the conversation in a clearing: the content
// of a tool result, or the arguments of an assistant's tool calls. Cleared
// marks a tool result replaced by a placeholder: its data says so and keeps
// no value.
type Edit struct {
	Index     int      `json:"index"`
	Content   *string  `json:"content,omitempty"`
	Arguments []string `json:"arguments,omitempty"`
	Cleared   bool     `json:"cleared,omitempty"`
}

// Apply makes the edits of a clearing to a conversation.
func Apply(msgs []llm.Message, edits []Edit) {
	for _, e := range edits {
		if e.Index < 0 || e.Index >= len(msgs) {
			continue
		}
		m := &msgs[e.Index]
		if e.Content != nil {
			m.Content = *e.Content
		}
		if e.Cleared {
			m.Data.Cleared, m.Data.Value = true, nil
		}
		if len(e.Arguments) == len(m.ToolCalls) {
			calls := append([]llm.ToolCall(nil), m.ToolCalls...)
			for i := range calls {
				calls[i].Arguments = e.Arguments[i]
			}
			m.ToolCalls = calls
		}
	}
}

// Appender is where records go; a workspace job provides it.
type Appender interface {
	AppendInternal(rel string, data []byte) error
}

// Writer appends records to a job's transcript.
type Writer struct {
	to   Appender
	file string
}

// NewWriter returns a writer appending to the transcript of a job.
func NewWriter(to Appender) *Writer { return &Writer{to: to, file: File} }

// NewWriterAt returns a writer appending to the transcript at rel: a
// sub-agent's.
func NewWriterAt(to Appender, rel string) *Writer { return &Writer{to: to, file: rel} }

// Append writes one record as a line and flushes it to disk.
func (w *Writer) Append(r Record) error {
	if r.Time.IsZero() {
		r.Time = time.Now().UTC()
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := w.to.AppendInternal(w.file, append(data, '\n')); err != nil {
		return fmt.Errorf("cannot write the transcript: %w", err)
	}
	return nil
}

// Reader is where records come from; a workspace job provides it.
type Reader interface {
	ReadInternal(rel string) ([]byte, error)
}

// Load reads a job's transcript. A missing transcript is empty. A last line
// cut off by a crash is left out; damage elsewhere is an error.
func Load(from Reader) ([]Record, error) { return LoadAt(from, File) }

// LoadAt reads the transcript at rel, as Load reads the job's.
func LoadAt(from Reader, rel string) ([]Record, error) {
	data, err := from.ReadInternal(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return Parse(bytes.NewReader(data))
}

// Parse reads records from JSON lines (internal/jsonl: a torn last line
// is left out, damage elsewhere is an error).
func Parse(r io.Reader) ([]Record, error) { return jsonl.Read[Record](File, r) }

// Messages are the messages of a transcript, in order: every message
// record as it was appended, whatever compactions later did to the
// conversation (agent.Rebuild gives the conversation).
func Messages(recs []Record) []llm.Message {
	var msgs []llm.Message
	for _, r := range recs {
		if r.Type == TypeMessage && r.Message != nil {
			msgs = append(msgs, *r.Message)
		}
	}
	return msgs
}
