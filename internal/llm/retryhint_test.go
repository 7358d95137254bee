package llm

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRetryHint(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		status int
		header map[string]string
		want   time.Duration
		hinted bool
	}{
		{"none", 429, nil, 0, false},
		{"Retry-After seconds", 503, map[string]string{"Retry-After": "2"}, 2 * time.Second, true},
		{"Retry-After zero", 429, map[string]string{"Retry-After": "0"}, 0, true},
		{"Retry-After date", 503, map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second, true},
		{"Retry-After date past", 503, map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0, true},
		{"Retry-After nonsense", 429, map[string]string{"Retry-After": "soon"}, 0, false},
		{"retry-after-ms first", 429, map[string]string{"retry-after-ms": "1500", "Retry-After": "2"}, 1500 * time.Millisecond, true},
		{"reset of the exhausted requests", 429, map[string]string{"x-ratelimit-reset-requests": "6m0s", "x-ratelimit-remaining-requests": "0",
			"x-ratelimit-reset-tokens": "20ms", "x-ratelimit-remaining-tokens": "5000"}, 6 * time.Minute, true},
		{"reset of the exhausted tokens", 429, map[string]string{"x-ratelimit-reset-requests": "6m0s", "x-ratelimit-remaining-requests": "12",
			"x-ratelimit-reset-tokens": "20ms", "x-ratelimit-remaining-tokens": "0"}, 20 * time.Millisecond, true},
		{"the longest reset when none is exhausted", 429, map[string]string{"x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "1m30.5s"}, 90500 * time.Millisecond, true},
		{"reset in plain seconds", 429, map[string]string{"x-ratelimit-reset": "0.5"}, 500 * time.Millisecond, true},
		{"reset as Unix seconds", 429, map[string]string{"x-ratelimit-reset": "1795608060"}, time.Unix(1795608060, 0).Sub(now), true},
		{"reset as Unix milliseconds", 429, map[string]string{"x-ratelimit-reset": "1795608030000"}, time.UnixMilli(1795608030000).Sub(now), true},
		{"reset ignored on a 503", 503, map[string]string{"x-ratelimit-reset": "7"}, 0, false},
		{"reset nonsense", 429, map[string]string{"x-ratelimit-reset-requests": "later"}, 0, false},
	}
	for _, c := range cases {
		h := http.Header{}
		for k, v := range c.header {
			h.Set(k, v)
		}
		got, hinted := retryHint(h, c.status, now)
		if got != c.want || hinted != c.hinted {
			t.Errorf("%s: %v, %v; want %v, %v", c.name, got, hinted, c.want, c.hinted)
		}
	}
}

// Every shape of error body gives the server's own words.
func TestParseErrorBody(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, body, want string }{
		{"OpenAI", `{"error":{"message":"model 'x' not found","type":"invalid_request_error","code":"model_not_found"}}`, "model 'x' not found"},
		{"plain string (TGI, LM Studio)", `{"error":"Model is overloaded","error_type":"overloaded"}`, "Model is overloaded"},
		{"vLLM", `{"object":"error","message":"The model does not exist.","type":"NotFoundError","param":null,"code":404}`, "The model does not exist."},
		{"FastAPI string", `{"detail":"Not Found"}`, "Not Found"},
		{"FastAPI list", `{"detail":[{"type":"missing","loc":["body","model"],"msg":"Field required","input":{}}]}`, "body.model: Field required (missing)"},
		{"a list (Gemini)", `[{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}]`, "Resource has been exhausted (e.g. check quota)."},
		{"message list", `{"error":{"message":["a","b"]}}`, "a, b"},
		{"OpenRouter", `{"error":{"code":502,"message":"Provider returned error","metadata":{"provider_name":"X","raw":"boom"}}}`, "Provider returned error (provider X): boom"},
		{"text", "404 page not found\n", "404 page not found"},
		{"HTML", "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>", "502 Bad Gateway nginx"},
		{"other JSON", `{"status":"down"}`, `{"status":"down"}`},
		{"empty", "", ""},
		{"long, over lines", strings.Repeat("ab\n", 300), strings.TrimSpace(strings.Repeat("ab ", 167)) + "…"},
	}
	for _, c := range cases {
		if got := parseErrorBody([]byte(c.body)).Message; got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

type endlessTransport struct{}

func (endlessTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(endless{}), Request: r}, nil
}

// An answer longer than maxBody is read as cut off, not shortened in
// silence.
func TestBodyBound(t *testing.T) {
	t.Parallel()
	info := &attemptInfo{}
	r, _ := http.NewRequestWithContext(withAttemptInfo(context.Background(), info), "GET", "http://x/", nil)
	if _, err := (&statusRecorder{next: endlessTransport{}}).RoundTrip(r); err != nil {
		t.Fatal(err)
	}
	if len(info.body) != maxBody || info.readErr == nil || !strings.Contains(info.readErr.Error(), "longer than 64 MiB") {
		t.Fatalf("%d bytes read, error %v", len(info.body), info.readErr)
	}
}
