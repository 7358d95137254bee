package fakellm

import (
	"encoding/json"

	"creator/internal/llm"
)

func args(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

func call(name string, a any) llm.ToolCall { return llm.ToolCall{Name: name, Arguments: args(a)} }

// SmallJobRequirements is the output/requirements.json that SmallJob writes.
func SmallJobRequirements(doc, quote string) string {
	return args([]map[string]any{{
		"id": "REQ-001", "title": "Keep records", "text": "The operator must keep records for ten years.",
		"type": "obligation", "category": "compliance", "priority": "high", "frameworks": []string{},
		"citations":  []map[string]any{{"document": doc, "chunk": "chunk_001", "page": 1, "quote": quote}},
		"confidence": 0.9, "rationale": "'must' sets a duty",
	}})
}

// SmallJob is a complete job in five answers, through the real tools: read
// the instructions, plan, work through three tasks — chunk the document
// and read its one chunk, save its requirement, write a valid output — so
// that the document is covered. doc is the input document's name, quote
// a sentence of it.
func SmallJob(doc, quote string) [][]llm.ToolCall {
	return [][]llm.ToolCall{
		{call("read_file", map[string]any{"path": "instructions.md", "limit": 20}), call("list_files", map[string]any{"path": "input"})},
		{call("write_plan", map[string]any{"tasks": []string{"Read the instructions", "Profile the document", "Write the output"}})},
		{call("start_task", map[string]any{"task_number": 1}), call("complete_task", map[string]any{"task_number": 1, "notes": "read instructions.md"})},
		{
			call("start_task", map[string]any{"task_number": 2}),
			call("read_file", map[string]any{"path": "input/" + doc}),
			call("chunk_document", map[string]any{"path": "input/" + doc}),
			call("read_file", map[string]any{"path": "chunks/chunk_001.md"}),
			call("write_file", map[string]any{"path": "notes/document.md", "content": "# Document\n\nA short policy in English.\n"}),
			call("complete_task", map[string]any{"task_number": 2, "notes": "profile in notes/document.md"}),
		},
		{
			call("start_task", map[string]any{"task_number": 3}),
			call("save_requirement", map[string]any{"title": "Keep records", "text": "The operator must keep records for ten years.",
				"type": "obligation", "category": "compliance", "priority": "high",
				"citations": []map[string]any{{"document": doc, "chunk": "chunk_001", "quote": quote}}, "confidence": 0.9, "rationale": "'must' sets a duty"}),
			call("write_file", map[string]any{"path": "output/requirements.json", "content": SmallJobRequirements(doc, quote)}),
			call("complete_task", map[string]any{"task_number": 3, "notes": "1 requirement in output/requirements.json"}),
		},
	}
}
