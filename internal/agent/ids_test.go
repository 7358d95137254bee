package agent_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"creator/internal/agent"
	"creator/internal/fakellm"
	"creator/internal/llm"
	"creator/internal/transcript"
)

var madeID = regexp.MustCompile(`^[a-zA-Z0-9]{9}$`)

// kimi answers with the calls of steps in turn, numbering each answer's
// calls afresh as Kimi K2 does (functions.<name>:<index>), so ids repeat
// from one answer to the next; ids sets the ids of one step instead.
func kimi(steps [][]llm.ToolCall, ids map[int][]string) fakellm.Handler {
	return func(r fakellm.Request) fakellm.Reply {
		k := r.N - 1
		if k >= len(steps) {
			return fakellm.Reply{Content: "All tasks are done."}
		}
		calls := append([]llm.ToolCall(nil), steps[k]...)
		for i := range calls {
			calls[i].ID = fmt.Sprintf("functions.%s:%d", calls[i].Name, i)
			if given, ok := ids[k+1]; ok {
				calls[i].ID = given[i]
			}
		}
		return fakellm.Reply{ToolCalls: calls, PromptTokens: 100, CompletionTokens: 10}
	}
}

// Ids that repeat one of an earlier answer, repeat one of the same answer,
// or are empty are replaced by ids unique in the job, of the one form every
// server takes; the renaming is in the transcript's note, and the history
// sent back never has two calls with one id (the fake server checks every
// request for that).
func TestCallIDsAreUniqueInTheJob(t *testing.T) {
	t.Parallel()
	steps := fakellm.SmallJob(docName, quote)
	// In step 4 the first call repeats an id of step 1, the third one of
	// the second, and the fourth has none.
	step4 := []string{"functions.read_file:0", "dup", "dup", "", "x1", "x2"}
	if len(steps[3]) != len(step4) {
		t.Fatalf("step 4 has %d calls", len(steps[3]))
	}
	e := newEnv(t, kimi(steps, map[int][]string{4: step4}))
	out, err := e.agent(t).Start(context.Background(), llm.Message{Content: "go"})
	if err != nil || out.Kind != agent.Completed {
		t.Fatalf("outcome = %+v, %v", out, err)
	}
	var notes []string
	seen, sent := map[string]bool{}, map[string]bool{}
	for _, r := range e.transcript(t) {
		if r.Type != transcript.TypeMessage || r.Message.Role != llm.RoleAssistant {
			continue
		}
		notes = append(notes, r.Note)
		for i, tc := range r.Message.ToolCalls {
			if seen[tc.ID] {
				t.Errorf("step %d: id %q used twice in the job", r.Step, tc.ID)
			}
			seen[tc.ID] = true
			as := fmt.Sprintf("functions.%s:%d", tc.Name, i)
			if r.Step == 4 {
				as = step4[i]
			}
			if kept := as != "" && !sent[as]; kept != (tc.ID == as) || !kept && !madeID.MatchString(tc.ID) {
				t.Errorf("step %d call %d: id %q for %q; the model's own id is kept when it is unique, else one of 9 letters and digits is made", r.Step, i+1, tc.ID, as)
			}
			sent[as] = true
		}
	}
	all := strings.Join(notes, "\n")
	for _, want := range []string{`renamed 2 call ids already used: "functions.read_file:0" to c00004001 (earlier in the job), "dup" to c00004003 (earlier in this answer)`,
		"gave the call without an id the id c00004004"} {
		if !strings.Contains(all, want) {
			t.Errorf("the notes do not say %q:\n%s", want, all)
		}
	}
}

// A job resumed after a summary dropped its early turns still knows their
// ids: the transcript, not the conversation, says which are taken.
func TestCallIDsOfDroppedTurnsStayTaken(t *testing.T) {
	t.Parallel()
	steps := fakellm.SmallJob(docName, quote)
	e := newEnv(t, kimi(steps, nil))
	w := transcript.NewWriter(e.job)
	first := llm.Message{Role: llm.RoleUser, Content: "go"}
	w.Append(transcript.Record{Type: transcript.TypeMessage, Message: &first})
	w.Append(transcript.Record{Type: transcript.TypeMessage, Step: 1, Message: &llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
		{ID: "functions.read_file:0", Name: "list_files", Arguments: `{}`}}}})
	w.Append(transcript.Record{Type: transcript.TypeMessage, Step: 1, Message: &llm.Message{Role: llm.RoleTool, ToolCallID: "functions.read_file:0", Content: "input/"}})
	w.Append(transcript.Record{Type: transcript.TypeStep, Step: 1})
	w.Append(transcript.Record{Type: transcript.TypeCompaction, Kind: "summary", Messages: []llm.Message{first, {Role: llm.RoleUser, Content: "Summary: the files were listed."}}})

	out, err := e.agent(t).Resume(context.Background(), e.transcript(t), first)
	if err != nil || out.Kind != agent.Completed {
		t.Fatalf("outcome = %+v, %v", out, err)
	}
	for _, r := range e.transcript(t) {
		if r.Type == transcript.TypeMessage && r.Step == 2 && r.Message.Role == llm.RoleAssistant {
			if id := r.Message.ToolCalls[0].ID; id != "c00002001" || !strings.Contains(r.Note, `"functions.read_file:0" to c00002001`) {
				t.Fatalf("step 2's call has id %q (note %q), want it renamed: a dropped turn has its id", id, r.Note)
			}
			return
		}
	}
	t.Fatal("no step 2")
}

// Ids that earlier versions made up (call_<step>_<n>), which servers such
// as Mistral refuse, are sent in the current form after a resume: in the
// call and its result alike, wherever they stand, and unique in the job.
func TestRebuildRenamesIDsOfEarlierVersions(t *testing.T) {
	t.Parallel()
	call := func(id string) *llm.Message {
		return &llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "read_plan", Arguments: "{}"}}}
	}
	result := func(id string) *llm.Message { return &llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: "plan"} }
	first := llm.Message{Role: llm.RoleUser, Content: "go"}
	recs := []transcript.Record{
		{Type: transcript.TypeMessage, Message: &first},
		// The model's own id that happens to be the new form of call_2_1.
		{Type: transcript.TypeMessage, Step: 1, Message: call("c00002001")},
		{Type: transcript.TypeMessage, Step: 1, Message: result("c00002001")},
		{Type: transcript.TypeMessage, Step: 2, Message: call("call_2_1")},
		{Type: transcript.TypeMessage, Step: 2, Message: result("call_2_1")},
		{Type: transcript.TypeMessage, Step: 3, Message: call("call_3_1")},
		{Type: transcript.TypeMessage, Step: 3, Message: result("call_3_1")},
		{Type: transcript.TypeCompaction, Kind: "summary", Messages: []llm.Message{first, {Role: llm.RoleUser, Content: "Summary."}, *call("call_3_1"), *result("call_3_1")}},
		{Type: transcript.TypeMessage, Step: 4, Message: call("call_4_1")},
		{Type: transcript.TypeMessage, Step: 4, Message: result("call_4_1")},
	}
	conv, _ := agent.Rebuild(recs)
	var ids []string
	for _, m := range conv.Messages {
		for _, tc := range m.ToolCalls {
			ids = append(ids, tc.ID)
		}
		if m.ToolCallID != "" {
			ids = append(ids, m.ToolCallID)
		}
	}
	if len(ids) != 4 || ids[0] != "c00003001" || ids[1] != ids[0] || ids[2] != "c00004001" || ids[3] != ids[2] {
		t.Fatalf("ids after the rebuild: %q", ids)
	}
	if err := llm.Validate(conv.Messages); err != nil {
		t.Fatal(err)
	}
	// The whole transcript: call_2_1 cannot take c00002001, which the
	// model's call in step 1 has, and gets another id of the same form.
	conv, _ = agent.Rebuild(recs[:5])
	got := conv.Messages[3].ToolCalls[0].ID
	if got == "c00002001" || !madeID.MatchString(got) || conv.Messages[4].ToolCallID != got {
		t.Fatalf("call_2_1 became %q, its result's id %q", got, conv.Messages[4].ToolCallID)
	}
	for _, r := range recs {
		if r.Message != nil && strings.HasPrefix(r.Message.ToolCallID, "c0") && r.Step > 1 {
			t.Fatal("the records themselves were changed")
		}
	}
}

// A transcript of an earlier version that kept Kimi K2's ids as sent has
// one id for calls of several answers; the rebuilt conversation gives each
// later call an id of its own, and its result the same.
func TestRebuildMakesRepeatedIDsUnique(t *testing.T) {
	t.Parallel()
	first := llm.Message{Role: llm.RoleUser, Content: "go"}
	step := func(n int, path string) []transcript.Record {
		return []transcript.Record{
			{Type: transcript.TypeMessage, Step: n, Message: &llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
				{ID: "functions.read_file:0", Name: "read_file", Arguments: `{"path":"` + path + `"}`}}}},
			{Type: transcript.TypeMessage, Step: n, Message: &llm.Message{Role: llm.RoleTool, ToolCallID: "functions.read_file:0", Content: "the text of " + path}},
		}
	}
	recs := []transcript.Record{{Type: transcript.TypeMessage, Message: &first}}
	recs = append(recs, step(1, "a.md")...)
	recs = append(recs, step(2, "b.md")...)
	recs = append(recs, step(3, "c.md")...)
	conv, _ := agent.Rebuild(recs)
	if err := llm.Validate(conv.Messages); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, m := range conv.Messages {
		for _, tc := range m.ToolCalls {
			if seen[tc.ID] {
				t.Fatalf("id %q twice", tc.ID)
			}
			seen[tc.ID] = true
			res := conv.Messages[i+1]
			if res.ToolCallID != tc.ID || !strings.Contains(tc.Arguments, strings.TrimPrefix(res.Content, "the text of ")) {
				t.Fatalf("call %s %s is answered by %s %q", tc.ID, tc.Arguments, res.ToolCallID, res.Content)
			}
		}
	}
	if conv.Messages[1].ToolCalls[0].ID != "functions.read_file:0" || !madeID.MatchString(conv.Messages[3].ToolCalls[0].ID) {
		t.Fatalf("ids: %q, %q", conv.Messages[1].ToolCalls[0].ID, conv.Messages[3].ToolCalls[0].ID)
	}
	again, _ := agent.Rebuild(recs)
	if again.Messages[5].ToolCalls[0].ID != conv.Messages[5].ToolCalls[0].ID {
		t.Fatal("two rebuilds of one transcript make different ids")
	}
	if recs[3].Message.ToolCalls[0].ID != "functions.read_file:0" {
		t.Fatal("the records themselves were changed")
	}
}
