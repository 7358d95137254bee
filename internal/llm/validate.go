package llm

import "fmt"

// Validate checks that a conversation is valid for the chat-completions
// protocol: every tool message answers a call of the assistant message just
// before its group of tool messages, each call is answered exactly once, and
// no call is left unanswered.
func Validate(msgs []Message) error {
	var open map[string]bool // calls of the current assistant message not yet answered
	var openAt int
	for i, m := range msgs {
		switch m.Role {
		case RoleTool:
			if open == nil {
				return fmt.Errorf("message %d: tool result %q does not follow an assistant message with tool calls", i, m.ToolCallID)
			}
			answered, known := open[m.ToolCallID]
			if !known {
				return fmt.Errorf("message %d: tool result %q answers no call of message %d", i, m.ToolCallID, openAt)
			}
			if answered {
				return fmt.Errorf("message %d: tool call %q is answered twice", i, m.ToolCallID)
			}
			open[m.ToolCallID] = true
			continue
		case RoleAssistant, RoleUser:
		default:
			return fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
		if err := allAnswered(open, openAt); err != nil {
			return err
		}
		open = nil
		if m.Role == RoleAssistant && len(m.ToolCalls) > 0 {
			open, openAt = map[string]bool{}, i
			for _, tc := range m.ToolCalls {
				if tc.ID == "" {
					return fmt.Errorf("message %d: a tool call has no id", i)
				}
				if _, dup := open[tc.ID]; dup {
					return fmt.Errorf("message %d: tool call id %q is used twice", i, tc.ID)
				}
				open[tc.ID] = false
			}
		}
	}
	return allAnswered(open, openAt)
}

func allAnswered(open map[string]bool, at int) error {
	for id, answered := range open {
		if !answered {
			return fmt.Errorf("message %d: tool call %q has no result", at, id)
		}
	}
	return nil
}
