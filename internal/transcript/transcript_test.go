package transcript

import (
	"strings"
	"testing"

	"creator/internal/llm"
)

type memFiles map[string][]byte

func (m memFiles) AppendInternal(rel string, data []byte) error {
	m[rel] = append(m[rel], data...)
	return nil
}

func (m memFiles) ReadInternal(rel string) ([]byte, error) { return m[rel], nil }

func TestRoundTripAndTornLastLine(t *testing.T) {
	files := memFiles{}
	w := NewWriter(files)
	w.Append(Record{Type: TypeMessage, Step: 1, Message: &llm.Message{Role: llm.RoleAssistant, Content: "hi", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_plan", Arguments: "{}"}}}})
	w.Append(Record{Type: TypeStep, Step: 1, Usage: &llm.Usage{PromptTokens: 10, CompletionTokens: 2}})
	recs, err := Load(files)
	if err != nil || len(recs) != 2 || recs[0].Message.ToolCalls[0].Name != "read_plan" || recs[1].Usage.PromptTokens != 10 {
		t.Fatalf("Load = %+v, %v", recs, err)
	}
	// A crash in the middle of an append leaves a partial line.
	files[File] = append(files[File], []byte(`{"type":"message","step":2,"mess`)...)
	recs, err = Load(files)
	if err != nil || len(recs) != 2 {
		t.Fatalf("torn last line: %d records, %v", len(recs), err)
	}
}

func TestDamageInTheMiddleIsReported(t *testing.T) {
	_, err := Parse(strings.NewReader("{\"type\":\"message\"}\n{garbage\n{\"type\":\"step\"}\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v", err)
	}
}

func TestMissingTranscriptIsEmpty(t *testing.T) {
	recs, err := Load(memFiles{})
	if err != nil || len(recs) != 0 {
		t.Fatalf("Load = %v, %v", recs, err)
	}
}

func TestApplyEditsAClearing(t *testing.T) {
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
