package llm

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	user := Message{Role: RoleUser, Content: "go"}
	call := func(ids ...string) Message {
		m := Message{Role: RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Name: "x"})
		}
		return m
	}
	res := func(id string) Message { return Message{Role: RoleTool, ToolCallID: id} }
	cases := []struct {
		msgs []Message
		want string
	}{
		{[]Message{user, call("a", "b"), res("a"), res("b"), {Role: RoleAssistant, Content: "done"}}, ""},
		{[]Message{user, call("a"), res("a"), user, call("b"), res("b")}, ""},
		{[]Message{user, res("a")}, "does not follow an assistant message"},
		{[]Message{user, call("a"), res("b")}, "answers no call"},
		{[]Message{user, call("a"), res("a"), res("a")}, "answered twice"},
		{[]Message{user, call("a", "b"), res("a"), user}, `"b" has no result`},
		{[]Message{user, call("a", "b"), res("a")}, `"b" has no result`},
		{[]Message{user, call("a", "a"), res("a")}, "used twice"},
		{[]Message{user, call("")}, "has no id"},
		{[]Message{user, call("a"), res("a"), call("b"), res("a")}, "answers no call"},
	}
	for i, c := range cases {
		err := Validate(c.msgs)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("case %d: err = %v, want %q", i, err, c.want)
		}
	}
}
