package fakellm

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// What real servers answer, family by family: each a Reply or a Handler
// built from another, in the shape the server sends, for the client's
// tests and the job-level ones. README (Models) lists what creator does
// about each.

// ContextFamilies are the servers ContextError imitates.
var ContextFamilies = []string{"OpenAI", "vLLM", "SGLang", "TGI", "LM Studio", "llama.cpp", "Ollama"}

// ContextError is the answer of a server of the family to a prompt longer
// than its window of limit tokens; Ollama states no window.
func ContextError(family string, limit int) Reply {
	over := limit + 904
	switch family {
	case "OpenAI":
		return Reply{Status: 400, Body: jsonOf(map[string]any{"error": map[string]any{
			"message": fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", limit, over),
			"type":    "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}})}
	case "vLLM":
		return Reply{Status: 400, Body: jsonOf(map[string]any{"object": "error",
			"message": fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, 0 in the completion). Please reduce the length of the messages or completion.", limit, over, over),
			"type":    "BadRequestError", "param": nil, "code": 400})}
	case "SGLang":
		return Reply{Status: 400, Body: jsonOf(map[string]any{"object": "error",
			"message": fmt.Sprintf("The input (%d tokens) is longer than the model's context length (%d tokens).", over, limit),
			"type":    "BadRequestError", "param": nil, "code": 400})}
	case "TGI":
		return Reply{Status: 422, Body: jsonOf(map[string]any{
			"error":      fmt.Sprintf("Input validation error: `inputs` tokens + `max_new_tokens` must be <= %d. Given: %d `inputs` tokens and 512 `max_new_tokens`", limit, over),
			"error_type": "validation"})}
	case "LM Studio":
		return Reply{Status: 400, Body: jsonOf(map[string]any{
			"error": fmt.Sprintf("Trying to keep the first %d tokens when context the overflows. However, the model is loaded with context length of only %d tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input", over, limit)})}
	case "llama.cpp":
		return Reply{Status: 400, Body: jsonOf(map[string]any{"error": map[string]any{"code": 400,
			"message": "the request exceeds the available context size, try increasing it", "type": "exceed_context_size_error",
			"n_prompt_tokens": over, "n_ctx": limit}})}
	case "Ollama":
		return Reply{Status: 400, Body: `{"error":"prompt is too long for the model's context window"}`}
	}
	panic("fakellm: unknown server family " + family)
}

// ObjectArguments is a llama.cpp build that sends tool-call arguments as
// JSON objects, not strings.
func ObjectArguments(next Handler) Handler {
	return func(r Request) Reply {
		reply := next(r)
		reply.RawArgs = true
		return reply
	}
}

// OpenRouterError is OpenRouter's answer when the provider behind it
// fails: HTTP 200 with an error object whose code is the real status, and
// an empty choices list.
func OpenRouterError(code int, message string) Reply {
	return Reply{Body: jsonOf(map[string]any{"id": "gen-1", "object": "chat.completion", "choices": []any{},
		"error": map[string]any{"code": code, "message": message,
			"metadata": map[string]any{"provider_name": "Example", "raw": "upstream connect error"}}})}
}

// GeminiRateLimit is Gemini's 429 on its OpenAI-compatible endpoint: a list
// holding the error, and no Retry-After.
func GeminiRateLimit() Reply {
	return Reply{Status: 429, Body: `[{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}]`}
}

// OpenAIRateLimit is OpenAI's 429 with the wait in its headers: header is
// retry-after-ms, or the x-ratelimit ones.
func OpenAIRateLimit(header map[string]string) Reply {
	return Reply{Status: 429, Header: header, Body: `{"error":{"message":"Rate limit reached for gpt-4.1 in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 2s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`}
}

// StrictReasoning is a LiteLLM-style proxy that validates requests
// strictly: a message carrying reasoning_content is refused with FastAPI's
// 422 detail list; other requests go to next.
func StrictReasoning(next Handler) Handler {
	return func(r Request) Reply {
		for i, m := range r.Messages {
			if m.Reasoning != "" {
				return Reply{Status: 422, Body: jsonOf(map[string]any{"detail": []any{map[string]any{
					"type": "extra_forbidden", "loc": []any{"body", "messages", i + 1, "reasoning_content"},
					"msg": "Extra inputs are not permitted", "input": m.Reasoning}}})}
			}
		}
		return next(r)
	}
}

// ThinkingMode is DeepSeek in thinking mode: next's answers carry
// reasoning, and a request whose assistant message with tool calls lacks
// it is refused with HTTP 400.
func ThinkingMode(next Handler) Handler {
	return func(r Request) Reply {
		for i, m := range r.Messages {
			if m.Role == "assistant" && len(m.ToolCalls) > 0 && m.Reasoning == "" {
				return Reply{Status: 400, Body: jsonOf(map[string]any{"error": map[string]any{
					"message": fmt.Sprintf("Missing `reasoning_content` field in the assistant message at message index %d. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls", i+1),
					"type":    "invalid_request_error", "param": nil, "code": "invalid_request_error"}})}
			}
		}
		reply := next(r)
		if reply.Status == 0 && reply.Reasoning == "" {
			reply.Reasoning = "Thinking about the next step."
		}
		return reply
	}
}

// KeyRejected is a server that refuses the key it got and echoes it back
// in its message, as some do.
func KeyRejected(status int) Handler {
	return func(r Request) Reply {
		key := strings.TrimPrefix(r.Authorization, "Bearer ")
		return Reply{Status: status, Body: jsonOf(map[string]any{"error": map[string]any{
			"message": "Incorrect API key provided: " + key + ". You can find your API key at https://platform.openai.com/account/api-keys. (request header: " + r.Authorization + ")",
			"type":    "invalid_request_error", "param": nil, "code": "invalid_api_key"}})}
	}
}

// Loading is llama.cpp's answer while it loads the model.
func Loading() Reply {
	return Reply{Status: 503, Body: `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`}
}

// GatewayPage is a reverse proxy's HTML error page (nginx).
func GatewayPage(status int, title string) Reply {
	return Reply{Status: status, ContentType: "text/html", Body: fmt.Sprintf(
		"<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n<center><h1>%d %s</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n", status, title, status, title)}
}

// Restart is a server that crashes on its crashAt-th request: it stops
// listening, so connections are refused until the test calls Up; then it
// answers Loading to the next loading requests while the model loads, and
// next after that.
func Restart(crashAt, loading int, next Handler) Handler {
	var mu sync.Mutex
	crashed, loaded := false, 0
	return func(r Request) Reply {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case !crashed && r.N >= crashAt:
			crashed = true
			return Reply{Crash: true}
		case crashed && loaded < loading:
			loaded++
			return Loading()
		}
		return next(r)
	}
}

func jsonOf(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}
