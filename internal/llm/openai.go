package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// ClientConfig configures an OpenAI-compatible client.
type ClientConfig struct {
	BaseURL string // e.g. http://localhost:8080/v1; default https://api.openai.com/v1
	APIKey  string // sent as a bearer token, never logged
	Model   string
	// Timeout bounds one request attempt (default 10 minutes: local
	// servers can take long for a big prompt).
	Timeout time.Duration
	// MaxAttempts bounds the requests per call, retries included (default 5).
	MaxAttempts int
	// BaseDelay is the first backoff delay (default 1s); it doubles per retry.
	BaseDelay time.Duration
	// MaxDelay caps a backoff delay and a Retry-After wait (default 60s).
	MaxDelay time.Duration
	// SendReasoning returns the model's reasoning text to the server with
	// assistant messages that carry tool calls, which reasoning models served
	// by llama.cpp and vLLM (gpt-oss in harmony format) expect. It is only
	// sent for messages whose reasoning came from the server.
	SendReasoning bool
	// HTTPClient replaces the default HTTP client (its Transport is kept).
	HTTPClient *http.Client
	// Sleep waits between attempts; tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// defaultBaseURL is the server when none is configured.
const defaultBaseURL = "https://api.openai.com/v1"

// newAPI is a go-openai client of the server at baseURL; hc, when set,
// replaces the default HTTP client.
func newAPI(baseURL, key string, hc *http.Client) *openai.Client {
	oc := openai.DefaultConfig(key)
	oc.BaseURL = strings.TrimRight(baseURL, "/")
	if hc != nil {
		oc.HTTPClient = hc
	}
	return openai.NewClientWithConfig(oc)
}

// Client is a Model served by an OpenAI-compatible chat-completions server.
type Client struct {
	cfg ClientConfig
	api *openai.Client
}

// NewClient returns a client for cfg.
func NewClient(cfg ClientConfig) *Client {
	if cfg.BaseURL == "" {
		cfg.BaseURL = defaultBaseURL
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Minute
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 5
	}
	if cfg.BaseDelay <= 0 {
		cfg.BaseDelay = time.Second
	}
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = 60 * time.Second
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	transport := http.DefaultTransport
	if cfg.HTTPClient != nil && cfg.HTTPClient.Transport != nil {
		transport = cfg.HTTPClient.Transport
	}
	return &Client{cfg: cfg, api: newAPI(cfg.BaseURL, cfg.APIKey, &http.Client{Transport: &statusRecorder{next: transport}})}
}

// Name is the model name sent to the server.
func (c *Client) Name() string { return c.cfg.Model }

// Complete sends the conversation and returns the model's answer. It retries
// rate limits (429, honouring Retry-After), server errors (5xx), timeouts,
// broken connections, cut-off bodies and empty answers with exponential
// backoff and jitter, up to MaxAttempts requests.
func (c *Client) Complete(ctx context.Context, req Request) (Response, error) {
	body := c.request(req)
	var last error
	for attempt := 1; ; attempt++ {
		info := &attemptInfo{}
		actx, cancel := context.WithTimeout(withAttemptInfo(ctx, info), c.cfg.Timeout)
		resp, err := c.api.CreateChatCompletion(actx, body)
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		if err == nil {
			if len(resp.Choices) > 0 {
				out := convertResponse(resp)
				out.Attempts = attempt
				return out, nil
			}
			err = errors.New("the server answered with no choices")
		}
		if ctx.Err() != nil {
			return Response{}, ctx.Err()
		}
		kind := classify(err, timedOut)
		switch kind {
		case errContext:
			return Response{}, fmt.Errorf("%w: %s", ErrContextLength, describeError(err))
		case errFatal:
			return Response{}, fmt.Errorf("model server at %s: %s", SafeURL(c.cfg.BaseURL), describeError(err))
		}
		last = err
		if attempt >= c.cfg.MaxAttempts {
			break
		}
		if err := c.cfg.Sleep(ctx, c.delay(attempt, info.retryAfter)); err != nil {
			return Response{}, err
		}
	}
	msg := fmt.Sprintf("model server at %s failed %d times: %s", SafeURL(c.cfg.BaseURL), c.cfg.MaxAttempts, describeError(last))
	if isUnreachable(last) {
		return Response{}, fmt.Errorf("%w: %s", ErrUnreachable, msg)
	}
	return Response{}, errors.New(msg)
}

// delay is the wait before the next attempt: the server's Retry-After when
// given, else exponential backoff with full jitter, capped at MaxDelay.
func (c *Client) delay(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, c.cfg.MaxDelay)
	}
	d := c.cfg.BaseDelay << (attempt - 1)
	if d <= 0 || d > c.cfg.MaxDelay {
		d = c.cfg.MaxDelay
	}
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

func (c *Client) request(req Request) openai.ChatCompletionRequest {
	msgs := make([]openai.ChatCompletionMessage, 0, len(req.Messages)+1)
	if req.System != "" {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: req.System})
	}
	for _, m := range req.Messages {
		om := openai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
		if m.Role == RoleAssistant && c.cfg.SendReasoning && len(m.ToolCalls) > 0 {
			om.ReasoningContent = m.Reasoning
		}
		for _, tc := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
				ID: tc.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: tc.Arguments},
			})
		}
		msgs = append(msgs, om)
	}
	tools := make([]openai.Tool, 0, len(req.Tools))
	for _, t := range req.Tools {
		tools = append(tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: t.Parameters,
		}})
	}
	return openai.ChatCompletionRequest{Model: c.cfg.Model, Messages: msgs, Tools: tools}
}

func convertResponse(resp openai.ChatCompletionResponse) Response {
	ch := resp.Choices[0]
	out := Response{
		Content:      ch.Message.Content,
		Reasoning:    ch.Message.ReasoningContent,
		FinishReason: string(ch.FinishReason),
		Usage:        Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens},
	}
	if d := resp.Usage.PromptTokensDetails; d != nil {
		out.Usage.CachedTokens = d.CachedTokens
	}
	for _, tc := range ch.Message.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return out
}

type errKind int

const (
	errRetry   errKind = iota // worth another attempt
	errContext                // prompt too long
	errFatal                  // retrying will not help (auth, bad request, unknown model)
)

// classify decides what to do about a failed attempt. Failures without an
// HTTP error status (timeouts, broken connections, cut-off or empty answers)
// are worth another attempt.
func classify(err error, timedOut bool) errKind {
	status, text := 0, err.Error()
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		status = apiErr.HTTPStatusCode
		if code, ok := apiErr.Code.(string); ok {
			text += " " + code
		}
	case errors.As(err, &reqErr):
		status = reqErr.HTTPStatusCode
		text += " " + string(reqErr.Body)
	}
	if isContextLength(text) {
		return errContext
	}
	switch {
	case timedOut, status == 0, status == http.StatusRequestTimeout, status == http.StatusConflict,
		status == http.StatusTooManyRequests, status >= 500:
		return errRetry
	}
	return errFatal
}

// isContextLength recognises the ways OpenAI, vLLM, llama.cpp and Ollama say
// that the prompt is too long.
func isContextLength(text string) bool {
	t := strings.ToLower(text)
	for _, s := range []string{
		"context_length_exceeded", "maximum context length", "context length exceeded",
		"exceeds the available context size", "exceed_context_size", "context window",
		"prompt is too long", "too many tokens", "input is too long", "reduce the length of the messages",
	} {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

func isUnreachable(err error) bool {
	var dnsErr *net.DNSError
	return errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &dnsErr) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH)
}

// describeError shortens an error for a message; no request data (and so no
// API key) is ever part of it.
func describeError(err error) string {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	var urlErr *url.Error
	switch {
	case errors.As(err, &apiErr):
		return fmt.Sprintf("HTTP %d: %s", apiErr.HTTPStatusCode, apiErr.Message)
	case errors.As(err, &reqErr):
		body := strings.TrimSpace(string(reqErr.Body))
		if len(body) > 300 {
			body = body[:300] + "…"
		}
		if body == "" {
			return fmt.Sprintf("HTTP %d", reqErr.HTTPStatusCode)
		}
		return fmt.Sprintf("HTTP %d: %s", reqErr.HTTPStatusCode, body)
	case errors.As(err, &urlErr):
		return urlErr.Err.Error()
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the answer was cut off"
	}
	return err.Error()
}

// attemptInfo receives what the transport saw of one attempt's response.
type attemptInfo struct {
	retryAfter time.Duration
}

type attemptKey struct{}

func withAttemptInfo(ctx context.Context, info *attemptInfo) context.Context {
	return context.WithValue(ctx, attemptKey{}, info)
}

// statusRecorder notes the Retry-After of each response for the retry loop;
// go-openai's errors do not expose headers.
type statusRecorder struct{ next http.RoundTripper }

func (s *statusRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(r)
	if info, ok := r.Context().Value(attemptKey{}).(*attemptInfo); ok && resp != nil {
		info.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return resp, err
}

// parseRetryAfter reads seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
