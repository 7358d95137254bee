package transcript

import (
	"encoding/json"
	"reflect"
	"testing"

	"creator/internal/llm"
)

type memFiles map[string][]byte

func (m memFiles) AppendInternal(rel string, data []byte) error {
	m[rel] = append(m[rel], data...)
	return nil
}

func (m memFiles) ReadInternal(rel string) ([]byte, error) { return m[rel], nil }

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	files := memFiles{}
	w := NewWriter(files)
	w.Append(Record{Type: TypeMessage, Step: 1, Message: &llm.Message{Role: llm.RoleAssistant, Content: "hi", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_plan", Arguments: "{}"}}}})
	w.Append(Record{Type: TypeStep, Step: 1, Usage: &llm.Usage{PromptTokens: 10, CompletionTokens: 2}})
	recs, err := Load(files)
	if err != nil || len(recs) != 2 || recs[0].Message.ToolCalls[0].Name != "read_plan" || recs[1].Usage.PromptTokens != 10 {
		t.Fatalf("Load = %+v, %v", recs, err)
	}
}

func TestMissingTranscriptIsEmpty(t *testing.T) {
	t.Parallel()
	recs, err := Load(memFiles{})
	if err != nil || len(recs) != 0 {
		t.Fatalf("Load = %v, %v", recs, err)
	}
}

func TestApplyEditsAClearing(t *testing.T) {
	t.Parallel()
	calls := []llm.ToolCall{{ID: "a", Name: "write_file", Arguments: `{"path":"x","content":"long"}`}}
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: "go"},
		{Role: llm.RoleAssistant, ToolCalls: calls},
		{Role: llm.RoleTool, ToolCallID: "a", Content: "created x"},
	}
	placeholder := "[cleared: write_file x]"
	edits := []Edit{
		{Index: 1, Arguments: []string{`{"path":"x","content":"[shortened: 1 tokens]"}`}},
		{Index: 2, Content: &placeholder},
		{Index: 9, Content: &placeholder},                  // out of range: ignored
		{Index: 1, Arguments: []string{"one", "too many"}}, // wrong count: ignored
	}
	// Through JSON, as a resumed job reads them.
	files := memFiles{}
	w := NewWriter(files)
	if err := w.Append(Record{Type: TypeCompaction, Kind: "clear", Edits: edits}); err != nil {
		t.Fatal(err)
	}
	recs, err := Load(files)
	if err != nil || len(recs) != 1 {
		t.Fatalf("%v, %d records", err, len(recs))
	}
	Apply(msgs, recs[0].Edits)
	if msgs[2].Content != placeholder || msgs[1].ToolCalls[0].Arguments != `{"path":"x","content":"[shortened: 1 tokens]"}` {
		t.Errorf("after apply: %+v", msgs)
	}
	if calls[0].Arguments != `{"path":"x","content":"long"}` {
		t.Error("apply changed the tool calls of another copy of the message")
	}
}

// A message's data comes back from the transcript as it went in, so a
// resumed job reads the same data as the run that wrote it.
func TestRoundTripKeepsData(t *testing.T) {
	t.Parallel()
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: "Job j.", Data: llm.MessageData{Value: json.RawMessage(`{"job":"j","inputs":["p.pdf"]}`)}},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "a", Name: "read_file", Arguments: `{"path":"x"}`}, {ID: "b", Name: "read_file", Arguments: "{}"}}},
		{Role: llm.RoleTool, ToolCallID: "a", ToolName: "read_file", Content: "     1\tx", Data: llm.MessageData{Value: json.RawMessage(`{"path":"x","first":1,"lines":["x"],"total":1}`)}},
		{Role: llm.RoleTool, ToolCallID: "b", ToolName: "read_file", Content: "error: not run", Data: llm.MessageData{Kind: "not_run", Failed: true}},
		{Role: llm.RoleUser, Content: "Summary.", Data: llm.MessageData{Kind: "summary", Value: json.RawMessage(`{"plan":[]}`)}},
	}
	files := memFiles{}
	w := NewWriter(files)
	for i := range msgs {
		if err := w.Append(Record{Type: TypeMessage, Step: 1, Message: &msgs[i]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Append(Record{Type: TypeCompaction, Kind: "summary", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	recs, err := Load(files)
	if err != nil || len(recs) != len(msgs)+1 {
		t.Fatalf("%v, %d records", err, len(recs))
	}
	for i, m := range msgs {
		if !reflect.DeepEqual(*recs[i].Message, m) {
			t.Errorf("message %d came back as %+v, want %+v", i, *recs[i].Message, m)
		}
	}
	if !reflect.DeepEqual(recs[len(msgs)].Messages, msgs) {
		t.Errorf("a summary's messages came back as %+v", recs[len(msgs)].Messages)
	}
}

// A clearing marks the results it replaces as cleared, and their value goes
// with their text; the copy the clearing was made on keeps its own.
func TestApplyMarksClearedResults(t *testing.T) {
	t.Parallel()
	const valueText = `{"path":"x","first":1,"lines":["x"],"total":1}`
	value := json.RawMessage(valueText)
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: "go"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "a", Name: "read_file", Arguments: `{"path":"x"}`}}},
		{Role: llm.RoleTool, ToolCallID: "a", Content: "     1\tx", Data: llm.MessageData{Value: value}},
	}
	before := append([]llm.Message(nil), msgs...)
	placeholder := "[cleared: read_file x]"
	files := memFiles{}
	if err := NewWriter(files).Append(Record{Type: TypeCompaction, Kind: "clear", Edits: []Edit{{Index: 2, Content: &placeholder, Cleared: true}}}); err != nil {
		t.Fatal(err)
	}
	recs, err := Load(files)
	if err != nil || len(recs) != 1 || !recs[0].Edits[0].Cleared {
		t.Fatalf("%v, %+v", err, recs)
	}
	Apply(msgs, recs[0].Edits)
	if got := msgs[2].Data; !got.Cleared || got.Value != nil || msgs[2].Content != placeholder {
		t.Errorf("after apply: %+v", msgs[2])
	}
	// The copy shares the value's bytes: they must be as they were.
	if before[2].Data.Cleared || string(before[2].Data.Value) != valueText {
		t.Errorf("apply changed another copy of the message: %+v", before[2])
	}
}
