package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"creator/internal/agent"
	"creator/internal/donecheck"
	"creator/internal/fakellm"
	"creator/internal/llm"
	"creator/internal/output"
	"creator/internal/reqstore"
	"creator/internal/tokens"
	"creator/internal/transcript"
	"creator/planner"
	"creator/tools"
	"creator/workspace"
)

const (
	docName = "policy.txt"
	quote   = "Records must be kept for ten years."
)

type env struct {
	job *workspace.Job
	srv *fakellm.Server
}

// newEnv creates a job and a fake server answering with handler.
func newEnv(t *testing.T, handler fakellm.Handler) *env {
	t.Helper()
	base := t.TempDir()
	doc := filepath.Join(base, docName)
	os.WriteFile(doc, []byte(quote+"\n"), 0o644)
	job, err := workspace.Create(filepath.Join(base, "ws"), workspace.CreateOptions{ID: "a", Inputs: []string{doc}, Instructions: []byte("# Instructions\nPlan first.\n")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { job.Close() })
	srv := fakellm.New(handler)
	t.Cleanup(func() {
		srv.Close()
		for _, v := range srv.Violations() {
			t.Errorf("protocol violation: %s", v)
		}
	})
	return &env{job: job, srv: srv}
}

func (e *env) agent(t *testing.T) *agent.Agent {
	t.Helper()
	pl := planner.New(e.job, nil)
	docs, err := tools.DocumentFilesOf(e.job)
	if err != nil {
		t.Fatal(err)
	}
	all := append(tools.WorkspaceTools(e.job.Files), tools.PlanningTools(pl, nil, nil)...)
	all = append(all, tools.DocumentTools(docs, tokens.Default())...)
	reg, err := tools.NewRegistry(append(all, tools.RequirementTools(reqstore.Open(e.job), nil)...)...)
	if err != nil {
		t.Fatal(err)
	}
	return &agent.Agent{
		Model:      llm.NewClient(llm.ClientConfig{BaseURL: e.srv.URL(), Model: "fake", Sleep: func(context.Context, time.Duration) error { return nil }}),
		Tools:      reg,
		Completion: donecheck.Checker{Plan: pl.Load, Output: func() ([]byte, error) { return e.job.ReadInternal(output.RequirementsFile) }},
		Journal:    transcript.NewWriter(e.job),
		System:     "You are a test agent.",
	}
}

func (e *env) file(rel string) string {
	data, err := os.ReadFile(filepath.Join(e.job.Dir, rel))
	if err != nil {
		return ""
	}
	return string(data)
}

func (e *env) transcript(t *testing.T) []transcript.Record {
	t.Helper()
	recs, err := transcript.Load(e.job)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// runSmallJob runs a on fakellm.SmallJob and checks that it completes
// after 5 steps with that job's output.
func (e *env) runSmallJob(t *testing.T, a *agent.Agent) {
	t.Helper()
	out, err := a.Start(context.Background(), llm.Message{Content: "Job a. Input: input/policy.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != agent.Completed || out.Totals.Steps != 5 {
		t.Fatalf("outcome = %+v, want completed after 5 steps", out)
	}
	if got := e.file("output/requirements.json"); got != fakellm.SmallJobRequirements(docName, quote) {
		t.Fatalf("output = %s", got)
	}
}

func TestSmallJobCompletes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, fakellm.Script(fakellm.SmallJob(docName, quote)...))
	e.runSmallJob(t, e.agent(t))
	if !strings.Contains(e.file("progress.md"), "task 3 completed: Write the output") {
		t.Fatalf("progress.md = %s", e.file("progress.md"))
	}
	// The system prompt and the first message open every request unchanged.
	for _, r := range e.srv.Requests() {
		if r.System != "You are a test agent." || r.Messages[0].Content != "Job a. Input: input/policy.txt" || len(r.Tools) != 16 {
			t.Fatalf("request %d does not start with the fixed prefix", r.N)
		}
	}
	// The transcript ties each answer to its tool results by step.
	recs := e.transcript(t)
	steps := map[int]int{}
	for _, r := range recs {
		if r.Type == transcript.TypeMessage && r.Message.Role == llm.RoleTool {
			steps[r.Step]++
		}
	}
	if steps[1] != 2 || steps[4] != 6 || steps[5] != 4 {
		t.Fatalf("tool results per step = %v", steps)
	}
	if last := recs[len(recs)-1]; last.Type != transcript.TypeStop || last.Note != "completed" {
		t.Fatalf("last record = %+v", last)
	}
}

// writeReadBadUnknown is one step of calls: a write, a read of it, a write
// whose arguments are not JSON, and a tool that does not exist.
func writeReadBadUnknown() []llm.ToolCall {
	return []llm.ToolCall{
		fakellm.Call("", "write_file", `{"path":"notes/a.md","content":"first"}`),
		fakellm.Call("", "read_file", `{"path":"notes/a.md"}`),
		fakellm.Call("", "write_file", `{"path":"notes/a.md",`), // not JSON
		fakellm.Call("", "delete_everything", `{}`),
	}
}

func TestToolCallsRunInOrderAndErrorsGoBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t, fakellm.Script(
		writeReadBadUnknown(),
	))
	a := e.agent(t)
	a.Limits.MaxSteps = 1
	out, err := a.Start(context.Background(), llm.Message{Content: "go"})
	if err != nil || out.Kind != agent.StepLimit {
		t.Fatalf("outcome = %+v, %v", out, err)
	}
	var results []string
	for _, r := range e.transcript(t) {
		if r.Type == transcript.TypeMessage && r.Message.Role == llm.RoleTool {
			results = append(results, r.Message.Content)
		}
	}
	if len(results) != 4 || !strings.HasPrefix(results[0], "created notes/a.md") || !strings.Contains(results[1], "     1\tfirst") ||
		!strings.Contains(results[2], "error: not run, because its arguments stop after 21 characters, before the JSON object is complete") ||
		!strings.Contains(results[3], `error: there is no tool named "delete_everything"`) {
		t.Fatalf("results = %q", results)
	}
}

// Every tool message carries data: the tool's own (read_file's lines), or
// what the loop made of a call that did not run as sent. The transcript
// keeps it, so a rebuilt conversation holds the same; the first message
// keeps the data it was started with.
func TestToolResultsCarryData(t *testing.T) {
	t.Parallel()
	e := newEnv(t, fakellm.Script(
		append(writeReadBadUnknown(), fakellm.Call("", "read_file", `{"path":"notes/missing.md"}`)),
	))
	a := e.agent(t)
	a.Limits.MaxSteps = 2
	first := llm.Message{Content: "go", Data: llm.MessageData{Value: llm.ValueOf(workspace.Assignment{Job: "a", Inputs: []string{docName}})}}
	if _, err := a.Start(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	var results []llm.Message
	for _, r := range e.transcript(t) {
		if r.Type == transcript.TypeMessage && r.Message.Role == llm.RoleTool {
			results = append(results, *r.Message)
			if r.ToolError != r.Message.Data.Failed {
				t.Errorf("%s: tool_error %v, data %+v", r.Message.ToolCallID, r.ToolError, r.Message.Data)
			}
		}
	}
	// The script sends its step again, since a call of it did not run.
	if len(results) != 10 {
		t.Fatalf("%d results", len(results))
	}
	var lines tools.FileLines
	want := tools.FileLines{Path: "notes/a.md", First: 1, Lines: []string{"first"}, Total: 1}
	if d := results[0].Data; d.Failed || d.Kind != "" || d.Value != nil {
		t.Errorf("write_file's data = %+v", d)
	}
	if d := results[1].Data; d.Failed || d.Kind != "" || !d.Decode(&lines) || !reflect.DeepEqual(lines, want) {
		t.Errorf("read_file's data = %+v (%+v)", d, lines)
	}
	if d := results[2].Data; !d.Failed || d.Kind != agent.KindNotRun || !agent.NotRun(d) {
		t.Errorf("data of a call whose arguments are not JSON = %+v", d)
	}
	if d := results[3].Data; !d.Failed || d.Kind != agent.KindUnknownTool || agent.NotRun(d) {
		t.Errorf("data of a call of no tool = %+v", d)
	}
	if d := results[4].Data; !d.Failed || d.Kind != "" {
		t.Errorf("data of a failed read = %+v", d)
	}
	// The same read again: answered as a repeat, with the read's data.
	lines = tools.FileLines{}
	if d := results[6].Data; d.Failed || d.Kind != agent.KindRepeat || !d.Decode(&lines) || !reflect.DeepEqual(lines, want) || !agent.IsRepeat(results[6].Content) {
		t.Errorf("data of a repeat = %+v (%+v)", d, lines)
	}
	conv, _ := agent.Rebuild(e.transcript(t))
	if !reflect.DeepEqual(conv.Messages[0], llm.Message{Role: llm.RoleUser, Content: "go", Data: first.Data}) {
		t.Errorf("first message = %+v", conv.Messages[0])
	}
	var rebuilt []llm.Message
	for _, m := range conv.Messages {
		if m.Role == llm.RoleTool {
			rebuilt = append(rebuilt, m)
		}
	}
	if !reflect.DeepEqual(rebuilt, results) {
		t.Errorf("rebuilt tool messages differ from those recorded")
	}
}

func TestTextOnlyAnswersGetRemindersThenStop(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: "I think I am finished."} })
	out, err := e.agent(t).Start(context.Background(), llm.Message{Content: "go"})
	if err != nil || out.Kind != agent.ModelGaveUp || !out.Kind.Resumable() {
		t.Fatalf("outcome = %+v, %v", out, err)
	}
	reqs := e.srv.Requests()
	if len(reqs) != agent.MaxReminders+1 {
		t.Fatalf("%d model calls, want %d", len(reqs), agent.MaxReminders+1)
	}
	last := reqs[len(reqs)-1].Messages
	reminder := last[len(last)-1].Content
	if !strings.Contains(reminder, "there is no plan yet") || !strings.Contains(reminder, "Reminder 3 of 3") {
		t.Fatalf("last reminder = %q", reminder)
	}
}

func TestReminderNamesOpenTasks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(r fakellm.Request) fakellm.Reply {
		if r.N == 1 {
			return fakellm.Reply{ToolCalls: []llm.ToolCall{fakellm.Call("c1", "write_plan", `{"tasks":["Extract","Chunk"]}`)}}
		}
		return fakellm.Reply{Content: "done"}
	})
	a := e.agent(t)
	a.Limits.MaxSteps = 2
	a.Start(context.Background(), llm.Message{Content: "go"})
	recs := e.transcript(t)
	var reminder string
	for _, r := range recs {
		if r.Type == transcript.TypeMessage && r.Message.Role == llm.RoleUser && r.Step == 2 {
			reminder = r.Message.Content
			if r.Message.Data.Kind != agent.KindReminder {
				t.Errorf("the reminder's data = %+v", r.Message.Data)
			}
		}
	}
	if !strings.Contains(reminder, "task 1 (pending): Extract") || !strings.Contains(reminder, "output/requirements.json does not exist yet") {
		t.Fatalf("reminder = %q", reminder)
	}
}

func TestRepeatedToolFailureStops(t *testing.T) {
	t.Parallel()
	bad := fakellm.Call("", "read_file", `{"path":"../secret"}`)
	e := newEnv(t, fakellm.Script([]llm.ToolCall{bad}, []llm.ToolCall{bad, fakellm.Call("", "read_plan", `{}`)}, []llm.ToolCall{bad, fakellm.Call("", "get_progress", `{}`)}, []llm.ToolCall{bad}))
	out, err := e.agent(t).Start(context.Background(), llm.Message{Content: "go"})
	if err != nil || out.Kind != agent.ToolFailures || !strings.Contains(out.Reason, "read_file failed in 3 answers in a row") || !strings.Contains(out.Reason, "leaves the workspace") {
		t.Fatalf("outcome = %+v, %v", out, err)
	}
	if out.Totals.Steps != 3 {
		t.Fatalf("stopped after %d steps, want 3", out.Totals.Steps)
	}
	// The second failing answer warns the model; every call of the last
	// answer runs before the job stops, and an identical failing call is
	// answered as a repeat.
	var warned, repeat bool
	var results []string
	for _, r := range e.transcript(t) {
		if r.Type == transcript.TypeMessage && r.Message.Role == llm.RoleTool {
			warned = warned || strings.Contains(r.Message.Content, "if all its calls fail in your next answer too, the job stops")
			repeat = repeat || strings.HasPrefix(r.Message.Content, "error: this call repeats your call in step 1, which failed the same way: path '../secret' leaves the workspace")
			results = append(results, r.Message.Content)
		}
	}
	if !warned || !repeat || len(results) != 5 || !strings.HasPrefix(results[4], "No plan yet") {
		t.Fatalf("warned = %v, repeat = %v, results = %q", warned, repeat, results)
	}
}

// TestParallelFailuresCountOnceAnAnswer: a model that sends a dozen calls
// with the same mistake in one answer has not yet read an error; the
// answer counts one strike, and the job goes on when the next answer
// corrects the mistake.
func TestParallelFailuresCountOnceAnAnswer(t *testing.T) {
	t.Parallel()
	var burst, fixed []llm.ToolCall
	for i := range 12 {
		burst = append(burst, fakellm.Call("", "write_file", fmt.Sprintf(`{"path":"input/note_%d.md","content":"x"}`, i)))
		fixed = append(fixed, fakellm.Call("", "write_file", fmt.Sprintf(`{"path":"notes/note_%d.md","content":"x"}`, i)))
	}
	steps := append(fakellm.SmallJob(docName, quote)[:1], burst, burst[:3], fixed)
	steps = append(steps, fakellm.SmallJob(docName, quote)[1:]...)
	e := newEnv(t, fakellm.Script(steps...))
	out, err := e.agent(t).Start(context.Background(), llm.Message{Content: "go"})
	if err != nil || out.Kind != agent.Completed {
		t.Fatalf("outcome = %+v, %v", out, err)
	}
	var failed, notRun int
	for _, r := range e.transcript(t) {
		if r.Type == transcript.TypeMessage && r.Message.Role == llm.RoleTool && strings.HasPrefix(r.Message.Content, "error:") {
			failed++
			if agent.DidNotRun(r.Message.Content) {
				notRun++
			}
		}
	}
	if failed != 15 || notRun != 0 || e.file("notes/note_11.md") != "x" {
		t.Fatalf("%d failed results (%d not run), want 15 (0)", failed, notRun)
	}
}

// A tool that fails in 7 of the job's last 10 answers without ever failing
// in three in a row is paused: its calls are refused for a few answers,
// which neither counts as strikes (the job goes on) nor lasts for the rest
// of the run (the tool works again after).
func TestToolThatKeepsFailingIsRefused(t *testing.T) {
	t.Parallel()
	var steps [][]llm.ToolCall
	for i := range 5 { // fail, fail, succeed: never three failing answers in a row
		steps = append(steps,
			[]llm.ToolCall{fakellm.Call("", "read_file", fmt.Sprintf(`{"path":"missing_%d_a.md"}`, i))},
			[]llm.ToolCall{fakellm.Call("", "read_file", fmt.Sprintf(`{"path":"missing_%d_b.md"}`, i))},
			[]llm.ToolCall{fakellm.Call("", "read_file", fmt.Sprintf(`{"path":"instructions.md","offset":%d}`, i%2+1))})
	}
	steps = append(steps, []llm.ToolCall{fakellm.Call("", "read_file", `{"path":"instructions.md","limit":1}`)})
	e := newEnv(t, fakellm.Script(steps...))
	a := e.agent(t)
	a.Limits.MaxSteps = len(steps)
	out, _ := a.Start(context.Background(), llm.Message{Content: "go"})
	if out.Kind != agent.StepLimit {
		t.Fatalf("outcome %+v, want the step limit", out)
	}
	var refused []int
	var last llm.Message
	for _, r := range e.transcript(t) {
		if r.Type == transcript.TypeMessage && r.Message.Role == llm.RoleTool {
			last = *r.Message
			if strings.Contains(r.Message.Content, "read_file is paused") {
				refused = append(refused, r.Step)
				if d := r.Message.Data; d.Kind != agent.KindDisabled || !d.Failed || !r.ToolError {
					t.Errorf("a refused call's data = %+v", d)
				}
			}
		}
	}
	if !slices.Equal(refused, []int{11, 12, 13, 14, 15}) {
		t.Fatalf("read_file refused in steps %v, want 11 to 15", refused)
	}
	if last.Data.Failed {
		t.Fatalf("read_file still refused after its pause: %q", last.Content)
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	loop := fakellm.Script(func() [][]llm.ToolCall {
		var s [][]llm.ToolCall
		for range 50 {
			s = append(s, []llm.ToolCall{fakellm.Call("", "get_progress", `{}`)})
		}
		return s
	}()...)
	t.Run("steps", func(t *testing.T) {
		e := newEnv(t, loop)
		a := e.agent(t)
		a.Limits.MaxSteps = 4
		out, _ := a.Start(context.Background(), llm.Message{Content: "go"})
		if out.Kind != agent.StepLimit || out.Totals.Steps != 4 || len(e.srv.Requests()) != 4 {
			t.Fatalf("outcome = %+v after %d requests", out, len(e.srv.Requests()))
		}
	})
	t.Run("tokens", func(t *testing.T) {
		e := newEnv(t, loop)
		a := e.agent(t)
		a.Limits.MaxTokens = 1
		out, _ := a.Start(context.Background(), llm.Message{Content: "go"})
		if out.Kind != agent.TokenLimit || out.Totals.Steps != 1 {
			t.Fatalf("outcome = %+v", out)
		}
	})
	t.Run("cost", func(t *testing.T) {
		e := newEnv(t, loop)
		a := e.agent(t)
		// Every call costs 4 cents; the budget of 10 cents allows three.
		a.Price = func(model string, u llm.Usage) float64 { return 0.04 }
		a.Limits.MaxCost = 0.10
		out, _ := a.Start(context.Background(), llm.Message{Content: "go"})
		if out.Kind != agent.CostLimit || out.Totals.Steps != 3 || math.Abs(out.Totals.CostUSD-0.12) > 1e-9 || !strings.Contains(out.Reason, "$0.10") {
			t.Fatalf("outcome = %+v", out)
		}
		// The transcript keeps the cost, so a resumed job counts on from it.
		if _, totals := agent.Rebuild(e.transcript(t)); math.Abs(totals.CostUSD-0.12) > 1e-9 || totals.Steps != 3 {
			t.Fatalf("rebuilt totals %+v", totals)
		}
	})
}

func TestModelFailureIsResumableStop(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Status: 503, Body: "overloaded"} })
	out, err := e.agent(t).Start(context.Background(), llm.Message{Content: "go"})
	if err != nil || out.Kind != agent.ModelFailed || !strings.Contains(out.Reason, "over 5m0s; last: HTTP 503: overloaded") || len(e.srv.Requests()) < 5 {
		t.Fatalf("outcome = %+v, %v after %d requests", out, err, len(e.srv.Requests()))
	}
}

func TestInterruptAndResume(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	e := newEnv(t, fakellm.Script(fakellm.SmallJob(docName, quote)...))
	// Cancel while the third request is being answered.
	e.srv.OnRequest(func(r fakellm.Request) {
		if r.N == 3 {
			cancel()
		}
	})
	out, err := e.agent(t).Start(ctx, llm.Message{Content: "go"})
	if err != nil || out.Kind != agent.Interrupted {
		t.Fatalf("outcome = %+v, %v", out, err)
	}
	recs := e.transcript(t)
	resumed, err := e.agent(t).Resume(context.Background(), recs, llm.Message{Content: "go"})
	if err != nil || resumed.Kind != agent.Completed {
		t.Fatalf("resumed outcome = %+v, %v", resumed, err)
	}
	if e.file("output/requirements.json") != fakellm.SmallJobRequirements(docName, quote) {
		t.Fatal("output differs after resume")
	}
	reqs := e.srv.Requests()
	after := reqs[len(reqs)-3].Messages // the first request after the resume
	if after[len(after)-1].Content != agent.ResumeNote {
		t.Fatalf("first message after resume = %q", after[len(after)-1].Content)
	}
}

func TestResumeAnswersDanglingCalls(t *testing.T) {
	t.Parallel()
	e := newEnv(t, fakellm.Script(fakellm.SmallJob(docName, quote)...))
	w := transcript.NewWriter(e.job)
	// A crash after the first of two tool results was recorded.
	w.Append(transcript.Record{Type: transcript.TypeMessage, Message: &llm.Message{Role: llm.RoleUser, Content: "go"}})
	w.Append(transcript.Record{Type: transcript.TypeMessage, Step: 1, Message: &llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
		{ID: "s1_1", Name: "read_file", Arguments: `{"path":"instructions.md"}`}, {ID: "s1_2", Name: "list_files", Arguments: `{"path":"input"}`}}}})
	w.Append(transcript.Record{Type: transcript.TypeMessage, Step: 1, Message: &llm.Message{Role: llm.RoleTool, ToolCallID: "s1_1", Content: "1\t# Instructions"}})
	os.WriteFile(filepath.Join(e.job.Dir, ".agent", "transcript.jsonl"), append([]byte(e.file(".agent/transcript.jsonl")), `{"type":"message","step":1,"mess`...), 0o644)

	out, err := e.agent(t).Resume(context.Background(), e.transcript(t), llm.Message{Content: "go"})
	if err != nil || out.Kind != agent.Completed {
		t.Fatalf("outcome = %+v, %v", out, err)
	}
	first := e.srv.Requests()[0].Messages
	if len(first) != 5 || first[3].ToolCallID != "s1_2" || first[3].Content != agent.InterruptedResult || first[4].Content != agent.ResumeNote {
		t.Fatalf("first request after resume: %+v", first)
	}
	// The transcript says what these messages are (read line by line: the
	// torn line now stands in its middle).
	var msgs []llm.Message
	for _, line := range strings.Split(e.file(transcript.File), "\n") {
		var r transcript.Record
		if json.Unmarshal([]byte(line), &r) == nil && r.Message != nil {
			msgs = append(msgs, *r.Message)
		}
	}
	if d := msgs[3].Data; msgs[3].ToolCallID != "s1_2" || d.Kind != agent.KindInterrupted || !d.Failed || !agent.NotRun(d) {
		t.Errorf("the interrupted call's data = %+v", d)
	}
	if d := msgs[4].Data; msgs[4].Content != agent.ResumeNote || d.Kind != agent.KindResume {
		t.Errorf("the resume note's data = %+v", d)
	}
}

func TestContextOverflowCallsHook(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(r fakellm.Request) fakellm.Reply {
		if len(r.Messages) > 1 {
			return fakellm.Reply{Status: 400, Body: `{"error":{"message":"maximum context length is 10 tokens"}}`}
		}
		return fakellm.Reply{Content: "ok"}
	})
	a := e.agent(t)
	h := &shortener{}
	a.Hook = h
	a.Limits.MaxSteps = 3
	out, err := a.Start(context.Background(), llm.Message{Content: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if h.overflows == 0 || out.Totals.Steps == 0 {
		t.Fatalf("overflow hook called %d times; outcome %+v", h.overflows, out)
	}
}

// shortener keeps only the first message when the prompt is too long.
type shortener struct{ overflows int }

func (s *shortener) BeforeCall(ctx context.Context, c *agent.Conversation) error { return nil }
func (s *shortener) ToolResult(call llm.ToolCall, result string) string          { return result }
func (s *shortener) PromptTokens(c *agent.Conversation) int                      { return 0 }
func (s *shortener) Overflow(ctx context.Context, c *agent.Conversation, _ error) error {
	s.overflows++
	if len(c.Messages) <= 1 {
		return errors.New("cannot shorten")
	}
	c.Messages = c.Messages[:1]
	return nil
}

// A catalog sends the deferred tools only once called; calls of them by
// exact name run, and the tools sent only grow, in the registry's order.
func TestDeferredToolsRunByNameAndStaySent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, fakellm.Script(fakellm.SmallJob(docName, quote)...))
	a := e.agent(t)
	reg := a.Tools.(*tools.Registry)
	var deferred []string // of those this job registers
	for _, n := range tools.DeferredTools() {
		if _, ok := reg.Get(n); ok {
			deferred = append(deferred, n)
		}
	}
	catalog, err := tools.NewCatalog(reg.Tools(), deferred)
	if err != nil {
		t.Fatal(err)
	}
	a.Tools = catalog
	e.runSmallJob(t, a)
	reqs := e.srv.Requests()
	if first := reqs[0].Tools; slices.Contains(first, "save_requirement") || !slices.Contains(first, tools.SearchToolsName) {
		t.Fatalf("first request's tools = %v", first)
	}
	for i := 1; i < len(reqs); i++ {
		prev, now := reqs[i-1].Tools, reqs[i].Tools
		for _, n := range prev {
			if !slices.Contains(now, n) {
				t.Fatalf("request %d dropped %s: %v", reqs[i].N, n, now)
			}
		}
	}
	if last := reqs[len(reqs)-1].Tools; !slices.Contains(last, "chunk_document") {
		t.Fatalf("chunk_document, called by name, is not sent afterwards: %v", last)
	}
	if got := catalog.Loaded(); !slices.Equal(got, []string{"chunk_document", "save_requirement"}) {
		t.Fatalf("loaded %v", got)
	}
	for _, r := range e.transcript(t) {
		if r.Message != nil && r.Message.Data.Kind == agent.KindUnknownTool {
			t.Fatalf("a deferred tool was answered as unknown: %+v", r.Message)
		}
	}
}

// deniedWrites is a job folder that refuses every write, as a folder
// without write permission, a full disk or a read-only file system does.
type deniedWrites struct{ agent.Tools }

func (d deniedWrites) Call(ctx context.Context, name string, args json.RawMessage) (llm.ToolResult, error) {
	if name == "write_file" {
		return llm.ToolResult{}, &fs.PathError{Op: "open", Path: "notes/a.md", Err: fs.ErrPermission}
	}
	return d.Tools.Call(ctx, name, args)
}

// A write the job's folder refuses stops the job at once, failed, naming
// the cause: no answer of the model mends a folder.
func TestFolderThatCannotBeWrittenStops(t *testing.T) {
	t.Parallel()
	write := fakellm.Call("", "write_file", `{"path":"notes/a.md","content":"x"}`)
	e := newEnv(t, fakellm.Script([]llm.ToolCall{write}, []llm.ToolCall{write}, []llm.ToolCall{write}))
	a := e.agent(t)
	a.Tools = deniedWrites{a.Tools}
	out, err := a.Start(context.Background(), llm.Message{Content: "go"})
	if err != nil || out.Kind != agent.FolderFailed || out.Totals.Steps != 1 || !strings.Contains(out.Reason, "permission denied") {
		t.Fatalf("outcome = %+v, %v", out, err)
	}
	if !agent.FolderError(fmt.Errorf("the disk is full: %w", syscall.ENOSPC)) || agent.FolderError(errors.New("path leaves the workspace")) {
		t.Error("FolderError tells the machine's errors from the call's wrongly")
	}
}
