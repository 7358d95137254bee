package fakellm

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"sync"

	"creator/internal/llm"
)

// The misbehaviours below rewrite the replies of a working model (the
// built-in one, in the tests) the way real models behind llama.cpp, vLLM
// and OpenAI misbehave. The product must absorb each one: a job run
// through any of them completes with the output of a clean run.

// Scenario is one misbehaviour, by name, as a wrapper around a handler.
// Trace is what a job's transcript shows once the misbehaviour has
// happened and been handled, so a test can tell that it did happen.
type Scenario struct {
	Name  string
	Wrap  func(next Handler) Handler
	Trace string
}

// Scenarios lists every misbehaviour a model may show that the product
// handles without changing its output. Each is deterministic.
func Scenarios() []Scenario {
	out := []Scenario{
		{"argument variants", func(next Handler) Handler { return argumentVariants(1, next) }, "ignored unknown field"},
		{"tool name variants", func(next Handler) Handler { return nameVariants(next) }, "read tool name"},
		{"cut off at the output limit", func(next Handler) Handler { return StrictHistory(cutOff(0.3, 2, next)) }, "cut off at the output limit"},
		// A clean run may repeat a read too; the repeated answers' call ids
		// are repeats' own.
		{"repeated calls", func(next Handler) Handler { return repeats(0.3, 3, next) }, `"id":"rep`},
	}
	for _, f := range textForms {
		out = append(out, Scenario{"tool calls as text: " + f, func(next Handler) Handler { return textCalls(f, next) }, "read from the answer's text"})
	}
	out = append(out,
		Scenario{"call ids numbered afresh in every answer (Kimi K2)", func(next Handler) Handler { return KimiIDs(next) }, "(earlier in the job)"},
		// The calls creator reads from text have no ids: the ones it makes
		// up must pass a server that checks their form.
		Scenario{"tool calls as text behind a server that checks ids (Mistral)", func(next Handler) Handler { return MistralIDs(textCalls("[TOOL_CALLS]", next)) }, "read from the answer's text"},
		// A sub-agent whose answer saved one requirement is asked for the
		// chunk's others instead of ending, and is not cut off by its step
		// limit on a chunk of many requirements (the sample's first has 16).
		Scenario{"one tool call per answer", func(next Handler) Handler { return OneCallPerAnswer(next) }, `"id":"single`},
	)
	return out
}

// KimiIDs numbers the tool calls of every answer afresh, as Kimi K2 does:
// functions.<name>:<index>, the index counted from 0 within the answer, so
// the same ids come back in answer after answer.
func KimiIDs(next Handler) Handler {
	return func(r Request) Reply {
		reply := next(r)
		for i := range reply.ToolCalls {
			reply.ToolCalls[i].ID = fmt.Sprintf("functions.%s:%d", reply.ToolCalls[i].Name, i)
		}
		return reply
	}
}

// OneCallPerAnswer makes one tool call per answer, as models do whose
// chat template or training allows no parallel calls: of an answer of
// several calls it sends the first, and the next request of the same
// conversation gets the next call instead of a new answer; once the calls
// of an answer are all sent, next answers again, seeing the calls one per
// answer as they were made. A conversation is told apart by the id of
// the call it made last, so conversations going on at once (sub-agents)
// each get their own calls, and one that was left (a sub-agent that
// ended, a job killed) leaves its calls unsent.
func OneCallPerAnswer(next Handler) Handler {
	var mu sync.Mutex
	pending := map[string][]llm.ToolCall{} // calls still to send, by the id of the call sent last
	return func(r Request) Reply {
		last := ""
		for i := len(r.Messages) - 1; i >= 0; i-- {
			if m := r.Messages[i]; m.Role == llm.RoleAssistant {
				if len(m.ToolCalls) == 1 {
					last = m.ToolCalls[0].ID
				}
				break
			}
		}
		mu.Lock()
		calls, ok := pending[last]
		delete(pending, last)
		mu.Unlock()
		reply := Reply{PromptTokens: len(r.Raw) / 4, CompletionTokens: 20}
		if !ok {
			reply = next(r)
			if len(reply.ToolCalls) < 2 {
				return reply
			}
			calls = slices.Clone(reply.ToolCalls)
		}
		call := calls[0]
		call.ID = fmt.Sprintf("single%d", r.N)
		reply.ToolCalls = []llm.ToolCall{call}
		if len(calls) > 1 {
			mu.Lock()
			pending[call.ID] = calls[1:]
			mu.Unlock()
		}
		return reply
	}
}

// mistralID is the one form of tool-call id Mistral's API takes.
var mistralID = regexp.MustCompile(`^[a-zA-Z0-9]{9}$`)

// MistralIDs checks every tool-call id of a request's history as Mistral's
// API does: one that is not nine letters and digits fails the request
// with HTTP 400, every time it is sent.
func MistralIDs(next Handler) Handler {
	return func(r Request) Reply {
		for _, m := range r.Messages {
			ids := []string{m.ToolCallID}
			if m.Role != llm.RoleTool {
				ids = nil
			}
			for _, tc := range m.ToolCalls {
				ids = append(ids, tc.ID)
			}
			for _, id := range ids {
				if !mistralID.MatchString(id) {
					msg := fmt.Sprintf("Tool call id was %s but must be a-z, A-Z, 0-9, with a length of 9.", id)
					body, _ := json.Marshal(map[string]any{"object": "error", "message": msg, "type": "invalid_request_message_error", "param": nil, "code": nil})
					return Reply{Status: 400, Body: string(body)}
				}
			}
		}
		return next(r)
	}
}

// draw is a deterministic choice per request: the same request number and
// seed always decide alike.
func draw(seed uint64, n int, rate float64) bool {
	if rate >= 1 {
		return true
	}
	r := rand.New(rand.NewPCG(seed, uint64(n)*0x9e3779b97f4a7c15))
	return r.Float64() < rate
}

// argumentVariants sends every tool call's arguments in forms that mean
// the same thing unambiguously: enumeration values in other letter cases,
// numbers as strings, a null for an optional field, the document as a path
// and the chunk as a file name, a comma-separated string for a list of
// names, one object for a list of one, and fields no tool has.
func argumentVariants(seed uint64, next Handler) Handler {
	return func(r Request) Reply {
		reply := next(r)
		for i := range reply.ToolCalls {
			var args map[string]any
			if json.Unmarshal([]byte(reply.ToolCalls[i].Arguments), &args) != nil {
				continue
			}
			vary(args, reply.ToolCalls[i].Name, seed+uint64(r.N*31+i))
			data, _ := json.Marshal(args)
			reply.ToolCalls[i].Arguments = string(data)
		}
		return reply
	}
}

func vary(args map[string]any, tool string, seed uint64) {
	rnd := rand.New(rand.NewPCG(seed, 7))
	args["reason"] = "the next step of the plan" // a field no tool has
	for k, v := range args {
		if f, ok := v.(float64); ok {
			args[k] = fmt.Sprint(f) // "12" for 12
		}
	}
	if tool != "save_requirement" {
		return
	}
	for _, k := range []string{"type", "category", "priority"} {
		if s, ok := args[k].(string); ok {
			switch rnd.IntN(3) {
			case 0:
				s = strings.ToUpper(s)
			case 1:
				s = strings.ToUpper(s[:1]) + s[1:]
			default:
				s = " " + s + " "
			}
			args[k] = strings.ReplaceAll(s, "_", "-")
		}
	}
	if fw, ok := args["frameworks"].([]any); ok && len(fw) > 0 {
		var names []string
		for _, f := range fw {
			names = append(names, fmt.Sprint(f))
		}
		args["frameworks"] = strings.Join(names, ", ")
	}
	cits, _ := args["citations"].([]any)
	for _, c := range cits {
		cit, ok := c.(map[string]any)
		if !ok {
			continue
		}
		if d, ok := cit["document"].(string); ok {
			cit["document"] = "input/" + d
		}
		if ch, ok := cit["chunk"].(string); ok {
			cit["chunk"] = [...]string{ch + ".md", "chunks/" + ch + ".md", strings.TrimPrefix(ch, "chunk_")}[rnd.IntN(3)]
		}
		cit["page"] = nil
	}
	if len(cits) == 1 {
		args["citations"] = cits[0]
	}
}

// nameVariants calls the tools by other spellings of their names: with a
// namespace, in camel case, with hyphens.
func nameVariants(next Handler) Handler {
	return func(r Request) Reply {
		reply := next(r)
		for i := range reply.ToolCalls {
			name := reply.ToolCalls[i].Name
			switch (r.N + i) % 3 {
			case 0:
				name = "functions." + name
			case 1:
				var b strings.Builder
				for _, part := range strings.Split(name, "_") {
					b.WriteString(strings.ToUpper(part[:1]) + part[1:])
				}
				name = b.String()
			default:
				name = strings.ReplaceAll(name, "_", "-")
			}
			reply.ToolCalls[i].Name = name
		}
		return reply
	}
}

// cutOff ends a share of the answers at the output limit: the answer
// stops inside the arguments of one of its calls (the calls after it are
// never written) with finish_reason "length"; some answers are cut off
// while the model is still reasoning, before any call.
func cutOff(rate float64, seed uint64, next Handler) Handler {
	return func(r Request) Reply {
		reply := next(r)
		if len(reply.ToolCalls) == 0 || !draw(seed, r.N, rate) {
			return reply
		}
		rnd := rand.New(rand.NewPCG(seed, uint64(r.N)))
		if rnd.IntN(4) == 0 {
			return Reply{Reasoning: strings.Repeat("Let me think about which chunk comes next and what it requires. ", 20),
				FinishReason: "length", PromptTokens: reply.PromptTokens, CompletionTokens: 4096}
		}
		k := rnd.IntN(len(reply.ToolCalls))
		calls := slices.Clone(reply.ToolCalls[:k+1])
		args := calls[k].Arguments
		calls[k].Arguments = args[:1+rnd.IntN(max(len(args)-2, 1))]
		reply.ToolCalls = calls
		reply.FinishReason = "length"
		return reply
	}
}

// StrictHistory checks the history of every request the way llama.cpp
// does: a tool call whose arguments are not valid JSON fails the request
// with HTTP 500, so a client that keeps cut-off arguments is stuck.
func StrictHistory(next Handler) Handler {
	return func(r Request) Reply {
		for _, m := range r.Messages {
			for _, tc := range m.ToolCalls {
				if !json.Valid([]byte(tc.Arguments)) {
					return Reply{Status: 500, Body: `{"error":{"code":500,"message":"Failed to parse tool call arguments as JSON","type":"server_error"}}`}
				}
			}
		}
		return next(r)
	}
}

// repeats sends, in a share of the answers, the calls of the previous
// answer once more instead of the next step.
func repeats(rate float64, seed uint64, next Handler) Handler {
	return func(r Request) Reply {
		var prev *llm.Message
		for i := len(r.Messages) - 1; i >= 0; i-- {
			if m := r.Messages[i]; m.Role == llm.RoleAssistant {
				if len(m.ToolCalls) > 0 {
					prev = &r.Messages[i]
				}
				break
			}
		}
		if prev == nil || !draw(seed, r.N, rate) {
			return next(r)
		}
		calls := slices.Clone(prev.ToolCalls)
		for i := range calls {
			calls[i].ID = fmt.Sprintf("rep%d_%d", r.N, i+1)
		}
		return Reply{Content: prev.Content, ToolCalls: calls, PromptTokens: len(r.Raw) / 4, CompletionTokens: 20}
	}
}

// textForms are the ways models write tool calls into their text when the
// chat template does not match them.
var textForms = []string{"<tool_call> tags", "fenced JSON", "bare JSON", "harmony", "[TOOL_CALLS]", "<function=…> tags", "DeepSeek tokens", "Qwen XML", "OpenAI JSON"}

// textCalls writes every answer's tool calls into its text, in one form,
// and sends no structured calls.
func textCalls(form string, next Handler) Handler {
	return func(r Request) Reply {
		reply := next(r)
		if len(reply.ToolCalls) == 0 {
			return reply
		}
		reply.Content = strings.TrimSpace(reply.Content + "\n\n" + writeCalls(form, reply.ToolCalls))
		reply.ToolCalls = nil
		reply.FinishReason = "stop"
		return reply
	}
}

// callFormats write one call in a text form: %[1]s is the tool's name,
// %[2]s its arguments.
var callFormats = map[string]string{
	"<tool_call> tags":  "<tool_call>\n{\"name\": %[1]q, \"arguments\": %[2]s}\n</tool_call>\n",
	"fenced JSON":       "```json\n{\"name\": %[1]q, \"arguments\": %[2]s}\n```\n",
	"bare JSON":         "{\"name\": %[1]q, \"parameters\": %[2]s}\n",
	"harmony":           "<|start|>assistant<|channel|>commentary to=functions.%[1]s <|constrain|>json<|message|>%[2]s<|call|>\n",
	"<function=…> tags": "<function=%[1]s>%[2]s</function>\n",
	"DeepSeek tokens":   "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>%[1]s\n```json\n%[2]s\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>\n",
	// OpenAI's shape carries the arguments as a JSON string (encoded below).
	"OpenAI JSON": "{\"type\": \"function\", \"function\": {\"name\": %[1]q, \"arguments\": %[2]s}}\n",
}

func writeCalls(form string, calls []llm.ToolCall) string {
	var b strings.Builder
	switch form {
	case "[TOOL_CALLS]":
		var items []string
		for _, c := range calls {
			items = append(items, fmt.Sprintf(`{"name": %q, "arguments": %s}`, c.Name, c.Arguments))
		}
		return "[TOOL_CALLS][" + strings.Join(items, ", ") + "]"
	case "Qwen XML":
		for _, c := range calls {
			b.WriteString(qwenXML(c))
		}
		return b.String()
	}
	format, ok := callFormats[form]
	if !ok {
		panic("fakellm: unknown text form " + form)
	}
	for _, c := range calls {
		args := c.Arguments
		if form == "OpenAI JSON" {
			data, _ := json.Marshal(args)
			args = string(data)
		}
		fmt.Fprintf(&b, format, c.Name, args)
	}
	return b.String()
}

// qwenXML writes a call as Qwen3-Coder does: one XML parameter per
// argument, strings as they are and other values as JSON.
func qwenXML(c llm.ToolCall) string {
	var args map[string]any
	json.Unmarshal([]byte(c.Arguments), &args)
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "<tool_call>\n<function=%s>\n", c.Name)
	for _, k := range keys {
		v, ok := args[k].(string)
		if !ok {
			data, _ := json.Marshal(args[k])
			v = string(data)
		}
		fmt.Fprintf(&b, "<parameter=%s>\n%s\n</parameter>\n", k, v)
	}
	b.WriteString("</function>\n</tool_call>\n")
	return b.String()
}

// The misbehaviours below do not let a job finish; the product must stop
// it with a clear, resumable reason.

// Looping sends the same calls in every answer, as a model that has lost
// track of its work does.
func Looping(calls ...llm.ToolCall) Handler {
	return func(r Request) Reply {
		out := slices.Clone(calls)
		for i := range out {
			out[i].ID = fmt.Sprintf("loop%d_%d", r.N, i+1)
		}
		return Reply{ToolCalls: out, PromptTokens: len(r.Raw) / 4, CompletionTokens: 20}
	}
}

// ReasoningPastTheLimit reasons in every answer until the output limit cuts
// it off, before any call.
func ReasoningPastTheLimit() Handler {
	return func(r Request) Reply {
		return Reply{Reasoning: strings.Repeat("First I should consider every chunk carefully. ", 50), FinishReason: "length",
			PromptTokens: len(r.Raw) / 4, CompletionTokens: 4096}
	}
}

// Lazy works as a lazy model does: it plans two tasks, chunks the document
// small, reads the first chunk and no other, saves one requirement from
// it, builds the output, completes its tasks and from then on says it is
// done. quote is a sentence of the document's first chunk.
func Lazy(doc, quote string) Handler {
	return Script(
		[]llm.ToolCall{call("read_file", map[string]any{"path": "instructions.md", "limit": 20})},
		[]llm.ToolCall{call("write_plan", map[string]any{"tasks": []string{"Find the requirements", "Write the output"}})},
		[]llm.ToolCall{
			call("start_task", map[string]any{"task_number": 1}),
			call("chunk_document", map[string]any{"path": "input/" + doc, "max_tokens": 200}),
			call("read_file", map[string]any{"path": "chunks/chunk_001.md"}),
			call("save_requirement", map[string]any{"title": "Keep records", "text": "Records must be kept for ten years.",
				"type": "obligation", "category": "compliance", "priority": "high",
				"citations": []map[string]any{{"chunk": "chunk_001", "quote": quote}}, "confidence": 0.9, "rationale": "'must' sets a duty"}),
			call("complete_task", map[string]any{"task_number": 1, "notes": "one requirement"}),
		},
		[]llm.ToolCall{
			call("start_task", map[string]any{"task_number": 2}),
			call("finalize_output", map[string]any{}),
			call("complete_task", map[string]any{"task_number": 2, "notes": "output written"}),
		},
	)
}
