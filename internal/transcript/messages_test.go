package transcript

import (
	"reflect"
	"testing"

	"creator/internal/llm"
)

func TestMessagesKeepsMessageRecordsInOrder(t *testing.T) {
	t.Parallel()
	a := llm.Message{Role: llm.RoleAssistant, Content: "a"}
	b := llm.Message{Role: llm.RoleTool, Content: "b", ToolCallID: "c1"}
	recs := []Record{
		{Type: TypeMessage, Step: 1, Message: &a},
		{Type: TypeStep, Step: 1, Usage: &llm.Usage{PromptTokens: 10}},
		{Type: TypeCompaction, Kind: "summary", Messages: []llm.Message{{Content: "summary"}}},
		{Type: TypeMessage, Step: 2},
		{Type: TypeMessage, Step: 2, Message: &b},
	}
	if got, want := Messages(recs), []llm.Message{a, b}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Messages = %+v, want %+v", got, want)
	}
	if got := Messages(nil); got != nil {
		t.Fatalf("Messages(nil) = %+v", got)
	}
}
