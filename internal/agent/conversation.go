package agent

import (
	"context"
	"fmt"
	"strings"

	"creator/internal/llm"
	"creator/internal/toolcall"
	"creator/internal/transcript"
)

// Conversation is the message list sent to the model.
type Conversation struct {
	Messages []llm.Message
	// steps is the step of each tool call by id of a rebuilt
	// conversation, for messages that name an earlier call; summaries and
	// clearings leave it as it is. Run reads it once, when it starts, and
	// keeps the steps of the calls it makes itself.
	steps map[string]int
}

func (c *Conversation) noteSteps(m llm.Message, step int) {
	if len(m.ToolCalls) == 0 {
		return
	}
	if c.steps == nil {
		c.steps = map[string]int{}
	}
	for _, tc := range m.ToolCalls {
		c.steps[tc.ID] = step
	}
}

// ids are the tool-call ids of the job as far as the conversation knows
// them: its messages', and those of every call of a rebuilt transcript.
func (c *Conversation) ids() map[string]bool {
	out := map[string]bool{}
	for id := range c.steps {
		out[id] = true
	}
	for _, m := range c.Messages {
		for _, tc := range m.ToolCalls {
			out[tc.ID] = true
		}
		if m.ToolCallID != "" {
			out[m.ToolCallID] = true
		}
	}
	delete(out, "")
	return out
}

// stepOf is the step of a tool call, 0 when not known.
func (c *Conversation) stepOf(id string) int { return c.steps[id] }

// ResumeNote is added when a job is taken up again.
const ResumeNote = "The job was interrupted and has now been resumed. Files written before the interruption are in place. " +
	"Call read_plan to see where you are, continue with the task in progress, and do not redo completed tasks."

// InterruptedResult answers a tool call that was cut off by the interruption.
const InterruptedResult = "error: this call was interrupted when the job stopped, and it is not known whether it took effect. " +
	"Check the workspace (list_files, read_file) before repeating it."

// Kinds of the messages the loop writes itself (llm.MessageData.Kind).
const (
	// Tool results of calls that did not run as sent:
	KindNotRun      = "not_run"      // arguments unreadable or cut off, or the job stopped during the step
	KindInterrupted = "interrupted"  // cut off by an interruption: it may or may not have taken effect
	KindRepeat      = "repeat"       // repeats an earlier call whose result, unchanged, is still in the conversation
	KindUnknownTool = "unknown_tool" // the call names no tool
	KindDisabled    = "disabled"     // the tool is refused for a few answers: it failed too often
	// User messages:
	KindResume   = "resume"   // ResumeNote
	KindReminder = "reminder" // after an answer without a call that could run
)

// notRunData is the data of the result of a call that did not run.
func notRunData() llm.MessageData { return llm.MessageData{Kind: KindNotRun, Failed: true} }

// NotRun reports whether a tool message's data says the call did not run,
// or may not have; it is DidNotRun for programs that read data.
func NotRun(d llm.MessageData) bool { return d.Kind == KindNotRun || d.Kind == KindInterrupted }

// DidNotRun reports whether a tool result says the call did not run, or
// may not have: cut off by an interruption, skipped because the job
// stopped during its step, cut off at the model's output limit, or sent
// with arguments that could not be read. A model may repeat such a call.
func DidNotRun(result string) bool {
	return result == InterruptedResult || strings.HasPrefix(result, NotRunPrefix)
}

// Rebuild replays a transcript: the conversation as it stood, and the
// job's totals (StepTotals, its steps numbered by the highest step).
//
// Ids that earlier versions made up (call_8_1) are given the current form
// (newIDs), in every call and result alike, and calls that share an id with
// an earlier call of the conversation get one of their own (dedupeIDs).
func Rebuild(recs []transcript.Record) (*Conversation, Totals) {
	conv := &Conversation{}
	t := StepTotals(recs)
	t.Steps = 0 // the highest step, below
	names, used := newIDs(recs)
	for _, r := range recs {
		switch r.Type {
		case transcript.TypeMessage:
			if r.Message != nil {
				m := renameIDs(*r.Message, names)
				conv.Messages = append(conv.Messages, m)
				conv.noteSteps(m, r.Step)
			}
			// A crash between an answer and its step record still counts the step.
			t.Steps = max(t.Steps, r.Step)
		case transcript.TypeCompaction:
			if r.Kind == "clear" {
				transcript.Apply(conv.Messages, r.Edits)
			} else if r.Messages != nil {
				conv.Messages = conv.Messages[:0:0]
				for _, m := range r.Messages {
					conv.Messages = append(conv.Messages, renameIDs(m, names))
				}
			}
		case transcript.TypeStep:
			t.Steps = max(t.Steps, r.Step)
		}
	}
	dedupeIDs(conv.Messages, used)
	return conv, t
}

// Resume continues a job from its transcript: it answers every tool call
// left without a result, tells the model it was resumed, and runs the loop.
// An empty transcript starts the job afresh with first.
func (a *Agent) Resume(ctx context.Context, recs []transcript.Record, first llm.Message) (Outcome, error) {
	conv, totals := Rebuild(recs)
	return a.ResumeRebuilt(ctx, conv, totals, first)
}

// ResumeRebuilt is Resume for a caller that has rebuilt the transcript
// already (and shows its totals before the loop starts).
func (a *Agent) ResumeRebuilt(ctx context.Context, conv *Conversation, totals Totals, first llm.Message) (Outcome, error) {
	a.totals = totals
	if err := a.Journal.Append(transcript.Record{Type: transcript.TypeResume, Step: totals.Steps, Note: "resumed"}); err != nil {
		return Outcome{}, err
	}
	if len(conv.Messages) == 0 {
		return a.Start(ctx, first)
	}
	if err := a.repair(conv); err != nil {
		return Outcome{}, err
	}
	if err := a.add(conv, totals.Steps, llm.Message{Role: llm.RoleUser, Content: ResumeNote, Data: llm.MessageData{Kind: KindResume}}); err != nil {
		return Outcome{}, err
	}
	if err := llm.Validate(conv.Messages); err != nil {
		return Outcome{}, fmt.Errorf("the transcript cannot be resumed: %w", err)
	}
	return a.Run(ctx, conv)
}

// repair makes a conversation from an older transcript fit to be sent:
// arguments that are not valid JSON (an answer cut off at the output limit
// before they were checked) become {}, since servers that check the
// history refuse it whole otherwise; and tool calls without a result (a
// crash can only leave them after the last assistant message) are
// answered.
func (a *Agent) repair(conv *Conversation) error {
	for i, m := range conv.Messages {
		var fixed []llm.ToolCall
		for j, tc := range m.ToolCalls {
			// The same reading as a new answer gets: repaired where the
			// meaning is clear, else {}.
			args, _, err := toolcall.Arguments(tc.Arguments)
			if err != nil {
				args = "{}"
			}
			if args != tc.Arguments {
				if fixed == nil {
					fixed = append([]llm.ToolCall(nil), m.ToolCalls...)
				}
				fixed[j].Arguments = args
			}
		}
		if fixed != nil {
			conv.Messages[i].ToolCalls = fixed
		}
	}
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
			if err := a.addTool(conv, step, tc, InterruptedResult, llm.MessageData{Kind: KindInterrupted, Failed: true}); err != nil {
				return err
			}
		}
	}
	return nil
}
