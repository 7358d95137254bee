// Package fakellm is an OpenAI-compatible chat-completions server for tests.
// A handler decides each answer, including faults (rate limits, server
// errors, hangs, cut-off bodies); every request is checked for protocol
// validity, and violations are collected for the test to assert on.
package fakellm

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"creator/internal/agent"
	"creator/internal/llm"
)

// Request is what the model was sent.
type Request struct {
	N             int // 1 for the first request
	Model         string
	System        string
	Messages      []llm.Message
	Tools         []string
	Authorization string
	Raw           []byte
}

// Reply is the answer to one request: a normal answer, or a fault.
type Reply struct {
	Content          string
	Reasoning        string
	ToolCalls        []llm.ToolCall
	FinishReason     string // default "tool_calls" or "stop"
	PromptTokens     int
	CompletionTokens int
	CachedTokens     int

	// RawArgs sends the tool calls' arguments as JSON values (an object)
	// instead of strings, as some llama.cpp builds do; each Arguments must
	// then be valid JSON.
	RawArgs bool

	Status      int               // non-zero: answer with this HTTP status and Body
	Header      map[string]string // extra response headers (e.g. Retry-After)
	Body        string            // raw body for Status, or a replacement body (sent with 200)
	ContentType string            // of the body; default application/json
	// Crash makes the server die in the middle of the request: it stops
	// listening (connections are refused) and drops every connection,
	// until Up starts it again on the same address.
	Crash     bool
	Delay     time.Duration // wait before answering
	Hang      bool          // never answer; wait until the client gives up
	CutOff    bool          // send half of the body, then close the connection
	NoChoices bool          // answer with an empty choices list
}

// Handler decides the reply to a request.
type Handler func(Request) Reply

// Server is a running fake server.
type Server struct {
	*httptest.Server
	handler Handler
	url     string
	latency *latency // nil: answers at once

	mu         sync.Mutex
	down       []*httptest.Server // servers stopped by a crash, closed with the last
	requests   []Request
	violations []string
	hooks      []func(Request)
	// embedStatus fails /v1/embeddings with this status; embedded counts
	// the texts embedded.
	embedStatus int
	embedded    int
}

// New starts a server; URL() gives its base URL for clients.
func New(h Handler) *Server {
	s := &Server{handler: h}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	s.url = s.Server.URL + "/v1"
	return s
}

// URL is the base URL to configure a client with.
func (s *Server) URL() string { return s.url }

// Down stops the server as a crash does: connections to its address are
// refused until Up.
func (s *Server) Down() {
	s.mu.Lock()
	hs := s.Server
	s.mu.Unlock()
	hs.Listener.Close()
	hs.CloseClientConnections()
}

// Up starts a stopped server again on the same address.
func (s *Server) Up() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, err := net.Listen("tcp", s.Server.Listener.Addr().String())
	if err != nil {
		return err
	}
	s.down = append(s.down, s.Server)
	s.Server = &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(s.serve)}}
	s.Server.Start()
	return nil
}

// Close stops the server and waits for its requests to end.
func (s *Server) Close() {
	s.mu.Lock()
	all := append(s.down, s.Server)
	s.mu.Unlock()
	for _, hs := range all {
		hs.Close()
	}
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Violations lists protocol errors seen in requests.
func (s *Server) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.violations...)
}

// OnRequest registers a function called as each request arrives, before it
// is answered.
func (s *Server) OnRequest(f func(Request)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks = append(s.hooks, f)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/embeddings") && r.Method == http.MethodPost {
		s.serveEmbeddings(w, r)
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") || r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var body openai.ChatCompletionRequest
	if err := json.Unmarshal(raw, &body); err != nil {
		s.violate("request is not valid JSON: %v", err)
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	req := s.receive(requestOf(&body, r.Header.Get("Authorization"), raw))
	reply := s.handler(req)
	if s.holdReply(w, r, &body, &reply) {
		writeReply(w, body.Model, reply)
	}
}

// requestOf is the Request of a chat completion's body: its system
// prompt apart from the messages, and the names of its tools.
func requestOf(body *openai.ChatCompletionRequest, authorization string, raw []byte) Request {
	req := Request{Model: body.Model, Authorization: authorization, Raw: raw}
	for _, m := range body.Messages {
		if m.Role == openai.ChatMessageRoleSystem {
			req.System = m.Content
			continue
		}
		lm := llm.Message{Role: llm.Role(m.Role), Content: m.Content, Reasoning: m.ReasoningContent, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			lm.ToolCalls = append(lm.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		req.Messages = append(req.Messages, lm)
	}
	for _, t := range body.Tools {
		if t.Function != nil {
			req.Tools = append(req.Tools, t.Function.Name)
		}
	}
	return req
}

// receive checks a request for protocol violations, numbers and records
// it, and calls the hooks with it before it is answered.
func (s *Server) receive(req Request) Request {
	if err := llm.Validate(req.Messages); err != nil {
		s.violate("request %d: %v", len(s.Requests())+1, err)
	}
	if id := repeatedID(req.Messages); id != "" {
		s.violate("request %d: tool call id %q names two calls of the history", len(s.Requests())+1, id)
	}
	s.mu.Lock()
	req.N = len(s.requests) + 1
	s.requests = append(s.requests, req)
	hooks := append([]func(Request){}, s.hooks...)
	s.mu.Unlock()
	for _, h := range hooks {
		h(req)
	}
	return req
}

// holdReply plays the reply's delay, hang or crash, then the server's
// latency, which may set the reply's token counts. False when nothing is
// to be answered: the client gave up, or the server crashed.
func (s *Server) holdReply(w http.ResponseWriter, r *http.Request, body *openai.ChatCompletionRequest, reply *Reply) bool {
	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			return false
		}
	}
	if reply.Hang {
		<-r.Context().Done()
		return false
	}
	if reply.Crash {
		s.Down()
		dropConnection(w)
		return false
	}
	if s.latency != nil && reply.Status == 0 {
		return s.latency.hold(r.Context(), body, reply)
	}
	return true
}

// writeReply writes a reply: its status and body, or else its body or
// the chat completion it makes for model, whole or cut off.
func writeReply(w http.ResponseWriter, model string, reply Reply) {
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	contentType := reply.ContentType
	if contentType == "" {
		contentType = "application/json"
	}
	if reply.Status != 0 {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(reply.Status)
		io.WriteString(w, reply.Body)
		return
	}
	data := reply.Body
	if data == "" {
		data = encode(model, reply)
	}
	w.Header().Set("Content-Type", contentType)
	if reply.CutOff {
		// Promise the whole body, send half, then drop the connection.
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		io.WriteString(w, data[:len(data)/2])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		dropConnection(w)
		return
	}
	io.WriteString(w, data)
}

// dropConnection closes the request's connection without a word more.
func dropConnection(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
		}
	}
}

func (s *Server) violate(format string, a ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.violations = append(s.violations, fmt.Sprintf(format, a...))
}

func encode(model string, r Reply) string {
	finish := r.FinishReason
	if finish == "" {
		finish = "stop"
		if len(r.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	type fn struct {
		Name      string `json:"name"`
		Arguments any    `json:"arguments"`
	}
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	msg := map[string]any{"role": "assistant", "content": r.Content}
	if r.Reasoning != "" {
		msg["reasoning_content"] = r.Reasoning
	}
	if len(r.ToolCalls) > 0 {
		calls := make([]call, len(r.ToolCalls))
		for i, tc := range r.ToolCalls {
			var args any = tc.Arguments
			if r.RawArgs {
				args = json.RawMessage(tc.Arguments)
			}
			calls[i] = call{ID: tc.ID, Type: "function", Function: fn{Name: tc.Name, Arguments: args}}
		}
		msg["tool_calls"] = calls
	}
	choices := []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}
	if r.NoChoices {
		choices = []any{}
	}
	usage := map[string]any{"prompt_tokens": r.PromptTokens, "completion_tokens": r.CompletionTokens, "total_tokens": r.PromptTokens + r.CompletionTokens}
	if r.CachedTokens > 0 {
		usage["prompt_tokens_details"] = map[string]any{"cached_tokens": r.CachedTokens}
	}
	data, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": model,
		"choices": choices, "usage": usage,
	})
	return string(data)
}

// Call is a convenience for building tool calls in replies.
func Call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: args}
}

// Script answers like a model following a fixed plan: each step is the tool
// calls of one answer. The next step is decided from the conversation, as a
// real model would: the first step whose calls have not all been answered.
// Calls answered as interrupted (after a crash and resume) count as not
// answered, so that step is repeated. After the last step the model says it
// is done, without tool calls. Call ids are s<step>_<n>, and
// s<step>_<n>r<request> for a step made again.
func Script(steps ...[]llm.ToolCall) Handler {
	return func(r Request) Reply {
		done := map[int]bool{}
		results := map[string]string{}
		for _, m := range r.Messages {
			if m.Role == llm.RoleTool {
				results[m.ToolCallID] = m.Content
			}
		}
		sent := map[string]bool{}
		for _, m := range r.Messages {
			if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 {
				continue
			}
			for _, tc := range m.ToolCalls {
				sent[tc.ID] = true
			}
			var k int
			if _, err := fmt.Sscanf(m.ToolCalls[0].ID, "s%d_", &k); err != nil {
				continue
			}
			complete := true
			for _, tc := range m.ToolCalls {
				res, ok := results[tc.ID]
				if !ok || agent.DidNotRun(res) {
					complete = false
				}
			}
			if complete {
				done[k] = true
			}
		}
		tokens := len(r.Raw) / 4
		for k := 1; k <= len(steps); k++ {
			if done[k] {
				continue
			}
			calls := make([]llm.ToolCall, len(steps[k-1]))
			for i, tc := range steps[k-1] {
				tc.ID = fmt.Sprintf("s%d_%d", k, i+1)
				if results[tc.ID] != "" || sent[tc.ID] {
					// A step made again (after an interruption) has ids of
					// its own, as a real model's would be.
					tc.ID = fmt.Sprintf("s%d_%dr%d", k, i+1, r.N)
				}
				calls[i] = tc
			}
			return Reply{ToolCalls: calls, PromptTokens: tokens, CompletionTokens: 20}
		}
		return Reply{Content: "All tasks are done.", PromptTokens: tokens, CompletionTokens: 5}
	}
}

// repeatedID returns an id that two tool calls of a history share: a
// result would be paired with the wrong call.
func repeatedID(msgs []llm.Message) string {
	seen := map[string]bool{}
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if seen[tc.ID] {
				return tc.ID
			}
			seen[tc.ID] = true
		}
	}
	return ""
}
