// Package llm defines the model interface the agent loop talks to, and an
// OpenAI-compatible client for it.
package llm

import (
	"context"
	"encoding/json"
	"errors"
)

// Role of a message in the conversation.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one turn of the conversation. The system prompt is not a
// message; it travels separately in Request.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// Reasoning is the model's reasoning text, when the server sends it
	// (reasoning_content).
	Reasoning string     `json:"reasoning,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID and ToolName identify the call a tool message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
	// Data is what the message says, as data for programs. It is never
	// sent to a model server.
	Data MessageData `json:"data,omitzero"`
}

// MessageData is a message's content as data: programs that read the
// conversation (the built-in model, context management) read it instead of
// the wording of the text, which is written for a model and may change.
type MessageData struct {
	// Kind says what a message is when its writer is not the obvious one:
	// a tool result the loop wrote itself because the call did not run as
	// sent, or a user message other than the job's first. Each package
	// exports the kinds it writes.
	Kind string `json:"kind,omitempty"`
	// Failed marks a tool result that reports an error.
	Failed bool `json:"failed,omitempty"`
	// Cleared marks a tool result that context management replaced with a
	// placeholder; Value is gone with the text.
	Cleared bool `json:"cleared,omitempty"`
	// Value is the content itself, as JSON: a tool's result data, or what
	// the writer of a user message gives with it. Its type follows from
	// the tool or the kind.
	Value json.RawMessage `json:"value,omitempty"`
}

// Decode reads Value into v; false when there is none or it does not fit.
func (d MessageData) Decode(v any) bool {
	return len(d.Value) > 0 && json.Unmarshal(d.Value, v) == nil
}

// ValueOf encodes v as a MessageData Value; nil gives none. Data types are
// plain structs, which always encode; a value that does not gives none.
func ValueOf(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return data
}

// ToolResult is what a tool call gives: Text for the model, and Data, the
// same result as values for programs. Data becomes the Value of the tool
// message's MessageData; nil means the tool gives none.
type ToolResult struct {
	Text string
	Data any
}

// ToolCall is a call of one tool requested by the model.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // JSON text as the model sent it; may be invalid
}

// ToolDef describes a tool to the model.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one model call.
type Request struct {
	System   string
	Messages []Message
	Tools    []ToolDef
}

// Usage is the token count of one call as reported by the server.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	CachedTokens     int `json:"cached_tokens,omitempty"`
}

// Response is the model's answer.
type Response struct {
	Content      string
	Reasoning    string
	ToolCalls    []ToolCall
	FinishReason string
	Usage        Usage
	// Attempts is how many requests it took, retries included.
	Attempts int
	// Notes say what the client read how, or changed, to get this answer
	// (arguments sent as an object, reasoning_content turned off).
	Notes []string
}

// Model is anything that answers a conversation with text and tool calls:
// a remote server or the built-in offline model.
type Model interface {
	Name() string
	Complete(ctx context.Context, req Request) (Response, error)
}

// ErrContextLength means the prompt is longer than the model's context
// window. The caller can shorten the conversation and try again; the
// client's error is a *ContextLengthError, with the window when the server
// said it.
var ErrContextLength = errors.New("the prompt exceeds the model's context window")

// ErrUnreachable means a server that has never answered the job could not
// be reached at all (connection refused, unknown host): most likely a
// wrong address. A server that answered before and is unreachable now is
// restarting, and retried.
var ErrUnreachable = errors.New("the model server cannot be reached")
