package llm_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"creator/internal/fakellm"
	"creator/internal/llm"
)

// sleeps records the waits between attempts instead of waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return ctx.Err()
}

func client(url string, s *sleeps) *llm.Client {
	return llm.NewClient(llm.ClientConfig{BaseURL: url, APIKey: "sk-test-secret", Model: "m", Timeout: 300 * time.Millisecond, Sleep: s.sleep, SendReasoning: true})
}

var req = llm.Request{System: "sys", Messages: []llm.Message{{Role: llm.RoleUser, Content: "go"}},
	Tools: []llm.ToolDef{{Name: "read_plan", Description: "d", Parameters: []byte(`{"type":"object","properties":{}}`)}}}

// script answers request n with replies[n-1] (the last one repeats).
func script(replies ...fakellm.Reply) fakellm.Handler {
	return func(r fakellm.Request) fakellm.Reply {
		return replies[min(r.N, len(replies))-1]
	}
}

var ok = fakellm.Reply{Content: "fine", Reasoning: "thinking", ToolCalls: []llm.ToolCall{fakellm.Call("c1", "read_plan", "{}"), fakellm.Call("c2", "get_progress", "")},
	PromptTokens: 100, CompletionTokens: 7, CachedTokens: 64}

func TestCompleteReturnsEverything(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(script(ok))
	defer srv.Close()
	resp, err := client(srv.URL(), &sleeps{}).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "fine" || resp.Reasoning != "thinking" || len(resp.ToolCalls) != 2 || resp.ToolCalls[1].Name != "get_progress" ||
		resp.FinishReason != "tool_calls" || resp.Usage != (llm.Usage{PromptTokens: 100, CompletionTokens: 7, CachedTokens: 64}) || resp.Attempts != 1 {
		t.Fatalf("response = %+v", resp)
	}
	got := srv.Requests()[0]
	if got.System != "sys" || got.Model != "m" || got.Authorization != "Bearer sk-test-secret" || got.Tools[0] != "read_plan" {
		t.Fatalf("request = %+v", got)
	}
}

func TestRetries(t *testing.T) {
	t.Parallel()
	fail500 := fakellm.Reply{Status: 500, Body: `{"error":{"message":"boom","type":"server_error"}}`}
	cases := []struct {
		name     string
		replies  []fakellm.Reply
		attempts int
		waits    []time.Duration // exact waits; nil: only count them
	}{
		{"429 with Retry-After", []fakellm.Reply{{Status: 429, Header: map[string]string{"Retry-After": "2"}, Body: `{"error":{"message":"slow down"}}`}, ok}, 2, []time.Duration{2 * time.Second}},
		{"429 without Retry-After", []fakellm.Reply{{Status: 429, Body: `{"error":{"message":"slow down"}}`}, ok}, 2, nil},
		{"500 twice", []fakellm.Reply{fail500, fail500, ok}, 3, nil},
		{"503 plain text", []fakellm.Reply{{Status: 503, Body: "upstream down"}, ok}, 2, nil},
		{"hang past the timeout", []fakellm.Reply{{Hang: true}, ok}, 2, nil},
		{"cut-off body", []fakellm.Reply{{CutOff: true, Content: strings.Repeat("x", 2000)}, ok}, 2, nil},
		{"empty choices", []fakellm.Reply{{NoChoices: true}, ok}, 2, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := fakellm.New(script(c.replies...))
			defer srv.Close()
			s := &sleeps{}
			resp, err := client(srv.URL(), s).Complete(context.Background(), req)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Attempts != c.attempts || len(srv.Requests()) != c.attempts || len(s.d) != c.attempts-1 {
				t.Fatalf("attempts = %d, requests = %d, waits = %v; want %d", resp.Attempts, len(srv.Requests()), s.d, c.attempts)
			}
			if c.waits != nil && (len(s.d) != len(c.waits) || s.d[0] != c.waits[0]) {
				t.Fatalf("waits = %v, want %v", s.d, c.waits)
			}
		})
	}
}

// A server that keeps failing is retried for the whole window and not a
// moment longer, with waits that grow from 1s to the 30s cap, jittered.
func TestGivesUpAtTheEndOfTheWindow(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(script(fakellm.Reply{Status: 502, Body: "bad gateway"}))
	defer srv.Close()
	clk := newClock()
	var at []time.Duration // when each request came, after the first
	srv.OnRequest(func(fakellm.Request) { at = append(at, clk.since()) })
	c := llm.NewClient(llm.ClientConfig{BaseURL: srv.URL(), APIKey: "sk-test-secret", Model: "m", Sleep: clk.sleep, Now: clk.now})
	_, err := c.Complete(context.Background(), req)
	n := len(srv.Requests())
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("failed %d times over 5m0s; last: HTTP 502: bad gateway", n)) {
		t.Fatalf("err = %v after %d requests", err, n)
	}
	if at[n-1] > 5*time.Minute || clk.since() > 5*time.Minute || n < 10 {
		t.Fatalf("%d requests, the last at %v, given up at %v; want many, none after 5m", n, at[n-1], clk.since())
	}
	for i, d := range clk.waits {
		if hi := min(time.Second<<i, 30*time.Second); d < 0 || d > hi {
			t.Errorf("wait %d = %v, want within [0, %v]", i+1, d, hi)
		}
	}
	if strings.Contains(err.Error(), "sk-test-secret") {
		t.Fatal("the API key is in an error message")
	}
}

func TestNoRetryFor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		reply fakellm.Reply
		want  string
		isCtx bool
	}{
		{"OpenAI context length", fakellm.Reply{Status: 400, Body: `{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}`}, "context window", true},
		{"llama.cpp context size", fakellm.Reply{Status: 400, Body: `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`}, "context window", true},
		{"bad key", fakellm.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided"}}`}, "rejected the API key (HTTP 401: Incorrect API key provided)", false},
		{"unknown model", fakellm.Reply{Status: 404, Body: `{"error":{"message":"model 'x' not found"}}`}, "HTTP 404", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := fakellm.New(script(c.reply))
			defer srv.Close()
			_, err := client(srv.URL(), &sleeps{}).Complete(context.Background(), req)
			if err == nil || !strings.Contains(err.Error(), c.want) || errors.Is(err, llm.ErrContextLength) != c.isCtx {
				t.Fatalf("err = %v", err)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("%d requests, want 1", n)
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(script(ok))
	url := srv.URL()
	srv.Close()
	_, err := client(url, &sleeps{}).Complete(context.Background(), req)
	if !errors.Is(err, llm.ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
}

// The server's address is shown without the credentials or query it may
// carry.
func TestUnreachableHidesCredentials(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(script(ok))
	addr := strings.TrimPrefix(srv.URL(), "http://")
	srv.Close()
	_, err := client("http://user:hunter2@"+addr+"?key=sk-query-secret", &sleeps{}).Complete(context.Background(), req)
	if !errors.Is(err, llm.ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	if want := "model server at http://" + addr + " cannot be reached"; !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to say %q", err, want)
	}
	for _, secret := range []string{"user", "hunter2", "key=", "sk-query-secret"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("err = %v shows %q", err, secret)
		}
	}
}

func TestCancelStopsAtOnce(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(script(fakellm.Reply{Hang: true}))
	defer srv.Close()
	c := llm.NewClient(llm.ClientConfig{BaseURL: srv.URL(), Model: "m"})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.Complete(ctx, req)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
}

func TestReasoningIsSentBackWithToolCalls(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(script(ok))
	defer srv.Close()
	r := req
	r.Messages = []llm.Message{
		{Role: llm.RoleUser, Content: "go"},
		{Role: llm.RoleAssistant, Reasoning: "plan first", ToolCalls: []llm.ToolCall{{ID: "a", Name: "read_plan", Arguments: "{}"}}},
		{Role: llm.RoleTool, ToolCallID: "a", Content: "no plan"},
	}
	if _, err := client(srv.URL(), &sleeps{}).Complete(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0]
	if got.Messages[1].Reasoning != "plan first" || len(srv.Violations()) != 0 {
		t.Fatalf("assistant message sent as %+v; violations %v", got.Messages[1], srv.Violations())
	}
}

func TestRetryAfterDate(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(script(fakellm.Reply{Status: 503, Header: map[string]string{"Retry-After": time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat)}}, ok))
	defer srv.Close()
	s := &sleeps{}
	if _, err := client(srv.URL(), s).Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if len(s.d) != 1 || s.d[0] < time.Second || s.d[0] > 3*time.Second {
		t.Fatalf("waits = %v, want about 3s", s.d)
	}
}

// A message's data is for programs on this side: the request body holds
// its text, never its data.
func TestDataIsNotSent(t *testing.T) {
	t.Parallel()
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"fine"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`)
	}))
	defer srv.Close()
	r := req
	r.Messages = []llm.Message{
		{Role: llm.RoleUser, Content: "go", Data: llm.MessageData{Value: llm.ValueOf(map[string]string{"inputs": "first-secret"})}},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "a", Name: "read_plan", Arguments: "{}"}}},
		{Role: llm.RoleTool, ToolCallID: "a", ToolName: "read_plan", Content: "the plan",
			Data: llm.MessageData{Kind: "not_run", Failed: true, Cleared: true, Value: llm.ValueOf(map[string]string{"tasks": "tool-secret"})}},
	}
	resp, err := client(srv.URL, &sleeps{}).Complete(context.Background(), r)
	if err != nil || resp.Content != "fine" {
		t.Fatalf("resp = %+v, %v", resp, err)
	}
	for _, leak := range []string{"first-secret", "tool-secret", "not_run", `"data"`, `"failed"`, `"cleared"`} {
		if strings.Contains(string(body), leak) {
			t.Errorf("the request body holds %s:\n%s", leak, body)
		}
	}
	if !strings.Contains(string(body), `"the plan"`) || !strings.Contains(string(body), `"go"`) {
		t.Errorf("the request body lacks the messages' text:\n%s", body)
	}
}

// clock is a test's time: sleeping moves it on at once.
type clock struct {
	mu    sync.Mutex
	t     time.Time
	start time.Time
	waits []time.Duration
	// onSleep, if set, runs at each wait with its number (1 for the first).
	onSleep func(n int)
}

func newClock() *clock {
	start := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	return &clock{t: start, start: start}
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) since() time.Duration { return c.now().Sub(c.start) }

func (c *clock) sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.waits = append(c.waits, d)
	n, f := len(c.waits), c.onSleep
	c.mu.Unlock()
	if f != nil {
		f(n)
	}
	return ctx.Err()
}
