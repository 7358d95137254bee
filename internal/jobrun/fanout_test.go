package jobrun_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"creator/internal/agent"
	"creator/internal/job"
	"creator/internal/jobrun"
	"creator/internal/llm"
	"creator/internal/offlinemodel"
	"creator/internal/telemetry"
	"creator/internal/transcript"
	"creator/templates"
	"creator/tools"
	"creator/workspace"
)

// sectionedJob makes a job on a document of n sections, each long enough
// to be a chunk of its own.
func sectionedJob(t *testing.T, n int) *job.Job {
	t.Helper()
	var b strings.Builder
	b.WriteString("Archive standard\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d. Records of kind %d\n\n", i, i)
		for k := 1; k <= 60; k++ {
			fmt.Fprintf(&b, "In meeting %d the committee reviewed how records of kind %d were handled in year %d. ", k, i, 1950+k)
		}
		fmt.Fprintf(&b, "\n\nRecords of kind %d must be kept for %d years.\nRecords of kind %d must be stored in room %d.\n\n", i, i+2, i, i)
	}
	dir := t.TempDir()
	doc := filepath.Join(dir, "archive.txt")
	if err := os.WriteFile(doc, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return lockedJob(t, filepath.Join(dir, "ws"), "s", doc)
}

// fanModel is the built-in model, recording the sub-agents' requests and
// how many were in flight at once.
type fanModel struct {
	llm.Model
	mu       sync.Mutex
	inFlight int
	peak     int
	subs     []llm.Request
}

func (m *fanModel) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	sub := len(req.Messages) > 0 && req.Messages[0].Data.Kind == tools.KindChunkAssignment
	m.mu.Lock()
	m.inFlight++
	m.peak = max(m.peak, m.inFlight)
	if sub {
		m.subs = append(m.subs, req)
	}
	m.mu.Unlock()
	defer func() { m.mu.Lock(); m.inFlight--; m.mu.Unlock() }()
	return m.Model.Complete(ctx, req)
}

// Every sub-agent is sent the same system prompt and tools, its chunk
// last; the job counts every sub-agent's calls; events and status say
// what the sub-agents did.
func TestSubagentsShareAPrefixAndCountInTheJob(t *testing.T) {
	t.Parallel()
	j := sectionedJob(t, 8)
	model := &fanModel{Model: offlinemodel.New()}
	cfg := config(j, &recorder{}, 300)
	cfg.Model = model
	parallel := 3
	cfg.Settings.Parallel = &parallel
	out, err := jobrun.Run(context.Background(), cfg)
	if err != nil || out.Status != workspace.StatusCompleted {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	man, err := j.Manifest()
	if err != nil || len(man.Chunks) < 4 {
		t.Fatalf("%d chunks, %v; the test wants several", len(man.Chunks), err)
	}
	if model.peak > parallel {
		t.Errorf("%d model calls at once, more than --parallel %d", model.peak, parallel)
	}
	chunksSeen := map[string]bool{}
	for _, req := range model.subs {
		first := model.subs[0]
		if req.System != templates.SubagentPrompt || !reflect.DeepEqual(req.Tools, first.Tools) {
			t.Fatalf("a sub-agent got another system prompt or tool list")
		}
		var a tools.ChunkAssignment
		if !req.Messages[0].Data.Decode(&a) || !strings.HasSuffix(req.Messages[0].Content, a.Content()) {
			t.Fatalf("the first message does not end with its chunk")
		}
		chunksSeen[a.Chunk] = true
	}
	var names []string
	for _, d := range model.subs[0].Tools {
		names = append(names, d.Name)
	}
	if want := []string{"save_requirement", "declare_chunk_empty", "read_file", "search_files"}; !reflect.DeepEqual(names, want) {
		t.Errorf("sub-agent tools %v, want %v", names, want)
	}
	if len(chunksSeen) != len(man.Chunks) {
		t.Errorf("sub-agents analysed %d of %d chunks", len(chunksSeen), len(man.Chunks))
	}

	// The job's totals are the main agent's calls and every sub-agent's.
	info, err := j.Info()
	if err != nil {
		t.Fatal(err)
	}
	recs, err := j.Transcript()
	if err != nil {
		t.Fatal(err)
	}
	total := agent.StepTotals(recs)
	subs, err := j.SubagentTranscripts()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range subs {
		total = total.Plus(agent.StepTotals(r))
	}
	if info.Usage.Steps != total.Steps || info.Usage.PromptTokens != total.PromptTokens || out.Agent.Totals.Steps != total.Steps {
		t.Errorf("job.json counts %d steps (%d prompt tokens), the outcome %d; the transcripts %d (%d)",
			info.Usage.Steps, info.Usage.PromptTokens, out.Agent.Totals.Steps, total.Steps, total.PromptTokens)
	}
	if total.Steps <= len(man.Chunks) {
		t.Errorf("%d steps in all for %d chunks: the sub-agents' calls are not counted", total.Steps, len(man.Chunks))
	}

	started, finished := map[string]bool{}, map[string]bool{}
	for _, e := range events(t, j) {
		switch e.Type {
		case telemetry.TypeSubagentStarted:
			started[e.Chunk] = true
		case telemetry.TypeSubagentFinished:
			finished[e.Chunk] = e.Error == "" && (e.Saved > 0 || e.Empty != "") && e.Requests > 0
		}
	}
	for _, c := range man.Chunks {
		if !started[c.ID] || !finished[c.ID] {
			t.Errorf("%s: subagent_started %v, finished with an outcome %v", c.ID, started[c.ID], finished[c.ID])
		}
	}
}

// A sub-agent's requirements get ids in the document's order even when
// the sub-agents finish in the reverse order.
func TestIDsFollowTheDocumentWhateverTheOrderOfFinishing(t *testing.T) {
	t.Parallel()
	j := sectionedJob(t, 6)
	model := &reverseModel{Model: offlinemodel.New(), release: map[string]chan struct{}{}}
	cfg := config(j, &recorder{}, 300)
	cfg.Model = model
	parallel := 16 // more than the chunks: every sub-agent waits for the next one's at once
	cfg.Settings.Parallel = &parallel
	out, err := jobrun.Run(context.Background(), cfg)
	if err != nil || out.Status != workspace.StatusCompleted {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	saved, err := j.Requirements().List()
	if err != nil {
		t.Fatal(err)
	}
	last := ""
	for _, e := range saved {
		chunk := e.Record.Citations[0].Chunk
		if chunk < last {
			t.Fatalf("%s cites %s after a requirement of %s: ids follow the order of finishing", e.Record.ID, chunk, last)
		}
		last = chunk
	}
	if len(saved) == 0 || model.reversed == 0 {
		t.Fatalf("%d requirements, %d sub-agents held back: the test proves nothing", len(saved), model.reversed)
	}
}

// reverseModel holds each sub-agent's first answer until the sub-agent of
// the next chunk of its document has answered, so that the last chunk
// finishes first.
type reverseModel struct {
	llm.Model
	mu       sync.Mutex
	release  map[string]chan struct{}
	reversed int
}

func (m *reverseModel) gate(chunk string) chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.release[chunk] == nil {
		m.release[chunk] = make(chan struct{})
	}
	return m.release[chunk]
}

func (m *reverseModel) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	var a tools.ChunkAssignment
	if len(req.Messages) != 1 || !req.Messages[0].Data.Decode(&a) || req.Messages[0].Data.Kind != tools.KindChunkAssignment {
		return m.Model.Complete(ctx, req)
	}
	if a.Index < a.Of {
		next := fmt.Sprintf("chunk_%03d", chunkNo(a.Chunk)+1)
		select {
		case <-m.gate(next):
			m.mu.Lock()
			m.reversed++
			m.mu.Unlock()
		case <-ctx.Done():
			return llm.Response{}, ctx.Err()
		}
	}
	resp, err := m.Model.Complete(ctx, req)
	close(m.gate(a.Chunk))
	return resp, err
}

func chunkNo(id string) int {
	var n int
	fmt.Sscanf(id, "chunk_%d", &n)
	return n
}

// mainScript answers the main agent with fixed calls, one answer each,
// and every sub-agent with the built-in model.
type mainScript struct {
	builtin llm.Model
	mu      sync.Mutex
	calls   []llm.ToolCall
}

func (m *mainScript) Name() string { return "script" }

func (m *mainScript) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if len(req.Messages) > 0 && req.Messages[0].Data.Kind == tools.KindChunkAssignment {
		return m.builtin.Complete(ctx, req)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.calls) == 0 {
		return llm.Response{Content: "done", FinishReason: "stop", Attempts: 1}, nil
	}
	c := m.calls[0]
	m.calls = m.calls[1:]
	c.ID = fmt.Sprintf("s%d", len(m.calls))
	return llm.Response{ToolCalls: []llm.ToolCall{c}, FinishReason: "tool_calls", Attempts: 1}, nil
}

// A chunk analysed before is not sent again, unless its requirements
// were deleted since: then it is not covered, and it is analysed anew.
func TestAChunkNoLongerCoveredIsAnalysedAgain(t *testing.T) {
	t.Parallel()
	j := sectionedJob(t, 3)
	parallel := 2
	cfg := config(j, &recorder{}, 300)
	cfg.Settings.Parallel = &parallel
	if out, err := jobrun.Run(context.Background(), cfg); err != nil || out.Status != workspace.StatusCompleted {
		t.Fatalf("first run: %+v, %v", out, err)
	}
	saved, err := j.Requirements().List()
	if err != nil || len(saved) < 2 {
		t.Fatalf("%d requirements, %v", len(saved), err)
	}
	gone := saved[0].Record.Citations[0].Chunk
	kept := ""
	for _, e := range saved {
		if c := e.Record.Citations[0].Chunk; c != gone && kept == "" {
			kept = c
		}
		if e.Record.Citations[0].Chunk == gone {
			if err := os.RemoveAll(filepath.Join(j.Dir, "requirements", e.Folder)); err != nil {
				t.Fatal(err)
			}
		}
	}
	recs, err := j.Transcript()
	if err != nil {
		t.Fatal(err)
	}
	script := &mainScript{builtin: offlinemodel.New(), calls: []llm.ToolCall{
		{Name: tools.AnalyzeChunksName, Arguments: fmt.Sprintf(`{"chunks": [%q, %q]}`, gone, kept)},
		{Name: "finalize_output", Arguments: `{}`},
	}}
	cfg = config(j, &recorder{}, 300)
	cfg.Model, cfg.Transcript = script, recs
	cfg.Settings.Parallel = &parallel
	out, err := jobrun.Run(context.Background(), cfg)
	if err != nil || out.Status != workspace.StatusCompleted {
		t.Fatalf("second run: %+v, %v", out, err)
	}
	var rows tools.AnalyzedChunks
	recs, _ = j.Transcript()
	for _, m := range transcript.Messages(recs) {
		if m.ToolName == tools.AnalyzeChunksName && !m.Data.Failed {
			m.Data.Decode(&rows)
		}
	}
	status := map[string]string{}
	for _, r := range rows.Chunks {
		status[r.Chunk] = r.Status
	}
	if status[gone] != tools.ChunkSaved || status[kept] != tools.ChunkBefore {
		t.Fatalf("rows %+v: want %s analysed again and %s done before", rows.Chunks, gone, kept)
	}
	o, _, _ := j.ChunkOutcome(gone)
	if o.Attempt != 2 || o.State != job.ChunkCommitted {
		t.Errorf("%s: %+v", gone, o)
	}
}
