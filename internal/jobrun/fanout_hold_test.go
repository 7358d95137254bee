package jobrun_test

import (
	"context"
	"sync"
	"testing"

	"creator/internal/agent"
	"creator/internal/cost"
	"creator/internal/jobrun"
	"creator/internal/llm"
	"creator/internal/offlinemodel"
	"creator/tools"
	"creator/workspace"
)

// A sub-agent that a budget cuts short holds back the commits of the
// chunks after it: the first chunk's sub-agent waits in its first call
// until the second's has made all its calls, then answers with words
// only (it has saved nothing, so it must go on) and so spends the last
// step of the budget; the second chunk, finished, must not be committed
// before the first, or a resume would give its requirements the first
// ids.
func TestACutShortSubagentHoldsLaterCommits(t *testing.T) {
	t.Parallel()
	const chunks, parallel = 2, 2
	price := cost.Price{In: 2, Out: 8}

	// What the reference run calls: the main agent before the fan-out,
	// and each sub-agent.
	ref := sectionedJob(t, chunks)
	counted := &chunkCalls{Model: offlinemodel.New(), calls: map[string]int{}}
	cfg := budgetConfig(ref, parallel, price, workspace.Settings{})
	cfg.Model = counted
	runJob(t, ref, cfg, workspace.StatusCompleted)
	want := readJobFile(t, ref, "output/requirements.json")
	first, second := counted.calls["chunk_001"], counted.calls["chunk_002"]
	if counted.before == 0 || first == 0 || second == 0 {
		t.Fatalf("%d main calls before the fan-out, %d and %d of the sub-agents: the test proves nothing", counted.before, first, second)
	}

	j := sectionedJob(t, chunks)
	held := &chunkCalls{Model: offlinemodel.New(), calls: map[string]int{}, hold: "chunk_001", until: "chunk_002", after: second, released: make(chan struct{})}
	cfg = budgetConfig(j, parallel, price, workspace.Settings{MaxSteps: counted.before + second + 1})
	cfg.Model = held
	out, err := jobrun.Run(context.Background(), cfg)
	if err != nil || out.Agent.Kind != agent.StepLimit {
		t.Fatalf("stopped with %v (%s), %v; want the step limit", out.Agent.Kind, out.Agent.Reason, err)
	}
	if held.calls["chunk_001"] != 1 || held.calls["chunk_002"] != second {
		t.Fatalf("the sub-agents made %d and %d calls; want 1 and %d", held.calls["chunk_001"], held.calls["chunk_002"], second)
	}
	if saved, err := j.Requirements().List(); err != nil || len(saved) != 0 {
		t.Errorf("%d requirements committed before the first chunk's (%v)", len(saved), err)
	}

	resumeGives(t, j, parallel, price, want)
}

// chunkCalls is the built-in model, counting the main agent's calls
// before the first sub-agent's and each sub-agent's by its chunk. With
// hold set, that chunk's sub-agent's first call waits until the sub-agent
// of chunk until has made after calls, and answers with words only.
type chunkCalls struct {
	llm.Model
	hold, until string
	after       int
	released    chan struct{}

	mu     sync.Mutex
	before int
	calls  map[string]int
}

func (m *chunkCalls) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	var a tools.ChunkAssignment
	if len(req.Messages) == 0 || req.Messages[0].Data.Kind != tools.KindChunkAssignment || !req.Messages[0].Data.Decode(&a) {
		m.mu.Lock()
		if len(m.calls) == 0 {
			m.before++
		}
		m.mu.Unlock()
		return m.Model.Complete(ctx, req)
	}
	m.mu.Lock()
	first := m.calls[a.Chunk] == 0
	m.mu.Unlock()
	var resp llm.Response
	var err error
	if first && a.Chunk == m.hold {
		select {
		case <-m.released:
		case <-ctx.Done():
			return llm.Response{}, ctx.Err()
		}
		resp = llm.Response{Content: "I will read the chunk next.", FinishReason: "stop", Attempts: 1}
	} else {
		resp, err = m.Model.Complete(ctx, req)
	}
	m.mu.Lock()
	m.calls[a.Chunk]++
	if a.Chunk == m.until && m.calls[a.Chunk] == m.after {
		close(m.released)
	}
	m.mu.Unlock()
	return resp, err
}
