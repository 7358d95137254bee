package compaction_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"creator/compaction"
	"creator/internal/agent"
	"creator/internal/donecheck"
	"creator/internal/fakellm"
	"creator/internal/llm"
	"creator/internal/output"
	"creator/internal/tokens"
	"creator/internal/transcript"
	"creator/planner"
	"creator/tools"
	"creator/workspace"
)

const system = "You are a test agent."

// scripted is a model that follows a fixed list of answers in order. It
// counts its answers instead of reading the conversation (as fakellm.Script
// does), because compaction removes the history such a script would read.
// Summary requests (no tools, the summary prompt) get summary.
type scripted struct {
	t       *testing.T
	steps   []fakellm.Reply
	summary func(fakellm.Request) fakellm.Reply
	// fault, if set, may answer a work request instead of the script.
	fault func(fakellm.Request) (fakellm.Reply, bool)
	// seen, if set, is called with every work request before it is answered.
	seen func(fakellm.Request)

	mu        sync.Mutex
	next      int
	work      []fakellm.Request
	summaries []fakellm.Request
}

func (s *scripted) handle(r fakellm.Request) fakellm.Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.System == compaction.SummaryPrompt {
		if len(r.Tools) != 0 {
			s.t.Errorf("a summary request carries %d tools", len(r.Tools))
		}
		s.summaries = append(s.summaries, r)
		if s.summary != nil {
			return s.summary(r)
		}
		return fakellm.Reply{Content: "SUMMARY: chunks were read and notes written."}
	}
	if s.seen != nil {
		s.seen(r)
	}
	if s.fault != nil {
		if reply, ok := s.fault(r); ok {
			return reply
		}
	}
	s.work = append(s.work, r)
	if s.next >= len(s.steps) {
		return fakellm.Reply{Content: "Nothing left to do."}
	}
	reply := s.steps[s.next]
	s.next++
	return reply
}

func (s *scripted) workRequests() []fakellm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]fakellm.Request(nil), s.work...)
}

type env struct {
	job   *workspace.Job
	srv   *fakellm.Server
	model *scripted
	cfg   compaction.Config
	// summaryRequests, if set, hears every request of context management
	// as it leaves for the model, data included.
	summaryRequests func(llm.Request)
}

// watched is a model whose requests are heard before they are sent.
type watched struct {
	llm.Model
	hear func(llm.Request)
}

func (w watched) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	w.hear(req)
	return w.Model.Complete(ctx, req)
}

// chunkText is a chunk of about 700 tokens whose first and last lines
// name it.
func chunkText(k int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Chunk %d first line\n", k)
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "Section %d.%d: the operator shall keep record %d of chunk %d for ten years.\n", k, i, i, k)
	}
	fmt.Fprintf(&b, "Chunk %d last line\n", k)
	return b.String()
}

// overflowOnce makes the model server answer the first request of a long
// conversation (over 20 messages) with the context-length error of server
// (window 0: one that does not state it). The count it returns is read
// under the model's lock.
func (e *env) overflowOnce(server string, window int) *int {
	overflowed := 0
	e.model.fault = func(r fakellm.Request) (fakellm.Reply, bool) {
		if overflowed == 0 && len(r.Messages) > 20 {
			overflowed++
			return fakellm.ContextError(server, window), true
		}
		return fakellm.Reply{}, false
	}
	return &overflowed
}

func newEnv(t *testing.T, cfg compaction.Config, steps []fakellm.Reply) *env {
	t.Helper()
	base := t.TempDir()
	doc := filepath.Join(base, "policy.txt")
	if err := os.WriteFile(doc, []byte("Records must be kept for ten years.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	job, err := workspace.Create(filepath.Join(base, "ws"), workspace.CreateOptions{ID: "c", Inputs: []string{doc}, Instructions: []byte("# Instructions\nPlan first.\n")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { job.Close() })
	for k := 1; k <= 20; k++ {
		if err := os.WriteFile(filepath.Join(job.Dir, "chunks", fmt.Sprintf("chunk_%03d.md", k)), []byte(chunkText(k)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := &scripted{t: t, steps: steps}
	srv := fakellm.New(model.handle)
	t.Cleanup(func() {
		srv.Close()
		for _, v := range srv.Violations() {
			t.Errorf("protocol violation: %s", v)
		}
	})
	return &env{job: job, srv: srv, model: model, cfg: cfg}
}

// agent wires an agent with the workspace and planning tools and context
// management, as cmd/creator does.
func (e *env) agent(t *testing.T) (*agent.Agent, *compaction.Manager) {
	t.Helper()
	pl := planner.New(e.job, nil)
	reg, err := tools.NewRegistry(append(tools.WorkspaceTools(e.job.Files), tools.PlanningTools(pl, nil, nil)...)...)
	if err != nil {
		t.Fatal(err)
	}
	// A clock that jumps an hour at each look ends the one-minute retry
	// window after the second attempt.
	var clock atomic.Int64
	client := llm.NewClient(llm.ClientConfig{BaseURL: e.srv.URL(), Model: "fake", RetryFor: time.Minute,
		Sleep: func(context.Context, time.Duration) error { return nil },
		Now:   func() time.Time { return time.Unix(clock.Add(3600), 0) }})
	journal := transcript.NewWriter(e.job)
	var summarizer llm.Model = client
	if e.summaryRequests != nil {
		summarizer = watched{client, e.summaryRequests}
	}
	cm := compaction.New(compaction.Options{Config: e.cfg, Model: summarizer, Counter: tokens.Default(), Files: e.job, Journal: journal,
		Brief: compaction.WorkspaceBrief(e.job, pl.Load), System: system, Tools: reg.Definitions()})
	a := &agent.Agent{
		Model:      client,
		Tools:      reg,
		Completion: donecheck.Checker{Plan: pl.Load, Output: func() ([]byte, error) { return e.job.ReadInternal(output.RequirementsFile) }},
		Journal:    journal,
		System:     system,
		Hook:       cm,
		Limits:     agent.Limits{MaxSteps: len(e.model.steps)},
	}
	return a, cm
}

func (e *env) transcript(t *testing.T) []transcript.Record {
	t.Helper()
	recs, err := transcript.Load(e.job)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func args(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// callN numbers the calls of every test's script, which run in parallel.
var callN atomic.Int64

func step(text string, name string, a any) fakellm.Reply {
	return fakellm.Reply{Content: text, ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("c%d", callN.Add(1)), Name: name, Arguments: args(a)}}}
}

// readingJob plans, finishes task 1, starts task 2 and reads chunks 1..n,
// writing a long note after every third chunk.
func readingJob(n int) []fakellm.Reply {
	steps := []fakellm.Reply{
		step("Planning.", "write_plan", map[string]any{"tasks": []string{"Prepare the chunks", "Read every chunk", "Write the output"}}),
		step("", "start_task", map[string]any{"task_number": 1}),
		step("", "complete_task", map[string]any{"task_number": 1, "notes": "chunks are in chunks/"}),
		step("", "start_task", map[string]any{"task_number": 2}),
	}
	for k := 1; k <= n; k++ {
		steps = append(steps, step(fmt.Sprintf("Reading chunk %d.", k), "read_file", map[string]any{"path": fmt.Sprintf("chunks/chunk_%03d.md", k)}))
		if k%3 == 0 {
			steps = append(steps, step(fmt.Sprintf("Noting chunk %d.", k), "write_file", map[string]any{
				"path": fmt.Sprintf("notes/chunk_%03d.md", k), "content": strings.Repeat(fmt.Sprintf("Chunk %d holds duties on records. ", k), 20)}))
		}
	}
	return steps
}

func isPlaceholder(s string) bool { return strings.HasPrefix(s, "[cleared: ") }

func toolResults(msgs []llm.Message) (whole, cleared []llm.Message) {
	for _, m := range msgs {
		if m.Role != llm.RoleTool {
			continue
		}
		if isPlaceholder(m.Content) {
			cleared = append(cleared, m)
		} else {
			whole = append(whole, m)
		}
	}
	return whole, cleared
}

// isPrefix compares messages as they travel: the tool name of a result and
// the data of a message are not sent.
func isPrefix(prev, cur []llm.Message) bool {
	if len(prev) > len(cur) {
		return false
	}
	for i := range prev {
		a, b := prev[i], cur[i]
		a.ToolName, b.ToolName = "", ""
		a.Data, b.Data = llm.MessageData{}, llm.MessageData{}
		if !reflect.DeepEqual(a, b) {
			return false
		}
	}
	return true
}

func TestOversizedResultIsSavedAndPointedTo(t *testing.T) {
	t.Parallel()
	steps := []fakellm.Reply{
		step("", "read_file", map[string]any{"path": "notes/big.md", "limit": 2000}),
	}
	e := newEnv(t, compaction.Config{ResultBudget: 1000, SummarizeAt: 100000, ContextWindow: 200000}, nil)
	var big strings.Builder
	for i := 1; i <= 600; i++ {
		fmt.Fprintf(&big, "line %d of the big file, with some words to make it longer\n", i)
	}
	if err := os.WriteFile(filepath.Join(e.job.Dir, "notes", "big.md"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// The model then reads the rest from the pointer it was given.
	var pointer string
	e.model.steps = steps
	e.model.seen = func(r fakellm.Request) {
		if len(r.Messages) == 3 && pointer == "" {
			res := r.Messages[2].Content
			i := strings.Index(res, ".agent/results/")
			if i < 0 {
				return
			}
			pointer = res[i : i+strings.Index(res[i:], ".txt")+4]
			e.model.steps = append(e.model.steps, step("", "read_file", map[string]any{"path": pointer, "offset": 590, "limit": 20}))
		}
	}
	a, cm := e.agent(t)
	a.Limits.MaxSteps = 3
	if _, err := a.Start(context.Background(), llm.Message{Content: "go"}); err != nil {
		t.Fatal(err)
	}
	work := e.model.workRequests()
	if len(work) < 3 {
		t.Fatalf("%d work requests", len(work))
	}
	res := work[1].Messages[2].Content
	if n := tokens.Default().Count(res); n > 1200 {
		t.Errorf("the result in the prompt has %d tokens, budget 1000", n)
	}
	for _, want := range []string{"line 1 of the big file", "line 600 of the big file", "left out of this result", "read it with read_file"} {
		if !strings.Contains(res, want) {
			t.Errorf("the shortened result lacks %q:\n%s", want, res)
		}
	}
	if pointer != ".agent/results/"+steps[0].ToolCalls[0].ID+".txt" {
		t.Errorf("pointer %q does not name the call", pointer)
	}
	saved, err := os.ReadFile(filepath.Join(e.job.Dir, pointer))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(saved), "line 300 of the big file") || !strings.Contains(string(saved), "line 600 of the big file") {
		t.Errorf("the saved result is not whole (%d bytes)", len(saved))
	}
	// Reading the saved file through the pointer works.
	last := work[2].Messages[len(work[2].Messages)-1]
	if !strings.Contains(last.Content, "line 590 of the big file") || strings.HasPrefix(last.Content, "error") {
		t.Errorf("reading the saved result failed: %.300s", last.Content)
	}
	if got := cm.Stats().SavedResults; got != 1 {
		t.Errorf("%d results saved, want 1", got)
	}
}

func TestClearingKeepsExactlyTheLastN(t *testing.T) {
	t.Parallel()
	const keep = 3
	e := newEnv(t, compaction.Config{KeepToolResults: keep, ClearAt: 6000, SummarizeAt: 100000, ContextWindow: 200000}, readingJob(20))
	a, cm := e.agent(t)
	if _, err := a.Start(context.Background(), llm.Message{Content: "go"}); err != nil {
		t.Fatal(err)
	}
	work := e.model.workRequests()
	clearings, unchanged := 0, 0
	for i, r := range work {
		if err := llm.Validate(r.Messages); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		for _, m := range r.Messages {
			if m.Role == llm.RoleAssistant && strings.HasPrefix(m.Content, "[cleared") {
				t.Fatalf("request %d: the model's own text was cleared", i+1)
			}
		}
		if i == 0 {
			continue
		}
		prev := work[i-1].Messages
		if isPrefix(prev, r.Messages) {
			unchanged++
			continue
		}
		// A clearing happened just before this request.
		clearings++
		// Exactly the last keep results are whole; older ones are
		// placeholders, unless shorter than their placeholder would be.
		calls := map[string]llm.ToolCall{}
		var results []llm.Message
		for _, m := range r.Messages {
			for _, c := range m.ToolCalls {
				calls[c.ID] = c
			}
			if m.Role == llm.RoleTool {
				results = append(results, m)
			}
		}
		for j, m := range results {
			recent := j >= len(results)-keep
			switch {
			case recent && isPlaceholder(m.Content):
				t.Errorf("request %d: result %d of the last %d was cleared", i+1, j+1, keep)
			case !recent && !isPlaceholder(m.Content) && len(m.Content) > 80:
				t.Errorf("request %d: old result %d not cleared: %.80q", i+1, j+1, m.Content)
			case !recent && isPlaceholder(m.Content):
				c := calls[m.ToolCallID]
				var a struct{ Path string }
				json.Unmarshal([]byte(c.Arguments), &a)
				if !strings.HasPrefix(m.Content, "[cleared: "+c.Name+" "+a.Path+" — ") {
					t.Errorf("request %d: placeholder %q does not name the call %s %s", i+1, m.Content, c.Name, a.Path)
				}
				if c.Name == "read_file" && !strings.Contains(m.Content, "read it again if needed") {
					t.Errorf("request %d: placeholder %q does not say where the data is", i+1, m.Content)
				}
			}
		}
		if _, cleared := toolResults(r.Messages); len(cleared) == 0 {
			t.Errorf("request %d: changed but nothing cleared", i+1)
		}
		// Every assistant text of the previous request is still there.
		var texts []string
		for _, m := range r.Messages {
			texts = append(texts, m.Content)
		}
		joined := strings.Join(texts, "\n")
		for _, m := range prev {
			if m.Role == llm.RoleAssistant && m.Content != "" && !strings.Contains(joined, m.Content) {
				t.Errorf("request %d: assistant text %q lost", i+1, m.Content)
			}
		}
		// Long arguments of old calls are shortened, paths kept.
		for _, m := range r.Messages[:len(r.Messages)-2*keep] {
			for _, c := range m.ToolCalls {
				if c.Name == "write_file" && (!strings.Contains(c.Arguments, "[shortened: ") || !strings.Contains(c.Arguments, `"path":"notes/chunk_`)) {
					t.Errorf("request %d: old write_file arguments not shortened: %s", i+1, c.Arguments)
				}
			}
		}
	}
	if clearings == 0 || clearings != cm.Stats().Clearings {
		t.Fatalf("%d clearings seen in the requests, manager counted %d", clearings, cm.Stats().Clearings)
	}
	// Batches: the prompt stays the same between clearings most of the time.
	if share := float64(unchanged) / float64(len(work)-1); share < 0.8 {
		t.Errorf("prompt prefix unchanged in %.2f of the calls, want ≥ 0.8", share)
	}
	// Every clearing is journaled with its figures.
	n := 0
	for _, r := range e.transcript(t) {
		if r.Type == transcript.TypeCompaction && r.Kind == "clear" {
			n++
			if r.TokensAfter >= r.TokensBefore || len(r.Edits) == 0 {
				t.Errorf("clearing record %+v", r)
			}
		}
	}
	if n != clearings {
		t.Errorf("%d clearing records, want %d", n, clearings)
	}
}

func TestNoClearingBelowTheTrigger(t *testing.T) {
	t.Parallel()
	e := newEnv(t, compaction.Config{KeepToolResults: 2, SummarizeAt: 100000, ContextWindow: 200000}, readingJob(6))
	a, cm := e.agent(t)
	if _, err := a.Start(context.Background(), llm.Message{Content: "go"}); err != nil {
		t.Fatal(err)
	}
	work := e.model.workRequests()
	for i := 1; i < len(work); i++ {
		if !isPrefix(work[i-1].Messages, work[i].Messages) {
			t.Fatalf("request %d changed earlier messages below the trigger", i+1)
		}
	}
	if s := cm.Stats(); s.Clearings != 0 || s.Summaries != 0 {
		t.Errorf("stats %+v below the trigger", s)
	}
}

// summaryConfig clears rarely and summarises soon after.
var summaryConfig = compaction.Config{KeepToolResults: 2, ClearAt: 4000, SummarizeAt: 5000, ContextWindow: 16000}

// summaryEnv reads enough chunks to pass a low summary threshold.
func summaryEnv(t *testing.T) *env {
	return newEnv(t, summaryConfig, readingJob(16))
}

// summaryFollowers returns the work requests that came right after a
// summary: those whose second message is a summary.
func summaryFollowers(work []fakellm.Request) []int {
	var at []int
	for i, r := range work {
		if len(r.Messages) > 1 && strings.HasPrefix(r.Messages[1].Content, "Summary of the earlier conversation") &&
			(i == 0 || len(work[i-1].Messages) < 2 || work[i-1].Messages[1].Content != r.Messages[1].Content) {
			at = append(at, i)
		}
	}
	return at
}

func TestSummaryCarriesThePlanAndCurrentTask(t *testing.T) {
	t.Parallel()
	e := summaryEnv(t)
	// The plan as it stands when each request is sent.
	plans := map[int]string{}
	e.model.seen = func(r fakellm.Request) {
		plan, err := planner.New(e.job, nil).Load()
		if err == nil {
			plans[len(e.model.work)] = planner.Checklist(plan)
		}
	}
	a, cm := e.agent(t)
	if _, err := a.Start(context.Background(), llm.Message{Content: "go"}); err != nil {
		t.Fatal(err)
	}
	work := e.model.workRequests()
	after := summaryFollowers(work)
	if len(after) == 0 || cm.Stats().Summaries != len(after) {
		t.Fatalf("summaries: %d followers, manager counted %d", len(after), cm.Stats().Summaries)
	}
	e.model.mu.Lock()
	summaries := e.model.summaries
	e.model.mu.Unlock()
	if len(summaries) != len(after) {
		t.Errorf("%d summary requests for %d summaries", len(summaries), len(after))
	}
	for _, i := range after {
		r := work[i]
		if r.Messages[0].Content != "go" {
			t.Errorf("request %d: first message %q not kept", i+1, r.Messages[0].Content)
		}
		brief := r.Messages[1].Content
		if !strings.Contains(brief, "SUMMARY: chunks were read") {
			t.Errorf("request %d: the model's summary is missing", i+1)
		}
		// Every line of the plan, with its status, as it stood.
		for _, line := range strings.Split(strings.TrimSpace(plans[i]), "\n") {
			if !strings.Contains(brief, line) {
				t.Errorf("request %d: plan line %q missing from the summary message:\n%s", i+1, line, brief)
			}
		}
		for _, want := range []string{"[x] 1. Prepare the chunks", "[>] 2. Read every chunk", "[ ] 3. Write the output", "Current task: 2. Read every chunk", "chunks/: 20 entries"} {
			if !strings.Contains(brief, want) {
				t.Errorf("request %d: summary message lacks %q", i+1, want)
			}
		}
		if tk := tokens.Default().Count(strings.Join(contents(r.Messages), "\n")); tk > summaryConfig.SummarizeAt {
			t.Errorf("request %d: %d tokens after a summary", i+1, tk)
		}
	}
	// The summary request holds no whole chunk.
	for _, s := range summaries {
		if strings.Contains(s.Messages[0].Content, "Section 1.20:") {
			t.Errorf("the summary request carries file contents")
		}
	}
}

// What compaction does shows in the data of the messages: a cleared
// result is marked cleared and keeps no value, the summary message carries
// the plan of its brief, a summary request the turns it renders.
func TestCompactionShowsInTheData(t *testing.T) {
	t.Parallel()
	e := summaryEnv(t)
	var requests []llm.Request
	e.summaryRequests = func(r llm.Request) { requests = append(requests, r) }
	a, cm := e.agent(t)
	if _, err := a.Start(context.Background(), llm.Message{Content: "go"}); err != nil {
		t.Fatal(err)
	}
	if cm.Stats().Summaries == 0 || cm.Stats().Clearings == 0 || len(requests) == 0 {
		t.Fatalf("stats %+v, %d summary requests: the run must clear and summarise", cm.Stats(), len(requests))
	}
	for i, r := range requests {
		var turns []llm.Message
		d := r.Messages[0].Data
		if d.Kind != compaction.KindTurns || !d.Decode(&turns) || len(turns) == 0 {
			t.Fatalf("summary request %d: data %+v", i+1, d)
		}
		calls := 0
		for _, m := range turns {
			calls += len(m.ToolCalls)
			if m.Data.Kind != "" || m.Data.Value != nil {
				t.Errorf("summary request %d: a turn keeps its data: %+v", i+1, m.Data)
			}
		}
		if n := strings.Count(r.Messages[0].Content, "\ncall "); n != calls {
			t.Errorf("summary request %d: %d calls rendered, %d in the data", i+1, n, calls)
		}
	}
	conv, _ := agent.Rebuild(e.transcript(t))
	var summary compaction.SummaryData
	if d := conv.Messages[1].Data; d.Kind != compaction.KindSummary || !d.Decode(&summary) {
		t.Fatalf("summary message data = %+v", d)
	}
	var plan []string
	for _, task := range summary.Plan {
		plan = append(plan, fmt.Sprintf("%d %s %s", task.Number, task.Status, task.Text))
	}
	if want := "1 completed Prepare the chunks|2 in_progress Read every chunk|3 pending Write the output"; strings.Join(plan, "|") != want {
		t.Errorf("the summary's plan = %q, want %q", strings.Join(plan, "|"), want)
	}
	whole, cleared := toolResults(conv.Messages)
	if len(cleared) == 0 {
		t.Fatal("nothing cleared in the rebuilt conversation")
	}
	for _, m := range cleared {
		if !m.Data.Cleared || m.Data.Value != nil {
			t.Errorf("cleared %.60q has data %+v", m.Content, m.Data)
		}
	}
	for _, m := range whole {
		var lines tools.FileLines
		if m.Data.Cleared || m.ToolName == "read_file" && (!m.Data.Decode(&lines) || len(lines.Lines) == 0) {
			t.Errorf("whole %.60q has data %+v", m.Content, m.Data)
		}
	}
}

func contents(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Content)
		for _, c := range m.ToolCalls {
			out = append(out, c.Arguments)
		}
	}
	return out
}

func TestFailedSummaryFallsBackToTheBrief(t *testing.T) {
	t.Parallel()
	e := summaryEnv(t)
	e.model.summary = func(fakellm.Request) fakellm.Reply {
		return fakellm.Reply{Status: 500, Body: `{"error":{"message":"summariser down"}}`}
	}
	a, cm := e.agent(t)
	out, err := a.Start(context.Background(), llm.Message{Content: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != agent.StepLimit {
		t.Errorf("outcome %v (%s), want the step limit after the whole script", out.Kind, out.Reason)
	}
	work := e.model.workRequests()
	after := summaryFollowers(work)
	if len(after) == 0 || cm.Stats().Summaries == 0 {
		t.Fatal("no summary happened")
	}
	// Two attempts of the client per try, two tries per summary.
	e.model.mu.Lock()
	got := len(e.model.summaries)
	e.model.mu.Unlock()
	if want := 4 * len(after); got != want {
		t.Errorf("%d summary requests, want %d", got, want)
	}
	brief := work[after[0]].Messages[1].Content
	for _, want := range []string{"The summary could not be written", "[>] 2. Read every chunk", "Current task: 2."} {
		if !strings.Contains(brief, want) {
			t.Errorf("fallback lacks %q:\n%s", want, brief)
		}
	}
	found := false
	for _, r := range e.transcript(t) {
		if r.Kind == "summary" && strings.Contains(r.Note, "the brief stands in") {
			found = true
		}
	}
	if !found {
		t.Error("the transcript does not record the fallback")
	}
}

func TestOverflowSummarisesAndRetries(t *testing.T) {
	t.Parallel()
	// Thresholds out of reach: only the server's answer starts a summary.
	e := newEnv(t, compaction.Config{SummarizeAt: 100000, ContextWindow: 200000}, readingJob(10))
	// A message without the window: the thresholds stay as they are.
	overflowed := e.overflowOnce("Ollama", 0)
	a, cm := e.agent(t)
	out, err := a.Start(context.Background(), llm.Message{Content: "go"})
	if err != nil {
		t.Fatal(err)
	}
	e.model.mu.Lock()
	n, next := *overflowed, e.model.next
	e.model.mu.Unlock()
	if n != 1 {
		t.Fatalf("the server overflowed %d times", n)
	}
	if out.Kind != agent.StepLimit || cm.Stats().Summaries != 1 {
		t.Fatalf("outcome %v (%s), stats %+v", out.Kind, out.Reason, cm.Stats())
	}
	work := e.model.workRequests()
	after := summaryFollowers(work)
	if len(after) != 1 {
		t.Fatalf("%d requests follow a summary", len(after))
	}
	r := work[after[0]]
	if len(r.Messages) > 12 || !strings.Contains(r.Messages[1].Content, "Workspace brief") {
		t.Errorf("the retried request has %d messages", len(r.Messages))
	}
	if next != len(e.model.steps) {
		t.Errorf("the script stopped at step %d of %d", next, len(e.model.steps))
	}
}

func TestResumeStartsFromTheSummary(t *testing.T) {
	t.Parallel()
	e := summaryEnv(t)
	a, cm := e.agent(t)
	a.Limits.MaxSteps = len(e.model.steps) - 2
	if _, err := a.Start(context.Background(), llm.Message{Content: "go"}); err != nil {
		t.Fatal(err)
	}
	if cm.Stats().Summaries == 0 || cm.Stats().Clearings == 0 {
		t.Fatalf("stats %+v: the run must summarise and clear before it stops", cm.Stats())
	}
	work := e.model.workRequests()
	last := work[len(work)-1].Messages

	// The rebuilt conversation is the one the model last saw, plus its
	// answer and the tool results.
	conv, _ := agent.Rebuild(e.transcript(t))
	if !isPrefix(last, conv.Messages) {
		t.Fatalf("rebuilt conversation (%d messages) does not continue the last prompt (%d messages)", len(conv.Messages), len(last))
	}
	if !strings.HasPrefix(conv.Messages[1].Content, "Summary of the earlier conversation") {
		t.Errorf("rebuilt conversation starts with %q", conv.Messages[1].Content)
	}

	// A new process resumes from the compacted state.
	e.model.mu.Lock()
	before := len(e.model.work)
	e.model.mu.Unlock()
	b, _ := e.agent(t)
	b.Limits.MaxSteps = len(e.model.steps)
	if _, err := b.Resume(context.Background(), e.transcript(t), llm.Message{Content: "go"}); err != nil {
		t.Fatal(err)
	}
	first := e.model.workRequests()[before].Messages
	if !strings.HasPrefix(first[1].Content, "Summary of the earlier conversation") || first[len(first)-1].Content != agent.ResumeNote {
		t.Errorf("first request after resume: second message %.80q, last %.80q", first[1].Content, first[len(first)-1].Content)
	}
	for _, m := range first {
		if strings.Contains(m.Content, "Reading chunk 1.") || strings.Contains(m.Content, "Planning.") {
			t.Errorf("the resumed conversation holds raw history: %.80q", m.Content)
		}
	}
	if len(first) > len(last)+4 {
		t.Errorf("resumed with %d messages; the last prompt had %d", len(first), len(last))
	}
}

func TestConfigCaps(t *testing.T) {
	t.Parallel()
	c := compaction.Config{ContextWindow: 32000, SummarizeAt: 80000, ResultBudget: 20000}.Resolved()
	if c.SummarizeAt != 25600 || c.ResultBudget != 9600 || c.ClearAt != 12800 || c.KeepToolResults != 5 {
		t.Errorf("resolved %+v", c)
	}
	d := compaction.Config{}.Resolved()
	if d.ContextWindow != 128000 || d.SummarizeAt != 80000 || d.ResultBudget != 8000 || d.ClearAt != 40000 {
		t.Errorf("defaults %+v", d)
	}
}

func TestSavedResultNameIsSafe(t *testing.T) {
	t.Parallel()
	e := newEnv(t, compaction.Config{ResultBudget: 100}, nil)
	_, cm := e.agent(t)
	long := strings.Repeat("word ", 2000)
	for _, id := range []string{"../../etc/passwd", "a/b", "", strings.Repeat("x", 300)} {
		out := cm.ToolResult(llm.ToolCall{ID: id, Name: "read_file"}, long)
		i := strings.Index(out, ".agent/results/")
		if i < 0 {
			t.Fatalf("id %q: no pointer in %q", id, out)
		}
		name := out[i+len(".agent/results/") : i+strings.Index(out[i:], ".txt")]
		if strings.ContainsAny(name, "/.\\") || name == "" || len(name) > 64 {
			t.Errorf("id %q saved as %q", id, name)
		}
		if _, err := os.Stat(filepath.Join(e.job.Dir, ".agent", "results", name+".txt")); err != nil {
			t.Errorf("id %q: %v", id, err)
		}
	}
}

// A call with megabytes of arguments is shortened as soon as it has run, so
// that no summary is needed to get rid of it (a summary keeps the latest
// exchanges, which would hold it still).
func TestOversizedArgumentsAreShortenedAfterTheCall(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("word ", 200_000) // about 200,000 tokens
	steps := []fakellm.Reply{
		step("Writing.", "write_file", map[string]any{"path": "notes/huge.md", "content": huge}),
		step("Reading.", "read_file", map[string]any{"path": "chunks/chunk_001.md"}),
	}
	e := newEnv(t, compaction.Config{SummarizeAt: 20000, ContextWindow: 32000}, steps)
	a, cm := e.agent(t)
	if _, err := a.Start(context.Background(), llm.Message{Content: "go"}); err != nil {
		t.Fatal(err)
	}
	work := e.model.workRequests()
	if len(work) < 2 {
		t.Fatalf("%d requests", len(work))
	}
	second := work[1].Messages
	var args map[string]string
	json.Unmarshal([]byte(second[1].ToolCalls[0].Arguments), &args)
	if args["path"] != "notes/huge.md" || !strings.HasPrefix(args["content"], "[shortened: ") || second[1].Content != "Writing." {
		t.Errorf("the call after it ran: %.200v", second[1])
	}
	if s := cm.Stats(); s.ShortenedCalls != 1 || s.Summaries != 0 {
		t.Errorf("stats %+v", s)
	}
	e.model.mu.Lock()
	n := len(e.model.summaries)
	e.model.mu.Unlock()
	if n != 0 {
		t.Errorf("%d summary requests", n)
	}
	// A resumed job rebuilds the shortened call.
	conv, _ := agent.Rebuild(e.transcript(t))
	if strings.Contains(conv.Messages[1].ToolCalls[0].Arguments, "word word") {
		t.Error("the rebuilt conversation holds the whole arguments")
	}
}

// With FollowTools the prompt counts the tools each request sends.
func TestPromptCountsToolsSentNow(t *testing.T) {
	t.Parallel()
	defs := []llm.ToolDef{{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object"}`)}}
	cm := compaction.New(compaction.Options{Counter: tokens.Default(), System: "system", Tools: defs})
	conv := &agent.Conversation{}
	fixed := cm.PromptTokens(conv)
	sent := defs[:0:0]
	cm.FollowTools(func() []llm.ToolDef { return sent })
	if got := cm.PromptTokens(conv); got >= fixed {
		t.Fatalf("no tools sent: %d tokens, with the fixed set %d", got, fixed)
	}
	sent = defs
	if got := cm.PromptTokens(conv); got != fixed {
		t.Fatalf("the same tools sent: %d tokens, want %d", got, fixed)
	}
}

// A context-length error that states the window makes it the window for
// the rest of the run, with the figures derived from it.
func TestOverflowLearnsTheWindow(t *testing.T) {
	t.Parallel()
	e := newEnv(t, compaction.Config{SummarizeAt: 100000, ContextWindow: 200000}, readingJob(10))
	e.overflowOnce("SGLang", 9000)
	a, cm := e.agent(t)
	var learned []int
	cm.OnContextWindow = func(n int) { learned = append(learned, n) }
	if _, err := a.Start(context.Background(), llm.Message{Content: "go"}); err != nil {
		t.Fatal(err)
	}
	c := cm.Config()
	if len(learned) != 1 || learned[0] != 9000 || c.ContextWindow != 9000 || c.SummarizeAt != 7200 || c.ResultBudget != 2700 || c.ClearAt != 3600 {
		t.Fatalf("learned %v; config %+v", learned, c)
	}
	if cm.Stats().Summaries == 0 {
		t.Fatal("no summary after the overflow")
	}
}
