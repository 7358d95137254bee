package fakellm

import (
	"context"
	"math/rand/v2"
	"sync"

	"creator/internal/llm"
)

// Model answers through a real model in process (the built-in one, for a
// whole job on a real document): the request is handed over as the client
// sent it, tools by name.
func Model(m llm.Model) Handler {
	return func(r Request) Reply {
		req := llm.Request{System: r.System, Messages: r.Messages}
		for _, name := range r.Tools {
			req.Tools = append(req.Tools, llm.ToolDef{Name: name})
		}
		resp, err := m.Complete(context.Background(), req)
		if err != nil {
			return Reply{Status: 500, Body: `{"error":{"message":"` + err.Error() + `"}}`}
		}
		return Reply{Content: resp.Content, Reasoning: resp.Reasoning, ToolCalls: resp.ToolCalls, FinishReason: resp.FinishReason,
			PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens}
	}
}

// Fault kinds, in the order Faults uses them.
var FaultKinds = []string{
	"429 with Retry-After", "429", "500", "503", "hang", "cut-off body", "no choices",
	"arguments not JSON", "unknown tool", "call without id", "context length exceeded",
}

// FaultStats counts the faults a Faults handler injected, by kind.
type FaultStats struct {
	mu     sync.Mutex
	Counts map[string]int
	Calls  int
}

// Total is the number of injected faults.
func (s *FaultStats) Total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.Counts {
		n += c
	}
	return n
}

// Faults answers a share rate of the requests with a fault instead of
// next's reply; which requests is drawn from seed, and the kinds take
// turns, so every kind comes up once there have been enough faults. Faults
// of the model's output (bad arguments, unknown tool, missing id) replace a
// reply with tool calls; for a reply without them another kind is used.
// The seed picks the first kind too.
func Faults(rate float64, seed uint64, next Handler) (Handler, *FaultStats) {
	return FaultsOf(rate, seed, FaultKinds, next)
}

// FaultsOf is Faults with only some of the kinds (of FaultKinds).
func FaultsOf(rate float64, seed uint64, kinds []string, next Handler) (Handler, *FaultStats) {
	stats := &FaultStats{Counts: map[string]int{}}
	rnd := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var mu sync.Mutex
	// The seed also picks the kind to start with, so that short jobs under
	// different seeds meet different kinds.
	turn := int(seed % uint64(len(kinds)))
	return func(r Request) Reply {
		mu.Lock()
		fault := rate >= 1 || rnd.Float64() < rate
		kind := ""
		if fault {
			kind = kinds[turn%len(kinds)]
			turn++
		}
		mu.Unlock()
		stats.mu.Lock()
		stats.Calls++
		stats.mu.Unlock()
		if !fault {
			return next(r)
		}
		reply, ok := inject(kind, r, next)
		if !ok { // the kind needs tool calls and the reply has none
			kind = "500"
			reply, _ = inject(kind, r, next)
		}
		stats.mu.Lock()
		stats.Counts[kind]++
		stats.mu.Unlock()
		return reply
	}, stats
}

func inject(kind string, r Request, next Handler) (Reply, bool) {
	switch kind {
	case "429 with Retry-After":
		return Reply{Status: 429, Header: map[string]string{"Retry-After": "1"}, Body: `{"error":{"message":"rate limited","type":"rate_limit_error"}}`}, true
	case "429":
		return Reply{Status: 429, Body: `{"error":{"message":"too many requests","type":"rate_limit_error"}}`}, true
	case "500":
		return Reply{Status: 500, Body: `{"error":{"message":"internal error"}}`}, true
	case "503":
		return Reply{Status: 503, Body: `{"error":{"message":"overloaded"}}`}, true
	case "hang":
		return Reply{Hang: true}, true
	case "cut-off body":
		reply := next(r)
		reply.CutOff = true
		return reply, true
	case "no choices":
		return Reply{NoChoices: true}, true
	case "context length exceeded":
		return Reply{Status: 400, Body: `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`}, true
	}
	reply := next(r)
	if len(reply.ToolCalls) == 0 {
		return reply, false
	}
	calls := append([]llm.ToolCall(nil), reply.ToolCalls...)
	switch kind {
	case "arguments not JSON":
		calls[0].Arguments = `{"path": "notes/x.md", "content": "unterminated`
	case "unknown tool":
		calls[0].Name = "format_disk"
	case "call without id":
		for i := range calls {
			calls[i].ID = ""
		}
	}
	reply.ToolCalls = calls
	return reply, true
}
