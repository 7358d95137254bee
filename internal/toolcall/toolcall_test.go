package toolcall

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// call is what a test expects of a Found.
type call struct {
	name, args, form string
}

func TestFromText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []call
		rest string
		cut  bool // the last call's arguments must be reported cut off
	}{
		// <tool_call> tags (Hermes, Qwen2.5, Qwen3)
		{
			name: "tool_call one",
			text: "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"x\"}}\n</tool_call>",
			want: []call{{"read_file", `{"path": "x"}`, formToolCall}},
		},
		{
			name: "tool_call two with prose around",
			text: "I will read both.\n\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}\n</tool_call>\n\nThen I summarise.",
			want: []call{{"read_file", `{"path": "a"}`, formToolCall}, {"read_file", `{"path": "b"}`, formToolCall}},
			rest: "I will read both.\n\nThen I summarise.",
		},
		{
			name: "tool_call arguments as JSON string",
			text: `<tool_call>{"name": "read_file", "arguments": "{\"path\": \"x\"}"}</tool_call>`,
			want: []call{{"read_file", `{"path": "x"}`, formToolCall}},
		},
		{
			name: "tool_call close tag missing at end",
			text: "Reading.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"x\"}}",
			want: []call{{"read_file", `{"path": "x"}`, formToolCall}},
			rest: "Reading.",
		},
		{
			name: "tool_call cut off inside JSON",
			text: "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.md\", \"content\": \"# Title\\nSome",
			want: []call{{"write_file", `{"path": "a.md", "content": "# Title\nSome`, formToolCall}},
			cut:  true,
		},
		{
			name: "tool_call cut off before the arguments",
			text: `<tool_call>{"name": "write_file", "argu`,
			want: []call{{"write_file", `{"name": "write_file", "argu`, formToolCall}},
			cut:  true,
		},
		{
			name: "tool_call close tag missing before the next",
			text: "<tool_call>{\"name\": \"a\", \"arguments\": {}}\n<tool_call>{\"name\": \"b\", \"arguments\": {}}</tool_call>",
			want: []call{{"a", `{}`, formToolCall}, {"b", `{}`, formToolCall}},
		},
		{
			name: "tool_call close tag quoted in the arguments",
			text: `<tool_call>{"name": "write_file", "arguments": {"content": "end with </tool_call> here"}}</tool_call> done`,
			want: []call{{"write_file", `{"content": "end with </tool_call> here"}`, formToolCall}},
			rest: "done",
		},
		{
			name: "tool_call object not closed before the close tag",
			text: `<tool_call>{"name": "read_file", "arguments": {"path": "x"}</tool_call>`,
			want: []call{{"read_file", `{"path": "x"}`, formToolCall}},
		},
		{
			name: "tool_call without a readable name",
			text: "Calling.\n<tool_call>\nread_file path=x\n</tool_call>",
			want: []call{{"", "read_file path=x", formToolCall}},
			rest: "Calling.",
		},
		{
			name: "tool_call holding the OpenAI shape",
			text: `<tool_call>{"type": "function", "function": {"name": "list_files", "arguments": "{}"}}</tool_call>`,
			want: []call{{"list_files", `{}`, formToolCall}},
		},
		{
			name: "tool_call holding a fenced call",
			text: "<tool_call>\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"x\"}}\n```\n</tool_call>",
			want: []call{{"read_file", `{"path": "x"}`, formToolCall}},
		},
		{
			name: "tool_call without arguments",
			text: `<tool_call>{"name": "list_files"}</tool_call>`,
			want: []call{{"list_files", ``, formToolCall}},
		},

		// <function=…> tags (Qwen3-Coder XML, Llama 3.1)
		{
			name: "qwen3-coder one",
			text: "<tool_call>\n<function=read_file>\n<parameter=path>\nx\n</parameter>\n<parameter=limit>\n10\n</parameter>\n</function>\n</tool_call>",
			want: []call{{"read_file", `{"path":"x","limit":10}`, formFunction}},
		},
		{
			name: "qwen3-coder two",
			text: "Two reads.\n<tool_call>\n<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=read_file>\n<parameter=path>\nb\n</parameter>\n</function>\n</tool_call>",
			want: []call{{"read_file", `{"path":"a"}`, formFunction}, {"read_file", `{"path":"b"}`, formFunction}},
			rest: "Two reads.",
		},
		{
			name: "qwen3-coder values of several kinds",
			text: "<tool_call>\n<function=write_file>\n<parameter=content>\nfunc main() {\n\tfmt.Println(\"<hi>\")\n}\n</parameter>\n<parameter=tags>\n[\"a\", \"b\"]\n</parameter>\n<parameter=force>\ntrue\n</parameter>\n<parameter=note>\nnull\n</parameter>\n</function>\n</tool_call>",
			want: []call{{"write_file", `{"content":"func main() {\n\tfmt.Println(\"<hi>\")\n}","tags":["a", "b"],"force":true,"note":"null"}`, formFunction}},
		},
		{
			name: "qwen3-coder parameter close tag missing",
			text: "<tool_call>\n<function=read_file>\n<parameter=path>\nx\n<parameter=limit>\n5\n</function>\n</tool_call>",
			want: []call{{"read_file", `{"path":"x","limit":5}`, formFunction}},
		},
		{
			name: "qwen3-coder value that mentions a tag",
			text: "<tool_call>\n<function=complete_task>\n<parameter=notes>\nread as <function=…> tags, see <tool_call>\n</parameter>\n<parameter=task_number>\n6\n</parameter>\n</function>\n</tool_call>",
			want: []call{{"complete_task", `{"notes":"read as <function=…> tags, see <tool_call>","task_number":6}`, formFunction}},
		},
		{
			name: "qwen3-coder without tool_call",
			text: "<function=read_file>\n<parameter=path>\nx\n</parameter>\n</function>",
			want: []call{{"read_file", `{"path":"x"}`, formFunction}},
		},
		{
			name: "qwen3-coder with only the close tool_call tag",
			text: "Reading.\n<function=read_file>\n<parameter=path>\nx\n</parameter>\n</function>\n</tool_call>\nDone.",
			want: []call{{"read_file", `{"path":"x"}`, formFunction}},
			rest: "Reading.\n\nDone.",
		},
		{
			name: "qwen3-coder cut off inside a parameter",
			text: "<tool_call>\n<function=write_file>\n<parameter=path>\na.md\n</parameter>\n<parameter=content>\n# Title\nSome text",
			want: []call{{"write_file", `{"path":"a.md","content":"# Title\nSome text`, formFunction}},
			cut:  true,
		},
		{
			name: "qwen3-coder cut off between parameters",
			text: "<tool_call>\n<function=write_file>\n<parameter=path>\na.md\n</parameter>\n",
			want: []call{{"write_file", `{"path":"a.md"`, formFunction}},
			cut:  true,
		},
		{
			name: "llama 3.1 function one",
			text: `<function=read_file>{"path": "x"}</function>`,
			want: []call{{"read_file", `{"path": "x"}`, formFunction}},
		},
		{
			name: "llama 3.1 function two with prose",
			text: "First <function=read_file>{\"path\": \"a\"}</function>\n<function=read_file>{\"path\": \"b\"}</function>\nlast",
			want: []call{{"read_file", `{"path": "a"}`, formFunction}, {"read_file", `{"path": "b"}`, formFunction}},
			rest: "First\n\nlast",
		},
		{
			name: "llama 3.1 function cut off",
			text: `<function=write_file>{"path": "a", "content": "abc`,
			want: []call{{"write_file", `{"path": "a", "content": "abc`, formFunction}},
			cut:  true,
		},

		// <|python_tag|> (Llama 3.x)
		{
			name: "python_tag one",
			text: `<|python_tag|>{"name": "read_file", "parameters": {"path": "x"}}<|eom_id|>`,
			want: []call{{"read_file", `{"path": "x"}`, formPython}},
		},
		{
			name: "python_tag two",
			text: `Reading. <|python_tag|>{"name": "read_file", "parameters": {"path": "a"}}; {"name": "read_file", "parameters": {"path": "b"}}`,
			want: []call{{"read_file", `{"path": "a"}`, formPython}, {"read_file", `{"path": "b"}`, formPython}},
			rest: "Reading.",
		},
		{
			name: "python_tag not JSON",
			text: `<|python_tag|>brave_search.call(query="go")<|eom_id|>`,
			want: []call{{"", `brave_search.call(query="go")`, formPython}},
		},

		// [TOOL_CALLS] (Mistral)
		{
			name: "mistral array one",
			text: `[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "x"}}]`,
			want: []call{{"read_file", `{"path": "x"}`, formMistral}},
		},
		{
			name: "mistral array two",
			text: `[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "a"}}, {"name": "list_files", "arguments": "{}"}] ok`,
			want: []call{{"read_file", `{"path": "a"}`, formMistral}, {"list_files", `{}`, formMistral}},
			rest: "ok",
		},
		{
			name: "mistral ARGS one",
			text: `[TOOL_CALLS]read_file[ARGS]{"path":"x"}`,
			want: []call{{"read_file", `{"path":"x"}`, formMistral}},
		},
		{
			name: "mistral ARGS two",
			text: "Sure.\n[TOOL_CALLS]read_file[ARGS]{\"path\":\"a\"}[TOOL_CALLS]read_file[CALL_ID]abc123XYZ[ARGS]{\"path\":\"b\"}",
			want: []call{{"read_file", `{"path":"a"}`, formMistral}, {"read_file", `{"path":"b"}`, formMistral}},
			rest: "Sure.",
		},
		{
			name: "mistral name then object",
			text: `[TOOL_CALLS]read_file{"path":"x"}`,
			want: []call{{"read_file", `{"path":"x"}`, formMistral}},
		},
		{
			name: "mistral cut off",
			text: `[TOOL_CALLS]write_file[ARGS]{"path":"x","content":"ab`,
			want: []call{{"write_file", `{"path":"x","content":"ab`, formMistral}},
			cut:  true,
		},
		{
			name: "mistral unreadable",
			text: `[TOOL_CALLS] read the file please`,
			want: []call{{"", `read the file please`, formMistral}},
		},

		// harmony (gpt-oss)
		{
			name: "harmony full",
			text: `<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path":"x"}<|call|>`,
			want: []call{{"functions.read_file", `{"path":"x"}`, formHarmony}},
		},
		{
			name: "harmony channel only",
			text: `<|channel|>commentary to=functions.read_file<|message|>{"path":"x"}<|call|>`,
			want: []call{{"functions.read_file", `{"path":"x"}`, formHarmony}},
		},
		{
			name: "harmony recipient in role",
			text: `<|start|>assistant to=functions.read_file<|channel|>commentary json<|message|>{"path":"x"}<|call|>`,
			want: []call{{"functions.read_file", `{"path":"x"}`, formHarmony}},
		},
		{
			name: "harmony bare to= without end token",
			text: "Let me look.\nto=functions.read_file json<|message|>{\"path\":\"x\"}",
			want: []call{{"functions.read_file", `{"path":"x"}`, formHarmony}},
			rest: "Let me look.",
		},
		{
			name: "harmony two",
			text: `<|channel|>commentary to=functions.read_file<|message|>{"path":"a"}<|call|><|start|>assistant<|channel|>commentary to=functions.read_file<|message|>{"path":"b"}<|end|>`,
			want: []call{{"functions.read_file", `{"path":"a"}`, formHarmony}, {"functions.read_file", `{"path":"b"}`, formHarmony}},
		},
		{
			name: "harmony cut off",
			text: `<|channel|>commentary to=functions.write_file<|message|>{"path":"a","content":"x`,
			want: []call{{"functions.write_file", `{"path":"a","content":"x`, formHarmony}},
			cut:  true,
		},

		// DeepSeek
		{
			name: "deepseek v3 one",
			text: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\":\"x\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
			want: []call{{"read_file", `{"path":"x"}`, formDeepSeek}},
		},
		{
			name: "deepseek v3 two",
			text: "Reading.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\":\"a\"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\":\"b\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
			want: []call{{"read_file", `{"path":"a"}`, formDeepSeek}, {"read_file", `{"path":"b"}`, formDeepSeek}},
			rest: "Reading.",
		},
		{
			name: "deepseek v3.1",
			text: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{"path":"x"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>list_files<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`,
			want: []call{{"read_file", `{"path":"x"}`, formDeepSeek}, {"list_files", `{}`, formDeepSeek}},
		},
		{
			name: "deepseek cut off",
			text: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write_file\n```json\n{\"path\":\"x\",\"content\":\"ab",
			want: []call{{"write_file", `{"path":"x","content":"ab`, formDeepSeek}},
			cut:  true,
		},
		{
			name: "deepseek without separator",
			text: `<｜tool▁call▁begin｜>read_file please<｜tool▁call▁end｜>`,
			want: []call{{"", `read_file please`, formDeepSeek}},
		},

		// JSON in fences
		{
			name: "fence json one",
			text: "Here:\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"x\"}}\n```\nDone.",
			want: []call{{"read_file", `{"path": "x"}`, formFence}},
			rest: "Here:\n\nDone.",
		},
		{
			name: "fence tool_call",
			text: "```tool_call\n{\"tool\": \"read_file\", \"args\": {\"path\": \"x\"}}\n```",
			want: []call{{"read_file", `{"path": "x"}`, formFence}},
		},
		{
			name: "fence plain with array of two",
			text: "```\n[{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}, {\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}]\n```",
			want: []call{{"read_file", `{"path": "a"}`, formFence}, {"read_file", `{"path": "b"}`, formFence}},
		},
		{
			name: "fence two blocks",
			text: "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n```\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}\n```",
			want: []call{{"read_file", `{"path": "a"}`, formFence}, {"read_file", `{"path": "b"}`, formFence}},
		},
		{
			name: "fence cut off",
			text: "```json\n{\"name\": \"write_file\", \"arguments\": {\"content\": \"abc",
			want: []call{{"write_file", `{"content": "abc`, formFence}},
			cut:  true,
		},
		{
			name: "fence in another language is code",
			text: "```python\ncall = {\"name\": \"read_file\", \"arguments\": {\"path\": \"x\"}}\n```",
			rest: "```python\ncall = {\"name\": \"read_file\", \"arguments\": {\"path\": \"x\"}}\n```",
		},

		// bare JSON
		{
			name: "json object",
			text: `{"name": "read_file", "arguments": {"path": "x"}}`,
			want: []call{{"read_file", `{"path": "x"}`, formJSON}},
		},
		{
			name: "json objects two with prose",
			text: "I call {\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}} and\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}\nthen stop.",
			want: []call{{"read_file", `{"path": "a"}`, formJSON}, {"read_file", `{"path": "b"}`, formJSON}},
			rest: "I call and\n\nthen stop.",
		},
		{
			name: "json arguments as string",
			text: `{"tool_name": "read_file", "tool_input": "{\"path\": \"x\"}"}`,
			want: []call{{"read_file", `{"path": "x"}`, formJSON}},
		},
		{
			name: "json openai shape",
			text: `{"type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"x\"}"}}`,
			want: []call{{"read_file", `{"path":"x"}`, formJSON}},
		},
		{
			name: "json tool_calls wrapper",
			text: `{"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}}, {"function": {"name": "read_file", "arguments": {"path": "b"}}}]}`,
			want: []call{{"read_file", `{"path":"a"}`, formJSON}, {"read_file", `{"path": "b"}`, formJSON}},
		},
		{
			name: "json array of calls",
			text: `[{"name": "read_file", "input": {"path": "a"}}, {"recipient_name": "functions.read_file", "parameters": {"path": "b"}}]`,
			want: []call{{"read_file", `{"path": "a"}`, formJSON}, {"functions.read_file", `{"path": "b"}`, formJSON}},
		},
		{
			name: "json cut off",
			text: "Writing it now: {\"name\": \"write_file\", \"arguments\": {\"path\": \"a\", \"content\": \"lorem",
			want: []call{{"write_file", `{"path": "a", "content": "lorem`, formJSON}},
			rest: "Writing it now:",
			cut:  true,
		},
		{
			name: "json braces inside strings",
			text: `{"name": "write_file", "arguments": {"content": "func f() { if x { return \"}\" } }"}} after`,
			want: []call{{"write_file", `{"content": "func f() { if x { return \"}\" } }"}`, formJSON}},
			rest: "after",
		},
		{
			name: "json unicode in arguments",
			text: `Voilà: {"name": "read_file", "arguments": {"path": "résumé/日本語 😀.txt"}}`,
			want: []call{{"read_file", `{"path": "résumé/日本語 😀.txt"}`, formJSON}},
			rest: "Voilà:",
		},
		{
			name: "json call after an unmatched brace",
			text: "The set { a, b is open. {\"name\": \"read_file\", \"arguments\": {}}",
			want: []call{{"read_file", `{}`, formJSON}},
			rest: "The set { a, b is open.",
		},

		// not calls
		{
			name: "requirement record",
			text: "Found:\n```json\n{\"id\": \"REQ-1\", \"title\": \"Encrypt\", \"text\": \"Data must be encrypted.\", \"type\": \"security\", \"citations\": [{\"document\": \"a.pdf\", \"quote\": \"{x}\"}]}\n```",
			rest: "Found:\n```json\n{\"id\": \"REQ-1\", \"title\": \"Encrypt\", \"text\": \"Data must be encrypted.\", \"type\": \"security\", \"citations\": [{\"document\": \"a.pdf\", \"quote\": \"{x}\"}]}\n```",
		},
		{
			name: "name without arguments",
			text: `The record is {"name": "Alice", "age": 3}.`,
			rest: `The record is {"name": "Alice", "age": 3}.`,
		},
		{
			name: "array of numbers",
			text: `Values: [1, 2, 3]`,
			rest: `Values: [1, 2, 3]`,
		},
		{
			name: "person name is not a tool name",
			text: `{"name": "Alice Smith", "parameters": {"age": 3}}`,
			rest: `{"name": "Alice Smith", "parameters": {"age": 3}}`,
		},
		{
			name: "arguments that are not an object",
			text: `{"name": "x", "input": "hello"}`,
			rest: `{"name": "x", "input": "hello"}`,
		},
		{
			name: "call nested in data",
			text: `{"example": {"name": "read_file", "arguments": {}}}`,
			rest: `{"example": {"name": "read_file", "arguments": {}}}`,
		},
		{
			name: "prose",
			text: "Just prose with {braces}, [links](x) and `code`.\n",
			rest: "Just prose with {braces}, [links](x) and `code`.\n",
		},
		{
			name: "harmony to assistant",
			text: `<|channel|>commentary to=assistant<|message|>hello`,
			rest: `<|channel|>commentary to=assistant<|message|>hello`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, rest := FromText(tt.text)
			checkSpans(t, tt.text, calls)
			if len(calls) != len(tt.want) {
				t.Fatalf("got %d calls %+v, want %d", len(calls), calls, len(tt.want))
			}
			for i, w := range tt.want {
				got := call{calls[i].Name, calls[i].Arguments, calls[i].Form}
				if got != w {
					t.Errorf("call %d:\n got %#v\nwant %#v", i, got, w)
				}
			}
			if tt.want == nil && calls != nil {
				t.Errorf("calls = %#v, want nil", calls)
			}
			if rest != tt.rest {
				t.Errorf("rest = %q, want %q", rest, tt.rest)
			}
			if tt.cut {
				_, _, err := Arguments(calls[len(calls)-1].Arguments)
				var ae *ArgumentsError
				if !errors.As(err, &ae) || !ae.Truncated {
					t.Errorf("Arguments of the last call: err = %v, want cut off", err)
				}
			}
		})
	}
}

func TestFromTextSpans(t *testing.T) {
	t.Parallel()
	text := "a <tool_call>{\"name\": \"x\", \"arguments\": {}}</tool_call> b [TOOL_CALLS][{\"name\": \"y\", \"arguments\": {}}, {\"name\": \"z\", \"arguments\": {}}]"
	calls, _ := FromText(text)
	if len(calls) != 3 {
		t.Fatalf("got %d calls, want 3", len(calls))
	}
	if got := text[calls[0].Start:calls[0].End]; got != "<tool_call>{\"name\": \"x\", \"arguments\": {}}</tool_call>" {
		t.Errorf("span 0 = %q", got)
	}
	if got := text[calls[1].Start:calls[2].End]; got != "[TOOL_CALLS][{\"name\": \"y\", \"arguments\": {}}, {\"name\": \"z\", \"arguments\": {}}]" {
		t.Errorf("spans 1 and 2 = %q", got)
	}
}

// TestFromTextDegenerate reads what a model stuck in a loop may write. It expects no
// more than that reading ends soon: it stays linear in the text (a tenth of a second or
// so a case), where a naive reading is quadratic or cubic and would run for minutes.
func TestFromTextDegenerate(t *testing.T) {
	t.Parallel()
	units := []struct{ name, unit string }{
		{"unclosed objects", `{"a": `},
		{"nested function objects", `{"function": `},
		{"unclosed arrays of objects", `[{`},
		{"unclosed strings", `{"`},
		{"unclosed tool_call", `<tool_call>{"a`},
		{"unclosed function", `<function=a>{`},
		{"function without name end", `<function=`},
		{"parameters", `<parameter=x>`},
		{"harmony calls", `<|channel|>commentary to=functions.a<|message|>{}<|call|>`},
		{"deepseek begins", `<｜tool▁calls▁begin｜>x`},
		{"cut calls", `{"name":"a","arguments":{"x":"`},
		{"fences", "```"},
		{"valid data", `{"id": 1, "x": [1, {"y": "}"}]} `},
	}
	limit := 2 * time.Second * raceSlowdown
	for _, u := range units {
		t.Run(u.name, func(t *testing.T) {
			done := make(chan struct{})
			go func() {
				defer close(done)
				calls, _ := FromText(strings.Repeat(u.unit, 10000))
				for _, c := range calls {
					_, _, _ = Arguments(c.Arguments)
				}
			}()
			select {
			case <-done:
			case <-time.After(limit):
				t.Fatalf("reading took over %v", limit)
			}
		})
	}
}

// checkSpans checks that the spans of calls lie in text, in order, without overlapping.
func checkSpans(t testing.TB, text string, calls []Found) {
	t.Helper()
	last := 0
	for i, c := range calls {
		if c.Start < last || c.End < c.Start || c.End > len(text) {
			t.Fatalf("call %d span [%d,%d) after %d in text of %d bytes", i, c.Start, c.End, last, len(text))
		}
		last = c.End
	}
}

func TestCanonical(t *testing.T) {
	t.Parallel()
	known := []string{"read_file", "write_file", "list_files", "search"}
	tests := []struct {
		name   string
		in     string
		known  []string
		want   string
		wantOK bool
	}{
		{"exact", "read_file", known, "read_file", true},
		{"namespace", "functions.read_file", known, "read_file", true},
		{"other namespace", "default_api.search", known, "search", true},
		{"PascalCase", "ReadFile", known, "read_file", true},
		{"camelCase", "readFile", known, "read_file", true},
		{"dashes", "read-file", known, "read_file", true},
		{"spaces and case", " READ_FILE ", known, "read_file", true},
		{"quoted", "`write_file`", known, "write_file", true},
		{"known in camelCase", "list_files", []string{"listFiles"}, "listFiles", true},
		{"ambiguous", "read-file", []string{"read_file", "ReadFile"}, "", false},
		{"exact beats ambiguity", "ReadFile", []string{"read_file", "ReadFile"}, "ReadFile", true},
		{"same name twice", "readFile", []string{"read_file", "read_file"}, "read_file", true},
		{"unknown", "delete_file", known, "", false},
		{"empty", "", known, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Canonical(tt.in, tt.known)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("Canonical(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		raw      string
		want     string
		note     string // a part of the note
		errPart  string // a part of the Problem; "" when no error is wanted
		cut      bool
		offset   int
		checkOff bool
	}{
		{name: "valid unchanged", raw: `{"b": 1,  "a" : [1,2] }`, want: `{"b": 1,  "a" : [1,2] }`},
		{name: "valid with white space unchanged", raw: " {\"a\":1}\n", want: " {\"a\":1}\n"},
		{name: "empty", raw: "", want: "{}"},
		{name: "white space", raw: " \n\t", want: "{}"},
		{name: "null", raw: "null", want: "{}"},
		{name: "json fence", raw: "```json\n{\"path\": \"x\"}\n```", want: `{"path": "x"}`, note: "removed a ```json fence around the arguments"},
		{name: "plain fence", raw: "```\n{\"path\": \"x\"}\n```", want: `{"path": "x"}`, note: "removed a ``` fence"},
		{name: "empty fence", raw: "```json\n```", want: "{}", note: "fence"},
		{name: "double encoded with a closing tag", raw: `"{\"path\":\"a\"}"</tool_call>`, want: `{"path":"a"}`, note: "removed `</tool_call>` after the arguments; decoded"},
		{name: "double encoded", raw: `"{\"path\":\"a\"}"`, want: `{"path":"a"}`, note: "JSON string"},
		{name: "trailing commas", raw: `{"a": [1, 2,], "b": {"c": 1,},}`, want: `{"a": [1, 2], "b": {"c": 1}}`, note: "removed 3 trailing commas"},
		{name: "comma in a string is kept", raw: `{"a": ",}", "b": 1,}`, want: `{"a": ",}", "b": 1}`, note: "removed a trailing comma"},
		{name: "trailing tool_call tag", raw: `{"path": "x"}</tool_call>`, want: `{"path": "x"}`, note: "removed `</tool_call>`"},
		{name: "trailing tokens and brace", raw: "{\"path\": \"x\"}}\n<|call|> <|im_end|></s>", want: `{"path": "x"}`, note: "after the arguments"},
		{name: "several repairs", raw: "```json\n{\"a\": 1,}\n```", want: `{"a": 1}`, note: "fence around the arguments; removed a trailing comma"},
		{name: "trailing prose is not dropped", raw: `{"path": "x"} and then`, errPart: "invalid character 'a' after top-level value", offset: 14, checkOff: true},
		{name: "cut off in a string", raw: `{"path": "a.md", "content": "# Ti`, errPart: "ends inside a string after 33 characters", cut: true, offset: 33, checkOff: true},
		{name: "cut off after a key-value", raw: `{"path": "a.md", "mode": 420`, errPart: "ends inside an object", cut: true},
		{name: "cut off after a comma", raw: `{"path": "a.md",`, errPart: "ends inside an object", cut: true},
		{name: "cut off in an array", raw: `{"paths": ["a", "b"`, errPart: "ends inside an array", cut: true},
		{name: "cut off long", raw: `{"content": "` + strings.Repeat("x", 1821), errPart: "ends inside a string after 1,834 characters", cut: true},
		{name: "cut off in a fence", raw: "```json\n{\"content\": \"abc", errPart: "ends inside a string", cut: true},
		{name: "invalid character", raw: `{"path": "x", "n": x}`, errPart: "invalid character 'x' looking for beginning of value at offset 19", offset: 19, checkOff: true},
		{name: "invalid character in a fence", raw: "```json\n{\"n\": x}\n```", errPart: "at offset 14", offset: 14, checkOff: true},
		{name: "invalid after comma removal", raw: `{"a": [1,], "b": x}`, errPart: "at offset 17", offset: 17, checkOff: true},
		{name: "array", raw: `[{"path": "x"}]`, errPart: "is a JSON array, not an object"},
		{name: "number", raw: `42`, errPart: "is a JSON number, not an object"},
		{name: "string not an object", raw: `"read the file"`, errPart: "is a JSON string, not an object"},
		{name: "double encoded invalid", raw: `"{\"path\": x}"`, errPart: "decoded from a JSON string"},
		{name: "not JSON", raw: `path=x`, errPart: "invalid character 'p'", offset: 0, checkOff: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, note, err := Arguments(tt.raw)
			if tt.errPart == "" {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				if got != tt.want {
					t.Errorf("got %q, want %q", got, tt.want)
				}
				if !strings.Contains(note, tt.note) || (tt.note == "" && note != "") {
					t.Errorf("note %q, want one with %q", note, tt.note)
				}
				return
			}
			var ae *ArgumentsError
			if !errors.As(err, &ae) {
				t.Fatalf("got %q, %v; want an *ArgumentsError", got, err)
			}
			if got != "" || note != "" {
				t.Errorf("got %q, %q with the error", got, note)
			}
			if !strings.Contains(ae.Problem, tt.errPart) {
				t.Errorf("problem %q, want one with %q", ae.Problem, tt.errPart)
			}
			if ae.Truncated != tt.cut {
				t.Errorf("Truncated = %v, want %v", ae.Truncated, tt.cut)
			}
			if tt.cut && ae.Offset != len(tt.raw) {
				t.Errorf("Offset = %d, want %d", ae.Offset, len(tt.raw))
			}
			if tt.checkOff && ae.Offset != tt.offset {
				t.Errorf("Offset = %d, want %d", ae.Offset, tt.offset)
			}
			if !strings.Contains(err.Error(), ae.Problem) {
				t.Errorf("Error() = %q does not hold the problem", err.Error())
			}
		})
	}
}

func FuzzFromText(f *testing.F) {
	seeds := []string{
		"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"x\"}}\n</tool_call>",
		"<tool_call>\n<function=read_file>\n<parameter=path>\nx\n</parameter>\n</function>\n</tool_call>",
		`<function=read_file>{"path": "x"}</function>`,
		`<|python_tag|>{"name": "a", "parameters": {}}; {"name": "b", "parameters": {}}`,
		`[TOOL_CALLS] [{"name": "a", "arguments": {}}]`,
		`[TOOL_CALLS]a[CALL_ID]x[ARGS]{"b":1}[TOOL_CALLS]c{`,
		`<|start|>assistant<|channel|>commentary to=functions.a <|constrain|>json<|message|>{"x":1}<|call|>`,
		"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>a\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		"```json\n[{\"name\": \"a\", \"arguments\": \"{}\"}]\n```",
		`{"tool_calls": [{"function": {"name": "a", "arguments": "{\"x\": \"}\"}"}}]}`,
		`{"name": "a", "arguments": {"x": "\u00e9\"`,
		"text { [ \" ``` <tool_call> <function= [TOOL_CALLS]",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		calls, rest := FromText(text)
		checkSpans(t, text, calls)
		if calls == nil && rest != text {
			t.Fatalf("no calls, but rest %q differs from the text", rest)
		}
		for _, c := range calls {
			checkArguments(t, c.Arguments)
		}
	})
}

func FuzzArguments(f *testing.F) {
	for _, s := range []string{
		`{"a": 1}`, "", "null", "```json\n{\"a\": [1,],}\n```", `"{\"a\":1}"`,
		`{"a": "b`, `{"a": 1}</tool_call>`, `[1]`, `{"a": x}`,
	} {
		f.Add(s)
	}
	f.Fuzz(checkArguments)
}

// checkArguments checks that Arguments returns a JSON object or an *ArgumentsError.
func checkArguments(t *testing.T, raw string) {
	fixed, _, err := Arguments(raw)
	var ae *ArgumentsError
	switch {
	case err == nil && !isObject(fixed):
		t.Fatalf("Arguments(%q) = %q, not a JSON object", raw, fixed)
	case err != nil && !errors.As(err, &ae):
		t.Fatalf("Arguments(%q): %v is not an *ArgumentsError", raw, err)
	case ae != nil && (ae.Offset < 0 || ae.Offset > len(raw)):
		t.Fatalf("Arguments(%q): offset %d outside the arguments", raw, ae.Offset)
	}
}
