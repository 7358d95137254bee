package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"creator/internal/humanize"
)

// ErrAuth means the server rejected the API key (HTTP 401 or 403).
// Retrying will not help; another key will.
var ErrAuth = errors.New("the server rejected the API key")

// ContextLengthError is the server saying that the prompt is longer than
// the model's context window. It is ErrContextLength for errors.Is.
type ContextLengthError struct {
	// Limit is the window in tokens when the server's message says it
	// (OpenAI, vLLM, SGLang, TGI, LM Studio, llama.cpp); 0 when not.
	Limit int
	// Status is the HTTP status of the answer; Message the server's own
	// words.
	Status  int
	Message string
}

func (e *ContextLengthError) Error() string {
	s := ErrContextLength.Error()
	if e.Limit > 0 {
		s += fmt.Sprintf(" of %d tokens", e.Limit)
	}
	return s + " (" + describe(e.Status, e.Message) + ")"
}

// Is makes a ContextLengthError match ErrContextLength.
func (e *ContextLengthError) Is(target error) bool { return target == ErrContextLength }

// ServerError is a call the server failed for good: it refused the
// request, rejected the key, could not be reached, or kept failing for the
// whole retry window.
type ServerError struct {
	// URL is the server, without credentials or query (SafeURL).
	URL string
	// Status is the HTTP status of the last answer; 0 when there was none
	// (no connection, a timeout, a broken connection).
	Status int
	// Message is the server's own message, or what went wrong with the
	// connection.
	Message string
	// Attempts is how many requests were made; Retried how long they went
	// on after the first failure.
	Attempts int
	Retried  time.Duration
	// Kind is ErrAuth, ErrUnreachable, or nil for any other failure.
	Kind error
	// Refused is true for an answer that retrying cannot change (a bad
	// request, an unknown model).
	Refused bool
	// TimedOut is true when the last attempt got no answer in time.
	TimedOut bool
	// Why says why the retries ended early, if they did.
	Why string
}

func (e *ServerError) Error() string {
	last := describe(e.Status, e.Message)
	switch {
	case e.Kind == ErrAuth:
		return fmt.Sprintf("the server at %s rejected the API key (%s)", e.URL, last)
	case e.Kind == ErrUnreachable:
		return fmt.Sprintf("the model server at %s cannot be reached (%s)", e.URL, e.Message)
	case e.Refused:
		return fmt.Sprintf("the model server at %s refused the request (%s)", e.URL, last)
	}
	times := "once"
	if e.Attempts > 1 {
		times = fmt.Sprintf("%d times", e.Attempts)
	}
	s := fmt.Sprintf("the model server at %s failed %s over %s", e.URL, times, e.Retried.Round(time.Second))
	if e.Status == 0 {
		s = fmt.Sprintf("the model server at %s did not answer over %s (%d attempts)", e.URL, e.Retried.Round(time.Second), e.Attempts)
	}
	if e.Why != "" {
		s += "; " + e.Why
	}
	return s + "; last: " + last
}

// Unwrap gives Kind.
func (e *ServerError) Unwrap() error { return e.Kind }

func describe(status int, msg string) string {
	switch {
	case status == 0:
		return msg
	case msg == "":
		return fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	}
	return fmt.Sprintf("HTTP %d: %s", status, msg)
}

// errorBody is what an error answer says, read from its body whatever its
// shape: OpenAI's {"error":{"message","code","type"}}, a plain string
// under "error" (TGI, LM Studio), vLLM's {"object":"error","message"},
// FastAPI's and LiteLLM's {"detail": string or [{loc,msg,type}]}, a list
// of those (Gemini), or text and HTML.
type errorBody struct {
	Message string
	// Code is a numeric code in the body (OpenRouter's error.code carries
	// the real status of an error answered with HTTP 200); 0 when none.
	Code int
	// Detail is every other word of the error that helps to recognise it
	// (code and type strings), not shown.
	Detail string
	// Window is llama.cpp's n_ctx, when the body gives it.
	Window int
}

// maxMessage bounds a server message in an error.
const maxMessage = 500

func parseErrorBody(body []byte) errorBody {
	b := bytes.TrimSpace(body)
	if len(b) == 0 {
		return errorBody{}
	}
	var v any
	if (b[0] == '{' || b[0] == '[' || b[0] == '"') && json.Unmarshal(b, &v) == nil {
		if e, ok := fromJSON(v); ok {
			e.Message = clipMessage(e.Message)
			return e
		}
		return errorBody{Message: clipMessage(string(b))}
	}
	if looksHTML(b) {
		return errorBody{Message: clipMessage(htmlText(string(b)))}
	}
	return errorBody{Message: clipMessage(string(b))}
}

// fromJSON reads an error from a decoded JSON body.
func fromJSON(v any) (errorBody, bool) {
	switch x := v.(type) {
	case string:
		return errorBody{Message: x}, x != ""
	case []any:
		if len(x) > 0 {
			return fromJSON(x[0])
		}
		return errorBody{}, false
	case map[string]any:
		if e, ok := x["error"]; ok && e != nil {
			if s, ok := e.(string); ok {
				// TGI adds the kind of error beside it.
				return errorBody{Message: s, Detail: str(x["error_type"])}, true
			}
			if m, ok := e.(map[string]any); ok {
				return fromObject(m), true
			}
		}
		if d, ok := x["detail"]; ok && d != nil {
			return errorBody{Message: detailText(d)}, true
		}
		if _, ok := x["message"]; ok {
			return fromObject(x), true
		}
	}
	return errorBody{}, false
}

// fromObject reads an error object: message, code, type, and what
// llama.cpp and OpenRouter add.
func fromObject(m map[string]any) errorBody {
	var e errorBody
	switch msg := m["message"].(type) {
	case string:
		e.Message = msg
	case []any:
		var parts []string
		for _, p := range msg {
			parts = append(parts, str(p))
		}
		e.Message = strings.Join(parts, ", ")
	case nil:
	default:
		data, _ := json.Marshal(msg)
		e.Message = string(data)
	}
	switch c := m["code"].(type) {
	case float64:
		e.Code = int(c)
	case string:
		if n, err := strconv.Atoi(c); err == nil {
			e.Code = n
		} else {
			e.Detail = c
		}
	}
	if t := str(m["type"]); t != "" {
		e.Detail += " " + t
	}
	if n, ok := m["n_ctx"].(float64); ok {
		e.Window = int(n)
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		// OpenRouter: which provider failed, and its own words.
		if p := str(md["provider_name"]); p != "" {
			e.Message += " (provider " + p + ")"
		}
		if raw := str(md["raw"]); raw != "" {
			e.Message += ": " + raw
		}
	}
	return e
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	data, _ := json.Marshal(v)
	return string(data)
}

// detailText reads FastAPI's detail: a string, or a list of validation
// errors {loc, msg, type}.
func detailText(d any) string {
	list, ok := d.([]any)
	if !ok {
		return str(d)
	}
	var parts []string
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			parts = append(parts, str(item))
			continue
		}
		var loc []string
		if l, ok := m["loc"].([]any); ok {
			for _, p := range l {
				loc = append(loc, str(p))
			}
		}
		s := str(m["msg"])
		if len(loc) > 0 {
			s = strings.Join(loc, ".") + ": " + s
		}
		if t := str(m["type"]); t != "" {
			s += " (" + t + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func looksHTML(b []byte) bool {
	head := strings.ToLower(string(b[:min(len(b), 200)]))
	return strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html") || strings.Contains(head, "<body") || strings.Contains(head, "<title")
}

var (
	htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	htmlDrop  = regexp.MustCompile(`(?is)<(script|style|head)[^>]*>.*?</(script|style|head)>`)
	htmlTag   = regexp.MustCompile(`(?s)<[^>]*>`)
)

// htmlText is the words of an HTML error page: its title and text.
func htmlText(s string) string {
	title := ""
	if m := htmlTitle.FindStringSubmatch(s); m != nil {
		title = strings.TrimSpace(html.UnescapeString(m[1]))
	}
	text := html.UnescapeString(htmlTag.ReplaceAllString(htmlDrop.ReplaceAllString(s, " "), " "))
	text = strings.Join(strings.Fields(text), " ")
	if title != "" && !strings.HasPrefix(text, title) {
		text = title + ": " + text
	}
	return text
}

// clipMessage is s on one line, cut after maxMessage characters.
func clipMessage(s string) string { return humanize.Clip(humanize.OneLine(s), maxMessage+1) }

// isContextLength recognises the ways servers say that the prompt is too
// long: OpenAI, vLLM, SGLang, TGI, LM Studio, llama.cpp, Ollama.
func isContextLength(text string) bool {
	t := strings.ToLower(text)
	for _, s := range []string{
		"context_length_exceeded", "maximum context length", "context length exceeded",
		"exceeds the available context size", "exceed_context_size", "context window",
		"prompt is too long", "too many tokens", "input is too long", "reduce the length of the messages",
		"longer than the model's context length", "longer than the maximum model length", "maximum model length",
		"context length of only", "`max_new_tokens` must be <=", "max_new_tokens must be <=",
		"must have less than", "exceeds the context length", "n_ctx",
	} {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// windowPatterns find the window in a context-length message.
var windowPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)maximum context length is (\d[\d,]*)`),                // OpenAI, vLLM
	regexp.MustCompile(`(?i)maximum model length (?:is |of )?(\d[\d,]*)`),         // vLLM, older
	regexp.MustCompile(`(?i)model's context length \((\d[\d,]*) tokens\)`),        // SGLang
	regexp.MustCompile(`(?i)max_new_tokens\W* must be <= (\d[\d,]*)`),             // TGI
	regexp.MustCompile(`(?i)must have less than (\d[\d,]*) tokens`),               // TGI, inputs alone
	regexp.MustCompile(`(?i)context length of only (\d[\d,]*)`),                   // LM Studio
	regexp.MustCompile(`(?i)n_ctx\W{0,4}(\d[\d,]*)`),                              // llama.cpp
	regexp.MustCompile(`(?i)context (?:window|length|size) (?:is|of) (\d[\d,]*)`), // others
	regexp.MustCompile(`(?i)> (\d[\d,]*) maximum`),                                // "… 210000 tokens > 200000 maximum"
}

// windowOf is the context window a context-length message states; 0 when
// it states none.
func windowOf(msg string) int {
	for _, p := range windowPatterns {
		if m := p.FindStringSubmatch(msg); m != nil {
			if n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", "")); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// reasoningRefused recognises a strict server refusing the reasoning_content
// field the client sent back (LiteLLM: "Extra inputs are not permitted").
func reasoningRefused(status int, text string) bool {
	t := strings.ToLower(text)
	return (status == http.StatusBadRequest || status == http.StatusUnprocessableEntity) && strings.Contains(t, "reasoning") &&
		containsAny(t, "not permitted", "extra", "unknown", "unrecognized", "unrecognised", "not allowed", "unexpected", "additional propert", "not supported")
}

// reasoningMissing recognises a server that wants the reasoning_content of
// assistant messages back (DeepSeek in thinking mode).
func reasoningMissing(status int, text string) bool {
	t := strings.ToLower(text)
	return (status == http.StatusBadRequest || status == http.StatusUnprocessableEntity) && strings.Contains(t, "reasoning_content") &&
		containsAny(t, "missing", "required", "must be passed", "must be provided")
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
