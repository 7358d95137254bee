package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"creator/internal/secret"
)

// ClientConfig configures an OpenAI-compatible client.
type ClientConfig struct {
	BaseURL string // e.g. http://localhost:8080/v1; default https://api.openai.com/v1
	APIKey  string // sent as a bearer token, never logged nor part of an error
	Model   string
	// Timeout bounds one request attempt (default 10 minutes: local
	// servers can take long for a big prompt).
	Timeout time.Duration
	// RetryFor is how long failures worth another attempt (429, 5xx,
	// timeouts, broken connections, a server restarting) are retried after
	// the first one (default 5 minutes; negative: not at all).
	RetryFor time.Duration
	// BaseDelay is the first backoff delay (default 1s); it doubles per
	// retry, with full jitter.
	BaseDelay time.Duration
	// MaxDelay caps a backoff delay (default 30s). A wait the server asks
	// for is honoured up to the end of the retry window.
	MaxDelay time.Duration
	// SendReasoning returns the model's reasoning text to the server with
	// assistant messages that carry tool calls, which some servers expect
	// (DeepSeek in thinking mode, reasoning models behind llama.cpp and
	// vLLM) and strict ones refuse (LiteLLM). It is only sent for messages
	// whose reasoning came from the server. A server that refuses the field
	// turns it off, one that asks for it turns it on, for the rest of the
	// client's life.
	SendReasoning bool
	// HTTPClient replaces the default HTTP client (its Transport is kept).
	HTTPClient *http.Client
	// Sleep waits between attempts and Now tells the time; tests replace
	// them. The retry window ends when the clock or the waits pass it.
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
	// Limiter, when set, gates every attempt: a place is held from sending
	// to the answer, not during the wait before a retry. Nil: no gate.
	Limiter *Limiter
}

// defaultBaseURL is the server when none is configured.
const defaultBaseURL = "https://api.openai.com/v1"

// DefaultRetryFor is how long failing requests are retried by default.
const DefaultRetryFor = 5 * time.Minute

// quickRetries is how often a server that has never answered the job and
// cannot be reached is tried again before the client says so.
const quickRetries = 2

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
	// sendReasoning is the current choice, which the server may change;
	// answered is set once the server has answered with anything.
	sendReasoning atomic.Bool
	answered      atomic.Bool
	retried       atomic.Pointer[func(Retry)]
}

// Retry is an attempt the server failed that the client tries again: the
// server's own status and message, and when the next attempt goes.
type Retry struct {
	Attempt int
	Status  int // 0: no answer (a broken connection, a timeout)
	Message string
	Wait    time.Duration
	Next    time.Time
}

// Retries is a model client that tells of the attempts it tries again,
// so that a job waiting for its server says why.
type Retries interface {
	OnRetry(fn func(Retry))
}

// OnRetry makes fn hear of each failed attempt before the client waits to
// try again; nil stops it.
func (c *Client) OnRetry(fn func(Retry)) {
	if fn == nil {
		c.retried.Store(nil)
		return
	}
	c.retried.Store(&fn)
}

// tellRetry tells of a failed attempt tried again after wait.
func (c *Client) tellRetry(attempt int, f *failure, wait time.Duration) {
	if fn := c.retried.Load(); fn != nil {
		msg := c.redact(f.message)
		if msg == "" && f.timedOut {
			msg = "no answer within the request timeout"
		}
		(*fn)(Retry{Attempt: attempt, Status: f.status, Message: msg, Wait: wait, Next: c.cfg.Now().Add(wait)})
	}
}

// Adaptive is a model client that learns about its server during a job:
// what the job knew before (MarkAnswered, for a job the server has
// answered), and what it learned (SendsReasoning), for the job's record.
type Adaptive interface {
	MarkAnswered()
	SendsReasoning() bool
}

// NewClient returns a client for cfg.
func NewClient(cfg ClientConfig) *Client {
	if cfg.BaseURL == "" {
		cfg.BaseURL = defaultBaseURL
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Minute
	}
	if cfg.RetryFor == 0 {
		cfg.RetryFor = DefaultRetryFor
	}
	if cfg.BaseDelay <= 0 {
		cfg.BaseDelay = time.Second
	}
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = 30 * time.Second
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	transport := http.DefaultTransport
	if cfg.HTTPClient != nil && cfg.HTTPClient.Transport != nil {
		transport = cfg.HTTPClient.Transport
	}
	c := &Client{cfg: cfg, api: newAPI(cfg.BaseURL, cfg.APIKey, &http.Client{Transport: &statusRecorder{next: transport}})}
	c.sendReasoning.Store(cfg.SendReasoning)
	return c
}

// Name is the model name sent to the server.
func (c *Client) Name() string { return c.cfg.Model }

// MarkAnswered records that the server has answered this job before (a
// resumed job): a server that cannot be reached is then restarting and
// retried for RetryFor, not a wrong address reported at once.
func (c *Client) MarkAnswered() { c.answered.Store(true) }

// SendsReasoning reports whether reasoning text goes back to the server.
func (c *Client) SendsReasoning() bool { return c.sendReasoning.Load() }

// Complete sends the conversation and returns the model's answer. Rate
// limits (429), server errors (5xx, and errors a server answers with HTTP
// 200), timeouts, broken connections, cut-off bodies and empty answers are
// retried with exponential backoff and full jitter, or after the wait the
// server asks for, for RetryFor after the first failure. A server that has
// never answered the job and cannot be reached is tried twice more, quickly:
// that is a wrong address, not a restart. A context-length error is a
// *ContextLengthError; every other failure a *ServerError with the
// server's own message and HTTP status.
func (c *Client) Complete(ctx context.Context, req Request) (Response, error) {
	var notes []string
	switched := false // the reasoning field was switched once for this call
	var firstFail time.Time
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		send := c.sendReasoning.Load()
		release, err := c.cfg.Limiter.Acquire(ctx)
		if err != nil {
			return Response{}, err
		}
		resp, f := c.attempt(ctx, c.request(req, send))
		release(f.statusOr(http.StatusOK))
		if f == nil {
			c.answered.Store(true)
			resp.Attempts = attempt
			resp.Notes = append(notes, resp.Notes...)
			return resp, nil
		}
		if ctx.Err() != nil {
			return Response{}, ctx.Err()
		}
		if f.status != 0 {
			c.answered.Store(true)
		}
		now := c.cfg.Now()
		if firstFail.IsZero() {
			firstFail = now
		}
		retried := max(now.Sub(firstFail), waited)
		fail := func(kind error, why string) error {
			return &ServerError{URL: SafeURL(c.cfg.BaseURL), Status: f.status, Message: c.redact(f.message), Attempts: attempt,
				Retried: retried, Kind: kind, Why: c.redact(why), Refused: f.kind != failRetry, TimedOut: f.timedOut}
		}
		switch f.kind {
		case failContext:
			return Response{}, &ContextLengthError{Limit: f.window, Status: f.status, Message: c.redact(f.message)}
		case failAuth:
			return Response{}, fail(ErrAuth, "")
		case failReasoningRefused, failReasoningMissing:
			want := f.kind == failReasoningMissing
			if switched || send == want {
				return Response{}, fail(nil, "")
			}
			switched = true
			c.sendReasoning.Store(want)
			verb := "stopped sending"
			if want {
				verb = "started sending"
			}
			notes = append(notes, fmt.Sprintf("%s reasoning_content back to the server for the rest of the run: it answered %s", verb, c.redact(describe(f.status, f.message))))
			continue
		case failFatal:
			return Response{}, fail(nil, "")
		}
		if f.unreachable && !c.answered.Load() {
			// Never answered this job: a wrong address or a server not
			// started, said within seconds.
			if attempt > quickRetries {
				return Response{}, fail(ErrUnreachable, "")
			}
			d := c.cfg.BaseDelay / 4 * time.Duration(attempt)
			if err := c.cfg.Sleep(ctx, d); err != nil {
				return Response{}, err
			}
			waited += d
			continue
		}
		left := c.cfg.RetryFor - retried
		if left <= 0 {
			return Response{}, fail(nil, "")
		}
		wait := c.backoff(attempt)
		if f.hinted {
			wait = f.hint
			if wait > left {
				return Response{}, fail(nil, fmt.Sprintf("the server asked to wait %s, longer than the %s left of the retry window", wait.Round(time.Millisecond), left.Round(time.Millisecond)))
			}
		}
		wait = min(wait, left)
		c.tellRetry(attempt, f, wait)
		if err := c.cfg.Sleep(ctx, wait); err != nil {
			return Response{}, err
		}
		waited += wait
	}
}

// backoff is the wait before attempt+1 without a hint from the server:
// exponential from BaseDelay, capped at MaxDelay, with full jitter.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.cfg.BaseDelay << min(attempt-1, 30)
	if d <= 0 || d > c.cfg.MaxDelay {
		d = c.cfg.MaxDelay
	}
	return time.Duration(rand.Int64N(int64(d) + 1))
}

func (c *Client) redact(s string) string { return secret.Message(s, c.cfg.APIKey) }

type failKind int

const (
	failRetry            failKind = iota // worth another attempt
	failContext                          // prompt too long
	failAuth                             // the key was rejected
	failReasoningRefused                 // the server refuses reasoning_content
	failReasoningMissing                 // the server wants reasoning_content
	failFatal                            // retrying will not help (bad request, unknown model)
)

// failure is one failed attempt.
type failure struct {
	kind        failKind
	status      int    // HTTP status, 0 when there was no answer
	message     string // the server's message, or the connection's error
	window      int    // the context window the server stated
	hint        time.Duration
	hinted      bool // the server asked to wait hint
	unreachable bool // no connection could be made
	timedOut    bool // no answer within Timeout
}

// attempt makes one request.
func (c *Client) attempt(ctx context.Context, body openai.ChatCompletionRequest) (Response, *failure) {
	info := &attemptInfo{}
	actx, cancel := context.WithTimeout(withAttemptInfo(ctx, info), c.cfg.Timeout)
	resp, err := c.api.CreateChatCompletion(actx, body)
	timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
	cancel()
	ok := info.status >= 200 && info.status < 300
	if ok && info.readErr == nil {
		if e, found := bodyError(info.body); found {
			// An error answered with HTTP 200 (OpenRouter): its own code
			// is the status that decides.
			status := e.Code
			if status < 400 {
				status = http.StatusBadGateway
			}
			return Response{}, c.classify(status, e, info)
		}
		if err != nil {
			// go-openai could not decode a well-formed answer: read it
			// leniently.
			out, lerr := decodeLenient(info.body)
			if lerr != nil {
				var syntax *json.SyntaxError
				if errors.As(lerr, &syntax) {
					// Not JSON at all: a proxy's page, say; show its words.
					return Response{}, &failure{status: info.status, message: "the answer is not JSON: " + parseErrorBody(info.body).Message}
				}
				return Response{}, &failure{status: info.status, message: "the answer could not be read: " + lerr.Error()}
			}
			return out, nil
		}
	}
	if err == nil {
		if len(resp.Choices) == 0 {
			return Response{}, &failure{status: info.status, message: "the server answered with no choices"}
		}
		return convertResponse(resp), nil
	}
	if info.status >= 300 {
		return Response{}, c.classify(info.status, parseErrorBody(info.body), info)
	}
	f := &failure{status: info.status, message: transportMessage(err), unreachable: isUnreachable(err)}
	switch {
	case timedOut:
		f.message, f.timedOut = fmt.Sprintf("no answer within %s", c.cfg.Timeout), true
	case info.readErr != nil:
		f.message = "the answer was cut off: " + info.readErr.Error()
	}
	return Response{}, f
}

// classify decides what to do about an error answer.
func (c *Client) classify(status int, e errorBody, info *attemptInfo) *failure {
	f := &failure{status: status, message: e.Message}
	text := e.Message + " " + e.Detail
	switch {
	case status != http.StatusTooManyRequests && isContextLength(text):
		// A 429 saying "too many tokens" is a rate limit, not the window.
		f.kind, f.window = failContext, windowOf(e.Message)
		if f.window == 0 {
			f.window = e.Window
		}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		f.kind = failAuth
	case reasoningMissing(status, text):
		f.kind = failReasoningMissing
	case reasoningRefused(status, text):
		f.kind = failReasoningRefused
	case status == http.StatusRequestTimeout, status == http.StatusConflict, status == http.StatusTooEarly,
		status == http.StatusTooManyRequests, status >= 500:
		f.hint, f.hinted = retryHint(info.header, status, c.cfg.Now())
	default:
		f.kind = failFatal
	}
	return f
}

// bodyError finds an error object in a successful answer's body. Every
// answer passes here, so one without the key "error" is let through
// without parsing it a second time (go-openai has parsed it already).
func bodyError(body []byte) (errorBody, bool) {
	if !bytes.Contains(body, []byte(`"error"`)) {
		return errorBody{}, false
	}
	var top struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &top) != nil || len(top.Error) == 0 || string(top.Error) == "null" {
		return errorBody{}, false
	}
	e := parseErrorBody(body)
	return e, e.Message != "" || e.Code != 0
}

// transportMessage is what went wrong with a request that got no answer,
// without the request's URL (which may hold credentials).
func transportMessage(err error) string {
	var urlErr *url.Error
	switch {
	case errors.As(err, &urlErr):
		return urlErr.Err.Error()
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the answer was cut off"
	}
	return err.Error()
}

func (c *Client) request(req Request, sendReasoning bool) openai.ChatCompletionRequest {
	msgs := make([]openai.ChatCompletionMessage, 0, len(req.Messages)+1)
	if req.System != "" {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: req.System})
	}
	for _, m := range req.Messages {
		om := openai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
		if m.Role == RoleAssistant && sendReasoning && len(m.ToolCalls) > 0 {
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

func isUnreachable(err error) bool {
	var dnsErr *net.DNSError
	return errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &dnsErr) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH)
}

// attemptInfo receives what the transport saw of one attempt's response:
// go-openai's errors do not expose headers, and lose the body of errors
// not shaped like OpenAI's.
type attemptInfo struct {
	status  int
	header  http.Header
	body    []byte
	readErr error // the body could not be read whole
}

type attemptKey struct{}

func withAttemptInfo(ctx context.Context, info *attemptInfo) context.Context {
	return context.WithValue(ctx, attemptKey{}, info)
}

// maxBody bounds the answer read: the whole body is held in memory, so a
// server that sends without end must not take it all. An answer longer
// than that is read as cut off (and retried), not silently shortened.
const maxBody = 64 << 20

// statusRecorder keeps the status, headers and body of each response for
// the retry loop, and hands go-openai the same body.
type statusRecorder struct{ next http.RoundTripper }

func (s *statusRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(r)
	info, ok := r.Context().Value(attemptKey{}).(*attemptInfo)
	if !ok || resp == nil {
		return resp, err
	}
	info.status, info.header = resp.StatusCode, resp.Header
	info.body, info.readErr = io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if info.readErr == nil && len(info.body) > maxBody {
		info.body, info.readErr = info.body[:maxBody], fmt.Errorf("longer than %d MiB", maxBody>>20)
	}
	resp.Body.Close()
	var rest io.Reader = bytes.NewReader(info.body)
	if info.readErr != nil {
		rest = io.MultiReader(rest, errReader{info.readErr})
	}
	resp.Body = io.NopCloser(rest)
	return resp, err
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

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
