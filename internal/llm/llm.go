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
}

// Model is anything that answers a conversation with text and tool calls:
// a remote server or the built-in offline model.
type Model interface {
	Name() string
	Complete(ctx context.Context, req Request) (Response, error)
}

// ErrContextLength means the prompt is longer than the model's context
// window. The caller can shorten the conversation and try again.
var ErrContextLength = errors.New("the prompt exceeds the model's context window")

// ErrUnreachable means the server could not be reached at all (connection
// refused, unknown host), as opposed to answering with an error.
var ErrUnreachable = errors.New("the model server cannot be reached")
