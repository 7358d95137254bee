package agent

import (
	"context"
	"fmt"
	"strings"

	"creator/internal/llm"
	"creator/internal/transcript"
)

// Conversation is the message list sent to the model.
type Conversation struct {
	Messages []llm.Message
}

// ResumeNote is added when a job is taken up again.
const ResumeNote = "The job was interrupted and has now been resumed. Files written before the interruption are in place. " +
	"Call read_plan to see where you are, continue with the task in progress, and do not redo completed tasks."

// InterruptedResult answers a tool call that was cut off by the interruption.
const InterruptedResult = "error: this call was interrupted when the job stopped, and it is not known whether it took effect. " +
	"Check the workspace (list_files, read_file) before repeating it."

// notRun starts the result of a call skipped because the job stopped
// during its step.
const notRun = "error: not run, because the job "

// DidNotRun reports whether a tool result says the call did not run, or
// may not have: cut off by an interruption, or skipped because the job
// stopped during its step. A model may repeat such a call.
func DidNotRun(result string) bool {
	return result == InterruptedResult || strings.HasPrefix(result, notRun)
}

// Rebuild replays a transcript: the conversation as it stood, and the
// job's totals (sums of the step records).
func Rebuild(recs []transcript.Record) (*Conversation, Totals) {
	conv := &Conversation{}
	var t Totals
	for _, r := range recs {
		switch r.Type {
		case transcript.TypeMessage:
			if r.Message != nil {
				conv.Messages = append(conv.Messages, *r.Message)
			}
			// A crash between an answer and its step record still counts the step.
			t.Steps = max(t.Steps, r.Step)
		case transcript.TypeCompaction:
			if r.Kind == "clear" {
				transcript.Apply(conv.Messages, r.Edits)
			} else if r.Messages != nil {
				conv.Messages = append([]llm.Message(nil), r.Messages...)
			}
		case transcript.TypeStep:
			t.Steps = max(t.Steps, r.Step)
			if r.Usage != nil {
				t.PromptTokens += int64(r.Usage.PromptTokens)
				t.CompletionTokens += int64(r.Usage.CompletionTokens)
				t.CachedTokens += int64(r.Usage.CachedTokens)
			}
			t.CostUSD += r.CostUSD
		}
	}
	return conv, t
}

// Resume continues a job from its transcript: it answers every tool call
// left without a result, tells the model it was resumed, and runs the loop.
// An empty transcript starts the job afresh with firstMessage.
func (a *Agent) Resume(ctx context.Context, recs []transcript.Record, firstMessage string) (Outcome, error) {
	conv, totals := Rebuild(recs)
	return a.ResumeRebuilt(ctx, conv, totals, firstMessage)
}

// ResumeRebuilt is Resume for a caller that has rebuilt the transcript
// already (and shows its totals before the loop starts).
func (a *Agent) ResumeRebuilt(ctx context.Context, conv *Conversation, totals Totals, firstMessage string) (Outcome, error) {
	a.totals = totals
	if err := a.Journal.Append(transcript.Record{Type: transcript.TypeResume, Step: totals.Steps, Note: "resumed"}); err != nil {
		return Outcome{}, err
	}
	if len(conv.Messages) == 0 {
		return a.Start(ctx, firstMessage)
	}
	if err := a.repair(conv); err != nil {
		return Outcome{}, err
	}
	if err := a.add(conv, totals.Steps, llm.Message{Role: llm.RoleUser, Content: ResumeNote}); err != nil {
		return Outcome{}, err
	}
	if err := llm.Validate(conv.Messages); err != nil {
		return Outcome{}, fmt.Errorf("the transcript cannot be resumed: %w", err)
	}
	return a.Run(ctx, conv)
}

// repair answers tool calls that have no result. A crash can only leave
// them at the end of the conversation, after the last assistant message.
func (a *Agent) repair(conv *Conversation) error {
	last := -1
	for i := len(conv.Messages) - 1; i >= 0; i-- {
		if conv.Messages[i].Role == llm.RoleAssistant {
			last = i
			break
		}
	}
	if last < 0 || len(conv.Messages[last].ToolCalls) == 0 {
		return nil
	}
	answered := map[string]bool{}
	for _, m := range conv.Messages[last+1:] {
		if m.Role == llm.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	step := a.totals.Steps
	for _, tc := range conv.Messages[last].ToolCalls {
		if !answered[tc.ID] {
			if err := a.addTool(conv, step, tc, InterruptedResult, true); err != nil {
				return err
			}
		}
	}
	return nil
}
