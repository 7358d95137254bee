package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// decodeLenient reads a chat-completions answer that go-openai refuses
// although its meaning is plain: tool-call arguments sent as a JSON object
// instead of a string (some llama.cpp builds), content as a list of text
// parts. What it read how is in the response's Notes.
func decodeLenient(body []byte) (Response, error) {
	var r struct {
		Choices []struct {
			Message struct {
				Content          json.RawMessage `json:"content"`
				ReasoningContent json.RawMessage `json:"reasoning_content"`
				ToolCalls        []struct {
					ID       json.RawMessage `json:"id"`
					Function struct {
						Name      json.RawMessage `json:"name"`
						Arguments json.RawMessage `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason json.RawMessage `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens        int `json:"prompt_tokens"`
			CompletionTokens    int `json:"completion_tokens"`
			PromptTokensDetails *struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return Response{}, err
	}
	if len(r.Choices) == 0 {
		return Response{}, errors.New("the server answered with no choices")
	}
	ch := r.Choices[0]
	var out Response
	var notes []string
	var err error
	if out.Content, err = textOf(ch.Message.Content, "content", &notes); err != nil {
		return Response{}, err
	}
	if out.Reasoning, err = textOf(ch.Message.ReasoningContent, "reasoning_content", &notes); err != nil {
		return Response{}, err
	}
	if out.FinishReason, err = textOf(ch.FinishReason, "finish_reason", &notes); err != nil {
		return Response{}, err
	}
	out.Usage = Usage{PromptTokens: r.Usage.PromptTokens, CompletionTokens: r.Usage.CompletionTokens}
	if d := r.Usage.PromptTokensDetails; d != nil {
		out.Usage.CachedTokens = d.CachedTokens
	}
	for _, tc := range ch.Message.ToolCalls {
		var call ToolCall
		if call.ID, err = textOf(tc.ID, "id", &notes); err != nil {
			return Response{}, err
		}
		if call.Name, err = textOf(tc.Function.Name, "name", &notes); err != nil {
			return Response{}, err
		}
		call.Arguments, err = argumentsOf(tc.Function.Arguments)
		if err != nil {
			return Response{}, err
		}
		if a := bytes.TrimSpace(tc.Function.Arguments); len(a) > 0 && a[0] != '"' && string(a) != "null" {
			notes = append(notes, fmt.Sprintf("the server sent the arguments of %s as a JSON %s, not a string; read as its JSON text", call.Name, jsonKind(a)))
		}
		out.ToolCalls = append(out.ToolCalls, call)
	}
	out.Notes = notes
	return out, nil
}

// textOf reads a string field that may be null, or a list of text parts
// ([{"type":"text","text":…}]).
func textOf(raw json.RawMessage, field string, notes *[]string) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		*notes = append(*notes, fmt.Sprintf("the server sent %s as a list of %d parts; read as their text", field, len(parts)))
		return b.String(), nil
	}
	return "", fmt.Errorf("%s is a JSON %s, not a string", field, jsonKind(raw))
}

// argumentsOf reads tool-call arguments: a string as it is, an object or
// list as its compact JSON text.
func argumentsOf(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "", nil
	case raw[0] == '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return "", err
	}
	return b.String(), nil
}

func jsonKind(raw []byte) string {
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "list"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	}
	return "number"
}
