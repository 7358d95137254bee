package telemetry

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"creator/internal/agent"
	"creator/internal/llm"
)

type words struct{}

func (words) Count(s string) int { return len(strings.Fields(s)) }

func TestEventsAreLinesOfTheirType(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	clock := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	r := New(&buf, words{}, func() time.Time { return clock }, true)
	r.JobStarted("m", false, 0, map[string]int{"max_steps": 5})
	r.Compaction("clear", 900, 300, "cleared 4")
	r.ModelCalled(agent.ModelCall{Step: 1, Model: "m", Usage: llm.Usage{PromptTokens: 300, CompletionTokens: 20, CachedTokens: 100}, Counted: 310, Cost: 0.5, Latency: 1500 * time.Millisecond, FinishReason: "tool_calls", Attempts: 2, ToolCalls: 1})
	long := strings.Repeat("x", 5000)
	r.ToolCalled(agent.ToolCall{Step: 1, Name: "write_file", Arguments: `{"path":"notes/a.md","content":"` + long + `"}`, Duration: 3 * time.Millisecond, Result: "created notes/a.md: 5 KB"})
	r.ToolCalled(agent.ToolCall{Step: 1, Name: "read_file", Arguments: `not json`, Err: errors.New("bad arguments")})
	r.Task(TypeTaskCompleted, 2, "Read the chunks")
	r.JobFinished("completed", 0, "", agent.Totals{Steps: 1, PromptTokens: 300, CompletionTokens: 20, CachedTokens: 100, CostUSD: 0.5})

	events, err := Read(&buf)
	if err != nil || len(events) != 7 {
		t.Fatalf("%v, %d events", err, len(events))
	}
	llmCall, write, bad, fin := events[2], events[3], events[4], events[6]
	if llmCall.Type != TypeLLMCall || llmCall.PromptTokens != 300 || llmCall.PromptTokensCounted != 310 || llmCall.CachedTokens != 100 ||
		llmCall.LatencyMS != 1500 || llmCall.CompactionBefore != "clear" || llmCall.CostUSD == nil || *llmCall.CostUSD != 0.5 || llmCall.Attempts != 2 {
		t.Errorf("llm_call %+v", llmCall)
	}
	var args map[string]string
	json.Unmarshal(write.Arguments, &args)
	if args["path"] != "notes/a.md" || len(args["content"]) > 260 || !strings.HasSuffix(args["content"], "…(5000 characters)") || write.ResultTokens != 4 || write.Status != "ok" {
		t.Errorf("tool_call %+v %v", write, args)
	}
	if bad.Status != "error" || bad.Error != "bad arguments" || string(bad.Arguments) != `"not json"` {
		t.Errorf("failed tool_call %+v", bad)
	}
	if events[1].Step != 0 || events[5].Step != 1 || events[5].Task != 2 {
		t.Errorf("steps of compaction and task events: %+v %+v", events[1], events[5])
	}
	if fin.ExitCode == nil || *fin.ExitCode != 0 || fin.TotalCached != 100 || fin.TotalCostUSD == nil {
		t.Errorf("job_finished %+v", fin)
	}
	// Without a price, no cost is written.
	buf.Reset()
	New(&buf, nil, nil, false).ModelCalled(agent.ModelCall{Step: 1, Cost: 3})
	if strings.Contains(buf.String(), "cost") || !strings.Contains(buf.String(), `"prompt_tokens":0`) {
		t.Errorf("unpriced: %s", buf.String())
	}
}

func TestConcurrentWritersKeepWholeLines(t *testing.T) {
	t.Parallel()
	var buf lockedBuffer
	r := New(&buf, nil, nil, false)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				r.ToolCalled(agent.ToolCall{Step: i, Name: "read_file", Arguments: `{"path":"x"}`})
			}
		}()
	}
	wg.Wait()
	events, err := Read(strings.NewReader(buf.String()))
	if err != nil || len(events) != 1000 {
		t.Fatalf("%v, %d events", err, len(events))
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string { return l.b.String() }

// A published event writes every field, zero counts too.
func TestPublishedEvent(t *testing.T) {
	got := string(PublishedEvent(time.Date(2026, 11, 21, 6, 0, 0, 0, time.FixedZone("CET", 3600)),
		Publication{Database: "postgres://creator@db:5432/reqs", Schema: "public", Requirements: 2, Inserted: 2}))
	want := `{"type":"published","time":"2026-11-21T05:00:00Z","database":"postgres://creator@db:5432/reqs","schema":"public","requirements":2,"inserted":2,"updated":0,"unchanged":0,"removed":0,"partial":false}` + "\n"
	if got != want {
		t.Errorf("PublishedEvent = %s, want %s", got, want)
	}
}
