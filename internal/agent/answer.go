package agent

import (
	"errors"
	"fmt"
	"strings"

	"creator/internal/humanize"
	"creator/internal/llm"
	"creator/internal/toolcall"
)

// An answer is a model's reply as the loop takes it in. Real models send
// tool calls under other names (functions.read_file), with arguments that
// are cut off at the output limit or wrapped in a code fence, or written
// as text into the message when the server's chat template does not match
// the model. The loop reads what is unambiguous, records the message with
// canonical calls whose arguments are valid JSON (servers such as llama.cpp
// refuse a history with any other), keeps the message as sent beside it in
// the transcript, and answers every call it cannot run with the reason.
type answer struct {
	msg      llm.Message  // as it enters the conversation
	original *llm.Message // as the model sent it, when msg differs
	calls    []takenCall  // one per msg.ToolCalls
	notes    []string     // what was changed, for the transcript
	// cutOff is true when the answer ended at the output limit.
	cutOff bool
	// unreadable describes tool calls written as text that could not be
	// taken as calls (no known tool name); the reminder names them.
	unreadable []string
}

// takenCall is what the loop knows about one call before running it.
type takenCall struct {
	// problem, when set, is why the call is not run; it is its result.
	problem string
	// notes go with the result: what was read how.
	notes []string
}

// runnable counts the calls that can run.
func (a *answer) runnable() int {
	n := 0
	for _, c := range a.calls {
		if c.problem == "" {
			n++
		}
	}
	return n
}

// NotRunPrefix starts the result of every call that did not run.
const NotRunPrefix = "error: not run, because "

// take turns a response into an answer. known are the tool names; used
// are the call ids of the job so far, and get the answer's.
func take(resp llm.Response, step int, known []string, used map[string]bool) answer {
	ans := answer{cutOff: resp.FinishReason == "length"}
	sent := llm.Message{Role: llm.RoleAssistant, Content: resp.Content, Reasoning: resp.Reasoning, ToolCalls: resp.ToolCalls}
	ans.msg = sent // fixCallIDs copies the calls before they are changed
	var forms []string
	if len(ans.msg.ToolCalls) == 0 {
		forms = ans.takeTextCalls(known)
	}
	var idNotes []string
	ans.msg.ToolCalls, idNotes = fixCallIDs(ans.msg.ToolCalls, step, used, forms != nil)
	ans.notes = append(ans.notes, idNotes...)
	ans.calls = make([]takenCall, len(ans.msg.ToolCalls))
	for i := range ans.msg.ToolCalls {
		tc := &ans.msg.ToolCalls[i]
		taken := &ans.calls[i]
		if forms != nil {
			taken.notes = append(taken.notes, fmt.Sprintf("this call came as text in your answer (%s) and was run as a tool call; send tool calls through the tool-calling interface, not in the text", forms[i]))
		}
		if name, ok := toolcall.Canonical(tc.Name, known); ok && name != tc.Name {
			note := fmt.Sprintf("read tool name %q as %q", tc.Name, name)
			taken.notes = append(taken.notes, note)
			ans.notes = append(ans.notes, fmt.Sprintf("call %d: %s", i+1, note))
			tc.Name = name
		}
		fixed, note, err := toolcall.Arguments(tc.Arguments)
		switch {
		case err != nil:
			taken.problem = argumentsProblem(err, tc.Arguments, ans.cutOff)
			ans.notes = append(ans.notes, fmt.Sprintf("call %d (%s): arguments not run and replaced by {}: %v", i+1, tc.Name, err))
			tc.Arguments = "{}"
		case fixed != tc.Arguments:
			if note != "" {
				taken.notes = append(taken.notes, note)
				ans.notes = append(ans.notes, fmt.Sprintf("call %d (%s): %s", i+1, tc.Name, note))
			}
			tc.Arguments = fixed
		}
	}
	if n := len(ans.calls); n > 0 && len(ans.unreadable) > 0 {
		ans.calls[n-1].notes = append(ans.calls[n-1].notes, "your text also has what looks like a tool call that was not run: "+strings.Join(ans.unreadable, "; "))
	}
	if n := len(ans.calls); ans.cutOff && n > 0 && ans.calls[n-1].problem == "" {
		// Cut off between calls: the last one is whole, but any after it
		// never arrived.
		ans.calls[n-1].notes = append(ans.calls[n-1].notes, "your answer reached the output limit after this call: any call you meant to send after it was not received")
	}
	if changed(sent, ans.msg) {
		ans.original = &sent
	}
	return ans
}

// takeTextCalls reads tool calls written as text into the content. Calls
// that name a known tool become the answer's calls, taken out of the
// content; others are named in unreadable. It returns each call's form.
func (ans *answer) takeTextCalls(known []string) []string {
	found, rest := toolcall.FromText(ans.msg.Content)
	if len(found) == 0 {
		return nil
	}
	var forms []string
	for _, f := range found {
		seen := humanize.Clip(humanize.OneLine(ans.msg.Content[f.Start:f.End]), 160)
		if f.Name == "" {
			ans.unreadable = append(ans.unreadable, fmt.Sprintf("%s with no tool name in it: «%s»", f.Form, seen))
			continue
		}
		if _, ok := toolcall.Canonical(f.Name, known); !ok {
			ans.unreadable = append(ans.unreadable, fmt.Sprintf("%s naming %q, which is no tool here: «%s»", f.Form, f.Name, seen))
			continue
		}
		ans.msg.ToolCalls = append(ans.msg.ToolCalls, llm.ToolCall{Name: f.Name, Arguments: f.Arguments})
		forms = append(forms, f.Form)
	}
	if len(forms) == 0 {
		return nil
	}
	ans.msg.Content = rest
	ans.notes = append(ans.notes, fmt.Sprintf("%s read from the answer's text (%s)", humanize.Plural(len(forms), "tool call"), strings.Join(unique(forms), ", ")))
	return forms
}

// argumentsProblem is the result of a call whose arguments cannot be read.
func argumentsProblem(err error, raw string, cutOff bool) string {
	var ae *toolcall.ArgumentsError
	truncated := errors.As(err, &ae) && ae.Truncated
	smaller := "Send smaller answers: fewer calls in one answer and shorter arguments; write a long file in parts (write_file with the first part, then edit_file to add the rest)."
	switch {
	case cutOff:
		return NotRunPrefix + fmt.Sprintf("your answer was cut off at the output limit while you were writing this call (its arguments stop after %s characters), so nothing of it was done. %s",
			humanize.Int(int64(len(raw))), smaller)
	case truncated:
		return NotRunPrefix + fmt.Sprintf("its arguments stop after %s characters, before the JSON object is complete, so nothing of it was done. Send the whole arguments as one JSON object. %s",
			humanize.Int(int64(len(raw))), smaller)
	}
	return NotRunPrefix + fmt.Sprintf("its arguments are not a JSON object (%v), so nothing of it was done. Send the arguments as one JSON object with the fields the tool's schema names.", err)
}

func changed(a, b llm.Message) bool {
	if a.Content != b.Content || len(a.ToolCalls) != len(b.ToolCalls) {
		return true
	}
	for i := range a.ToolCalls {
		// New ids for calls that had none are no change worth keeping.
		if a.ToolCalls[i].Name != b.ToolCalls[i].Name || a.ToolCalls[i].Arguments != b.ToolCalls[i].Arguments {
			return true
		}
	}
	return false
}

func unique(list []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// fixCallIDs gives every tool call an id that is unique in the job: some
// servers omit ids, repeat them within an answer, or number the calls of
// every answer afresh (Kimi K2), and the protocol needs one result per id.
// used holds the ids of the job so far and gets the new ones. It returns
// what was renamed, for the transcript; a call read from text (fromText)
// never had an id, which needs no note.
func fixCallIDs(calls []llm.ToolCall, step int, used map[string]bool, fromText bool) ([]llm.ToolCall, []string) {
	inAnswer := map[string]bool{}
	out := make([]llm.ToolCall, len(calls))
	var given, renamed []string
	for i, tc := range calls {
		old := tc.ID
		if old == "" || used[old] || inAnswer[old] {
			tc.ID = makeCallID(step, i+1, func(id string) bool { return used[id] || inAnswer[id] })
			switch {
			case old == "":
				given = append(given, tc.ID)
			case inAnswer[old]:
				renamed = append(renamed, fmt.Sprintf("%q to %s (earlier in this answer)", old, tc.ID))
			default:
				renamed = append(renamed, fmt.Sprintf("%q to %s (earlier in the job)", old, tc.ID))
			}
		}
		inAnswer[tc.ID] = true
		out[i] = tc
	}
	for id := range inAnswer {
		used[id] = true
	}
	var notes []string
	switch {
	case fromText, len(given) == 0:
	case len(given) == 1:
		notes = append(notes, "gave the call without an id the id "+given[0])
	default:
		notes = append(notes, fmt.Sprintf("gave the %d calls without an id ids of their own (%s to %s)", len(given), given[0], given[len(given)-1]))
	}
	if len(renamed) > 0 {
		notes = append(notes, fmt.Sprintf("renamed %s already used: %s", humanize.Plural(len(renamed), "call id"), strings.Join(renamed, ", ")))
	}
	return out, notes
}
