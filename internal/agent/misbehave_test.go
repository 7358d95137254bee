package agent_test

import (
	"context"
	"strings"
	"testing"

	"creator/internal/agent"
	"creator/internal/fakellm"
	"creator/internal/llm"
	"creator/internal/transcript"
)

func toolResults(t *testing.T, e *env) []string {
	t.Helper()
	var out []string
	for _, r := range e.transcript(t) {
		if r.Type == transcript.TypeMessage && r.Message.Role == llm.RoleTool {
			out = append(out, r.Message.Content)
		}
	}
	return out
}

// A model that calls read_file on the same file again and again gets the
// file once; each repeat is answered in a line, and a run of repeats stops
// the job as a loop, resumable.
func TestRepeatedCallsAreAnsweredShortThenStopAsALoop(t *testing.T) {
	t.Parallel()
	e := newEnv(t, fakellm.Looping(fakellm.Call("", "read_file", `{"path":"instructions.md"}`)))
	out, err := e.agent(t).Start(context.Background(), llm.Message{Content: "go"})
	if err != nil || out.Kind != agent.Loop || !out.Kind.Resumable() || !strings.Contains(out.Reason, `read_file {"path":"instructions.md"}`) {
		t.Fatalf("outcome = %+v, %v", out, err)
	}
	results := toolResults(t, e)
	if out.Totals.Steps != agent.MaxRepeats+1 || len(results) != agent.MaxRepeats+1 {
		t.Fatalf("stopped after %d steps with %d results, want %d", out.Totals.Steps, len(results), agent.MaxRepeats+1)
	}
	if !strings.Contains(results[0], "Plan first.") {
		t.Fatalf("first read = %q", results[0])
	}
	for i, r := range results[1:] {
		if !strings.HasPrefix(r, "This call repeats your call in step 1 exactly, and nothing has changed since") || !agent.IsRepeat(r) || strings.Contains(r, "Plan first.") {
			t.Fatalf("repeat %d = %q", i+1, r)
		}
	}
	if !strings.Contains(results[len(results)-1], "one more such answer stops the job as a loop") {
		t.Fatalf("no warning before the stop: %q", results[len(results)-1])
	}
}

// A repeated read of a file that changed in between is answered in full.
func TestRepeatOfAChangedFileIsAnsweredInFull(t *testing.T) {
	t.Parallel()
	read := fakellm.Call("", "read_file", `{"path":"notes/a.md"}`)
	e := newEnv(t, fakellm.Script(
		[]llm.ToolCall{fakellm.Call("", "write_file", `{"path":"notes/a.md","content":"first"}`)},
		[]llm.ToolCall{read},
		[]llm.ToolCall{fakellm.Call("", "write_file", `{"path":"notes/a.md","content":"second"}`)},
		[]llm.ToolCall{read},
		[]llm.ToolCall{read},
	))
	a := e.agent(t)
	a.Limits.MaxSteps = 5
	a.Start(context.Background(), llm.Message{Content: "go"})
	results := toolResults(t, e)
	if len(results) != 5 || !strings.Contains(results[3], "1\tsecond") || !strings.Contains(results[3], "this call repeats your call in step 2; the result has changed since") ||
		!strings.HasPrefix(results[4], "This call repeats your call in step 4 exactly") {
		t.Fatalf("results = %q", results)
	}
}

// An answer cut off at the output limit: the complete calls run, the cut
// one does not, the history holds only valid JSON (the server refuses
// anything else, as llama.cpp does), and the model is told why. A run of
// answers cut off while reasoning stops with a reason naming the limit.
func TestAnswersCutOffAtTheOutputLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, fakellm.StrictHistory(func(r fakellm.Request) fakellm.Reply {
		if r.N == 1 {
			return fakellm.Reply{FinishReason: "length", ToolCalls: []llm.ToolCall{
				fakellm.Call("c1", "write_file", `{"path":"notes/a.md","content":"whole"}`),
				fakellm.Call("c2", "write_file", `{"path":"notes/b.md","content":"cut off in the mid`),
			}}
		}
		return fakellm.ReasoningPastTheLimit()(r)
	}))
	out, err := e.agent(t).Start(context.Background(), llm.Message{Content: "go"})
	if err != nil || out.Kind != agent.OutputLimit || !strings.Contains(out.Reason, "cut off at its output limit") {
		t.Fatalf("outcome = %+v, %v", out, err)
	}
	if e.file("notes/a.md") != "whole" || e.file("notes/b.md") != "" {
		t.Fatal("the complete call must run and the cut-off one must not")
	}
	results := toolResults(t, e)
	if len(results) != 2 || !agent.DidNotRun(results[1]) || !strings.Contains(results[1], "your answer was cut off at the output limit while you were writing this call") {
		t.Fatalf("results = %q", results)
	}
	second := e.srv.Requests()[1].Messages
	if got := second[1].ToolCalls[1].Arguments; got != "{}" {
		t.Fatalf("cut-off arguments in the history: %q", got)
	}
	last := e.srv.Requests()[len(e.srv.Requests())-1].Messages
	if r := last[len(last)-1].Content; !strings.Contains(r, "Your answer was cut off at the output limit") || strings.Contains(r, "nobody reads text answers") {
		t.Fatalf("reminder = %q", r)
	}
	for _, rec := range e.transcript(t) {
		if rec.Type == transcript.TypeMessage && rec.Step == 1 && rec.Message.Role == llm.RoleAssistant {
			if rec.Original == nil || rec.Original.ToolCalls[1].Arguments != `{"path":"notes/b.md","content":"cut off in the mid` || !strings.Contains(rec.Note, "replaced by {}") {
				t.Fatalf("the transcript does not keep what the model sent: %+v", rec)
			}
		}
	}
}

// Tool calls written as text are run when they name a tool; the
// transcript holds them as calls, with the text as the model sent it.
// A call naming no tool is described back to the model.
func TestToolCallsWrittenAsText(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(r fakellm.Request) fakellm.Reply {
		switch r.N {
		case 1:
			return fakellm.Reply{Content: "I will plan first.\n<tool_call>\n{\"name\": \"write_plan\", \"arguments\": {\"tasks\": [\"Read\"]}}\n</tool_call>"}
		case 2:
			return fakellm.Reply{Content: "```json\n{\"name\": \"reed_file\", \"arguments\": {\"path\": \"instructions.md\"}}\n```"}
		}
		return fakellm.Reply{Content: "done"}
	})
	a := e.agent(t)
	a.Limits.MaxSteps = 3
	a.Start(context.Background(), llm.Message{Content: "go"})
	if !strings.Contains(e.file("plan.json"), `"Read"`) {
		t.Fatal("the call written as text did not run")
	}
	recs := e.transcript(t)
	var first *transcript.Record
	for i, r := range recs {
		if r.Type == transcript.TypeMessage && r.Step == 1 && r.Message.Role == llm.RoleAssistant {
			first = &recs[i]
		}
	}
	if first == nil || len(first.Message.ToolCalls) != 1 || first.Message.ToolCalls[0].Name != "write_plan" || first.Message.Content != "I will plan first." ||
		first.Original == nil || !strings.Contains(first.Original.Content, "<tool_call>") || !strings.Contains(first.Note, "read from the answer's text") {
		t.Fatalf("first answer in the transcript: %+v", first)
	}
	results := toolResults(t, e)
	if len(results) != 1 || !strings.Contains(results[0], "this call came as text in your answer") {
		t.Fatalf("results = %q", results)
	}
	third := e.srv.Requests()[2].Messages
	if r := third[len(third)-1].Content; !strings.Contains(r, `naming "reed_file", which is no tool here`) || !strings.Contains(r, "tool-calling interface") {
		t.Fatalf("reminder = %q", r)
	}
}

// A transcript written before arguments were checked may hold cut-off
// arguments; resuming sends {} in their place.
func TestResumeRepairsArgumentsThatAreNotJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t, fakellm.StrictHistory(fakellm.Script(fakellm.SmallJob(docName, quote)...)))
	w := transcript.NewWriter(e.job)
	w.Append(transcript.Record{Type: transcript.TypeMessage, Message: &llm.Message{Role: llm.RoleUser, Content: "go"}})
	w.Append(transcript.Record{Type: transcript.TypeMessage, Step: 1, Message: &llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
		{ID: "x1", Name: "write_file", Arguments: `{"path":"notes/a.md","content":"cut`}}}})
	w.Append(transcript.Record{Type: transcript.TypeMessage, Step: 1, Message: &llm.Message{Role: llm.RoleTool, ToolCallID: "x1", Content: "error: invalid arguments"}})
	out, err := e.agent(t).Resume(context.Background(), e.transcript(t), llm.Message{Content: "go"})
	if err != nil || out.Kind != agent.Completed {
		t.Fatalf("outcome = %+v, %v", out, err)
	}
	if got := e.srv.Requests()[0].Messages[1].ToolCalls[0].Arguments; got != "{}" {
		t.Fatalf("arguments sent after the resume: %q", got)
	}
}

// An answer cut off at the output limit right after a complete call runs
// that call and says that whatever came after it was lost.
func TestAnswerCutOffBetweenCalls(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(r fakellm.Request) fakellm.Reply {
		if r.N == 1 {
			return fakellm.Reply{FinishReason: "length", ToolCalls: []llm.ToolCall{fakellm.Call("c1", "write_file", `{"path":"notes/a.md","content":"whole"}`)}}
		}
		return fakellm.Reply{Content: "done"}
	})
	a := e.agent(t)
	a.Limits.MaxSteps = 2
	a.Start(context.Background(), llm.Message{Content: "go"})
	results := toolResults(t, e)
	if e.file("notes/a.md") != "whole" || len(results) != 1 || !strings.Contains(results[0], "your answer reached the output limit after this call") {
		t.Fatalf("results = %q", results)
	}
}

// Text with one readable call and one naming no tool: the first runs, and
// its result names the other.
func TestTextWithAReadableAndAnUnknownCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(r fakellm.Request) fakellm.Reply {
		if r.N == 1 {
			return fakellm.Reply{Content: "<tool_call>{\"name\": \"write_plan\", \"arguments\": {\"tasks\": [\"Read\"]}}</tool_call>\n<tool_call>{\"name\": \"format_disk\", \"arguments\": {}}</tool_call>"}
		}
		return fakellm.Reply{Content: "done"}
	})
	a := e.agent(t)
	a.Limits.MaxSteps = 2
	a.Start(context.Background(), llm.Message{Content: "go"})
	results := toolResults(t, e)
	if len(results) != 1 || !strings.Contains(results[0], "plan written") || !strings.Contains(results[0], `your text also has what looks like a tool call that was not run: <tool_call> tags naming "format_disk"`) {
		t.Fatalf("results = %q", results)
	}
}

// A model that alternates a repeated call with a text answer is in a loop
// too: an answer in which nothing ran neither counts as a repeat nor ends
// the run of repeats.
func TestRepeatsBetweenTextAnswersStopAsALoop(t *testing.T) {
	t.Parallel()
	loop := fakellm.Looping(fakellm.Call("", "read_file", `{"path":"instructions.md"}`))
	e := newEnv(t, func(r fakellm.Request) fakellm.Reply {
		if r.N%2 == 0 {
			return fakellm.Reply{Content: "Let me think about what to do next."}
		}
		return loop(r)
	})
	a := e.agent(t)
	a.Limits.MaxSteps = 30
	out, err := a.Start(context.Background(), llm.Message{Content: "go"})
	if err != nil || out.Kind != agent.Loop || out.Totals.Steps != 2*agent.MaxRepeats+1 {
		t.Fatalf("outcome = %+v, %v; want a loop after %d steps", out, err, 2*agent.MaxRepeats+1)
	}
}
