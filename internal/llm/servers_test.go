package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"creator/internal/fakellm"
	"creator/internal/llm"
)

// llama.cpp builds that send arguments as a JSON object: the object's
// compact JSON text is the arguments, and the response says so.
func TestObjectArguments(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(fakellm.ObjectArguments(script(fakellm.Reply{ToolCalls: []llm.ToolCall{
		fakellm.Call("c1", "read_file", `{"path": "notes/a.md", "limit": 20}`), fakellm.Call("c2", "list_files", `"input"`)}})))
	defer srv.Close()
	resp, err := client(srv.URL(), &sleeps{}).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 2 || resp.ToolCalls[0].Arguments != `{"path":"notes/a.md","limit":20}` || resp.ToolCalls[1].Arguments != "input" ||
		resp.ToolCalls[0].ID != "c1" || resp.ToolCalls[0].Name != "read_file" || resp.Attempts != 1 || len(srv.Requests()) != 1 {
		t.Fatalf("response = %+v", resp)
	}
	if len(resp.Notes) != 1 || !strings.Contains(resp.Notes[0], "the server sent the arguments of read_file as a JSON object") {
		t.Fatalf("notes = %q", resp.Notes)
	}
}

// Each server family's context-length error is ErrContextLength at once,
// with the window its message states and its own words.
func TestContextLengthErrors(t *testing.T) {
	t.Parallel()
	for _, family := range fakellm.ContextFamilies {
		t.Run(family, func(t *testing.T) {
			reply := fakellm.ContextError(family, 4096)
			srv := fakellm.New(script(reply))
			defer srv.Close()
			_, err := client(srv.URL(), &sleeps{}).Complete(context.Background(), req)
			var cle *llm.ContextLengthError
			if !errors.Is(err, llm.ErrContextLength) || !errors.As(err, &cle) {
				t.Fatalf("err = %v", err)
			}
			want := 4096
			if family == "Ollama" {
				want = 0
			}
			if cle.Limit != want || cle.Status != reply.Status || cle.Message == "" || strings.Contains(err.Error(), "HTTP 0") {
				t.Fatalf("error %+v (%v); want the window %d, HTTP %d", cle, err, want, reply.Status)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("%d requests, want 1", n)
			}
		})
	}
}

// Errors in any body shape show the real status and the server's words;
// those worth it are retried, the others are not.
func TestErrorShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		reply    fakellm.Reply
		want     string
		requests int // 0: retried to the end of the window
	}{
		{"error as a string (LM Studio)", fakellm.Reply{Status: 400, Body: `{"error":"Invalid 'tools': unknown type 'objekt'"}`}, "refused the request (HTTP 400: Invalid 'tools': unknown type 'objekt')", 1},
		{"vLLM object error", fakellm.Reply{Status: 404, Body: `{"object":"error","message":"The model ` + "`m`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}`}, "HTTP 404: The model `m` does not exist.", 1},
		{"FastAPI detail", fakellm.Reply{Status: 422, Body: `{"detail":[{"type":"missing","loc":["body","model"],"msg":"Field required","input":{}}]}`}, "HTTP 422: body.model: Field required (missing)", 1},
		{"plain text", fakellm.Reply{Status: 404, ContentType: "text/plain", Body: "404 page not found"}, "HTTP 404: 404 page not found", 1},
		{"TGI overloaded", fakellm.Reply{Status: 503, Body: `{"error":"Model is overloaded","error_type":"overloaded"}`}, "last: HTTP 503: Model is overloaded", 0},
		{"HTML gateway page", fakellm.GatewayPage(502, "Bad Gateway"), "last: HTTP 502: 502 Bad Gateway nginx/1.25.3", 0},
		{"Gemini 429 without Retry-After", fakellm.GeminiRateLimit(), "over 5m0s; last: HTTP 429: Resource has been exhausted (e.g. check quota).", 0},
		{"429 about tokens", fakellm.Reply{Status: 429, Body: `{"error":{"message":"Too many tokens, please wait before trying again."}}`}, "last: HTTP 429: Too many tokens", 0},
		{"OpenRouter 200 with a 502", fakellm.OpenRouterError(502, "Provider returned error"), "last: HTTP 502: Provider returned error (provider Example): upstream connect error", 0},
		{"OpenRouter 200 with a 400", fakellm.OpenRouterError(400, "Input required: specify \"prompt\" or \"messages\""), "refused the request (HTTP 400: Input required", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := fakellm.New(script(c.reply))
			defer srv.Close()
			clk := newClock()
			_, err := llm.NewClient(llm.ClientConfig{BaseURL: srv.URL(), Model: "m", Sleep: clk.sleep, Now: clk.now}).Complete(context.Background(), req)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "HTTP 0") || strings.Contains(err.Error(), "no choices") {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			n := len(srv.Requests())
			if c.requests > 0 && n != c.requests || c.requests == 0 && (n < 5 || clk.since() > 5*time.Minute) {
				t.Fatalf("%d requests over %v", n, clk.since())
			}
		})
	}
}

// A rate limit without a wait, an error answered with HTTP 200, a
// gateway page: retried until the server answers.
func TestRetriedUntilAnswered(t *testing.T) {
	t.Parallel()
	for name, fault := range map[string]fakellm.Reply{
		"Gemini 429":     fakellm.GeminiRateLimit(),
		"OpenRouter 200": fakellm.OpenRouterError(502, "Provider returned error"),
		"nginx 502":      fakellm.GatewayPage(502, "Bad Gateway"),
	} {
		t.Run(name, func(t *testing.T) {
			srv := fakellm.New(script(fault, fault, fault, ok))
			defer srv.Close()
			clk := newClock()
			c := llm.NewClient(llm.ClientConfig{BaseURL: srv.URL(), Model: "m", Sleep: clk.sleep, Now: clk.now})
			var told []llm.Retry
			c.OnRetry(func(r llm.Retry) { told = append(told, r) })
			resp, err := c.Complete(context.Background(), req)
			if err != nil || resp.Content != "fine" || resp.Attempts != 4 || len(clk.waits) != 3 {
				t.Fatalf("resp %+v, err %v, waits %v", resp, err, clk.waits)
			}
			// Each attempt tried again is told once, with the server's
			// words and when the next goes.
			if len(told) != 3 || told[0].Attempt != 1 || told[0].Message == "" || told[0].Wait != clk.waits[0] || told[0].Next.IsZero() {
				t.Errorf("retries told: %+v", told)
			}
		})
	}
}

// The wait a server asks for is waited, exactly; one longer than what is
// left of the window ends the retries at once.
func TestServerWaitHonoured(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		header map[string]string
		wait   time.Duration
	}{
		{"retry-after-ms", map[string]string{"retry-after-ms": "1500"}, 1500 * time.Millisecond},
		{"Retry-After", map[string]string{"Retry-After": "45"}, 45 * time.Second},
		{"x-ratelimit-reset-tokens", map[string]string{"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "20ms",
			"x-ratelimit-remaining-requests": "99", "x-ratelimit-reset-requests": "6m0s"}, 20 * time.Millisecond},
		{"x-ratelimit-reset-requests", map[string]string{"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1m10s"}, 70 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := fakellm.New(script(fakellm.OpenAIRateLimit(c.header), ok))
			defer srv.Close()
			clk := newClock()
			resp, err := llm.NewClient(llm.ClientConfig{BaseURL: srv.URL(), Model: "m", Sleep: clk.sleep, Now: clk.now}).Complete(context.Background(), req)
			if err != nil || resp.Attempts != 2 || len(clk.waits) != 1 || clk.waits[0] != c.wait {
				t.Fatalf("err %v, waits %v; want one of %v", err, clk.waits, c.wait)
			}
		})
	}
	t.Run("beyond the window", func(t *testing.T) {
		srv := fakellm.New(script(fakellm.OpenAIRateLimit(map[string]string{"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "6m0s"}), ok))
		defer srv.Close()
		clk := newClock()
		_, err := llm.NewClient(llm.ClientConfig{BaseURL: srv.URL(), Model: "m", Sleep: clk.sleep, Now: clk.now, RetryFor: 5 * time.Minute}).Complete(context.Background(), req)
		if err == nil || !strings.Contains(err.Error(), "the server asked to wait 6m0s, longer than the 5m0s left of the retry window") ||
			!strings.Contains(err.Error(), "HTTP 429: Rate limit reached") || len(clk.waits) != 0 || len(srv.Requests()) != 1 {
			t.Fatalf("err %v, waits %v", err, clk.waits)
		}
	})
}

// The window is --retry-for: a short one gives up sooner, and no request
// is made after it.
func TestRetryWindow(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(script(fakellm.Loading()))
	defer srv.Close()
	clk := newClock()
	var last time.Duration
	srv.OnRequest(func(fakellm.Request) { last = clk.since() })
	_, err := llm.NewClient(llm.ClientConfig{BaseURL: srv.URL(), Model: "m", Sleep: clk.sleep, Now: clk.now, RetryFor: 20 * time.Second}).Complete(context.Background(), req)
	if err == nil || !strings.Contains(err.Error(), "over 20s; last: HTTP 503: Loading model") || last > 20*time.Second || clk.since() > 20*time.Second {
		t.Fatalf("err %v; last request at %v, gave up at %v", err, last, clk.since())
	}
}

// A server that answered the job before and restarts — connections
// refused, then 503 while it loads the model — is waited for.
func TestServerRestart(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(fakellm.Restart(1, 2, script(ok)))
	defer srv.Close()
	clk := newClock()
	clk.onSleep = func(n int) {
		if n == 3 { // two attempts refused
			if err := srv.Up(); err != nil {
				t.Error(err)
			}
		}
	}
	c := llm.NewClient(llm.ClientConfig{BaseURL: srv.URL(), Model: "m", Sleep: clk.sleep, Now: clk.now})
	c.MarkAnswered()
	resp, err := c.Complete(context.Background(), req)
	if err != nil || resp.Content != "fine" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	// The crash, two refused, two loading, the answer.
	if resp.Attempts != 6 || len(srv.Requests()) != 4 {
		t.Fatalf("%d attempts, %d requests reached the server", resp.Attempts, len(srv.Requests()))
	}
}

// A server loading its model when the job starts answers 503: that is an
// answer, waited for like any other.
func TestLoadingAtStart(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(script(fakellm.Loading(), fakellm.Loading(), ok))
	defer srv.Close()
	clk := newClock()
	resp, err := llm.NewClient(llm.ClientConfig{BaseURL: srv.URL(), Model: "m", Sleep: clk.sleep, Now: clk.now}).Complete(context.Background(), req)
	if err != nil || resp.Attempts != 3 {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
}

// A 200 that is not JSON (a proxy's login page) is retried, and its words
// shown.
func TestAnswerNotJSON(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(script(fakellm.Reply{ContentType: "text/html", Body: "<html><title>Sign in</title><body>Sign in to the proxy</body></html>"}))
	defer srv.Close()
	clk := newClock()
	_, err := llm.NewClient(llm.ClientConfig{BaseURL: srv.URL(), Model: "m", Sleep: clk.sleep, Now: clk.now, RetryFor: time.Minute}).Complete(context.Background(), req)
	if err == nil || !strings.Contains(err.Error(), "last: HTTP 200: the answer is not JSON: Sign in Sign in to the proxy") {
		t.Fatalf("err = %v", err)
	}
}

// A server that answered before and stays down fails at the end of the
// window with a message naming it, not as a wrong address; one that never
// answered is a wrong address within seconds.
func TestServerDown(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(script(ok))
	url := srv.URL()
	srv.Close()
	clk := newClock()
	c := llm.NewClient(llm.ClientConfig{BaseURL: url, Model: "m", Sleep: clk.sleep, Now: clk.now, RetryFor: time.Minute})
	c.MarkAnswered()
	_, err := c.Complete(context.Background(), req)
	if err == nil || errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), "the model server at "+url+" did not answer over 1m0s") ||
		!strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("answered before: err = %v", err)
	}
	clk = newClock()
	_, err = llm.NewClient(llm.ClientConfig{BaseURL: url, Model: "m", Sleep: clk.sleep, Now: clk.now}).Complete(context.Background(), req)
	if !errors.Is(err, llm.ErrUnreachable) || len(clk.waits) != 2 || clk.since() > 2*time.Second {
		t.Fatalf("never answered: err = %v after waits %v", err, clk.waits)
	}
}

// reasoned is a conversation whose assistant message carries the
// server's reasoning.
var reasoned = llm.Request{System: "sys", Messages: []llm.Message{
	{Role: llm.RoleUser, Content: "go"},
	{Role: llm.RoleAssistant, Reasoning: "plan first", ToolCalls: []llm.ToolCall{{ID: "a", Name: "read_plan", Arguments: "{}"}}},
	{Role: llm.RoleTool, ToolCallID: "a", Content: "no plan"},
}}

// A strict proxy that refuses reasoning_content turns it off for the rest
// of the run; a server that wants it back turns it on.
func TestReasoningField(t *testing.T) {
	t.Parallel()
	t.Run("refused (LiteLLM)", func(t *testing.T) {
		srv := fakellm.New(fakellm.StrictReasoning(script(ok)))
		defer srv.Close()
		c := llm.NewClient(llm.ClientConfig{BaseURL: srv.URL(), Model: "m", SendReasoning: true, Sleep: (&sleeps{}).sleep})
		resp, err := c.Complete(context.Background(), reasoned)
		if err != nil || resp.Attempts != 2 || c.SendsReasoning() || len(resp.Notes) != 1 ||
			!strings.Contains(resp.Notes[0], "stopped sending reasoning_content back to the server for the rest of the run: it answered HTTP 422: body.messages.2.reasoning_content: Extra inputs are not permitted (extra_forbidden)") {
			t.Fatalf("resp %+v, err %v", resp, err)
		}
		if resp, err := c.Complete(context.Background(), reasoned); err != nil || resp.Attempts != 1 || len(resp.Notes) != 0 {
			t.Fatalf("the next call: resp %+v, err %v", resp, err)
		}
	})
	t.Run("missing (DeepSeek thinking mode)", func(t *testing.T) {
		srv := fakellm.New(fakellm.ThinkingMode(script(ok)))
		defer srv.Close()
		c := llm.NewClient(llm.ClientConfig{BaseURL: srv.URL(), Model: "m", Sleep: (&sleeps{}).sleep})
		resp, err := c.Complete(context.Background(), reasoned)
		if err != nil || resp.Attempts != 2 || !c.SendsReasoning() || len(resp.Notes) != 1 ||
			!strings.Contains(resp.Notes[0], "started sending reasoning_content") || srv.Requests()[1].Messages[1].Reasoning != "plan first" {
			t.Fatalf("resp %+v, err %v", resp, err)
		}
	})
	t.Run("refused both ways", func(t *testing.T) {
		srv := fakellm.New(fakellm.StrictReasoning(fakellm.ThinkingMode(script(ok))))
		defer srv.Close()
		c := llm.NewClient(llm.ClientConfig{BaseURL: srv.URL(), Model: "m", SendReasoning: true, Sleep: (&sleeps{}).sleep})
		_, err := c.Complete(context.Background(), reasoned)
		if err == nil || !strings.Contains(err.Error(), "refused the request (HTTP 400: Missing `reasoning_content`") || len(srv.Requests()) != 2 {
			t.Fatalf("err %v after %d requests", err, len(srv.Requests()))
		}
	})
}

// A server that echoes the key in its error: the client's error holds
// neither the key nor the bearer token, and a 401 or 403 stops at once.
func TestKeyRejectedAndRedacted(t *testing.T) {
	t.Parallel()
	for _, status := range []int{401, 403} {
		srv := fakellm.New(fakellm.KeyRejected(status))
		defer srv.Close()
		_, err := client(srv.URL(), &sleeps{}).Complete(context.Background(), req)
		if !errors.Is(err, llm.ErrAuth) || len(srv.Requests()) != 1 || !strings.Contains(err.Error(), "rejected the API key (HTTP") ||
			!strings.Contains(err.Error(), "Incorrect API key provided: [redacted]") || !strings.Contains(err.Error(), "Bearer [redacted]") {
			t.Fatalf("HTTP %d: err = %v after %d requests", status, err, len(srv.Requests()))
		}
		if strings.Contains(err.Error(), "sk-test-secret") {
			t.Fatalf("the key is in %v", err)
		}
	}
	// Also in errors that are retried to the end.
	srv := fakellm.New(script(fakellm.Reply{Status: 500, Body: `{"error":{"message":"upstream refused Bearer sk-other-token and sk-test-secret"}}`}))
	defer srv.Close()
	_, err := client(srv.URL(), &sleeps{}).Complete(context.Background(), req)
	if err == nil || strings.Contains(err.Error(), "sk-test-secret") || strings.Contains(err.Error(), "sk-other-token") {
		t.Fatalf("err = %v", err)
	}
}

// An answer with "error": null, or an empty error object, beside its
// choices is an answer.
func TestNullErrorInAnswer(t *testing.T) {
	t.Parallel()
	for _, e := range []string{"null", "{}"} {
		srv := fakellm.New(script(fakellm.Reply{Body: `{"id":"x","object":"chat.completion","model":"m","error":` + e +
			`,"choices":[{"index":0,"message":{"role":"assistant","content":"fine"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`}))
		resp, err := client(srv.URL(), &sleeps{}).Complete(context.Background(), req)
		srv.Close()
		if err != nil || resp.Content != "fine" || resp.Attempts != 1 {
			t.Fatalf("error %s: resp %+v, err %v", e, resp, err)
		}
	}
}
