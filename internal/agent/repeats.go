package agent

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"creator/internal/humanize"
	"creator/internal/llm"
)

// repeats notices calls that repeat earlier ones. A model that has lost
// track calls read_file on the same chunk again and again, and answering
// each in full grows the prompt by the whole chunk every time. A call that
// repeats one whose result is still in the conversation, with the same
// outcome, is answered in a line that points to the earlier result; one
// whose outcome changed (the file was edited since) is answered in full,
// with a note. Answers made only of repeats are counted: a run of
// MaxRepeats of them stops the job as a loop.
type repeats struct {
	seen map[string]pastCall // by call key
	// prev are the keys of the previous answer's calls; a call of the
	// same tool with the same arguments in the next answer is a repeat
	// whatever its result (a model polling get_progress).
	prev map[string]bool
	run  int // answers in a row made only of repeats

	// the current answer
	keys      map[string]bool
	allRepeat bool
}

// pastCall is an earlier call: where it was made and what it gave.
type pastCall struct {
	id     string
	step   int    // 0 when not known
	result string // hash of the result as it entered the conversation
	raw    string // hash of the tool's own result or error; "" when not known
	failed bool
	call   llm.ToolCall
}

// MaxRepeats is how many answers in a row made only of repeated calls
// stop the job as a loop.
const MaxRepeats = 5

func newRepeats() *repeats {
	return &repeats{seen: map[string]pastCall{}, prev: map[string]bool{}}
}

// seed learns the calls of a conversation taken up again.
func (r *repeats) seed(conv *Conversation) {
	results := map[string]string{}
	for _, m := range conv.Messages {
		if m.Role == llm.RoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	for _, m := range conv.Messages {
		for _, tc := range m.ToolCalls {
			res, ok := results[tc.ID]
			if !ok || DidNotRun(res) || IsRepeat(res) {
				continue
			}
			r.seen[CallKey(tc)] = pastCall{id: tc.ID, step: conv.stepOf(tc.ID), result: hash(res), failed: strings.HasPrefix(res, "error:"), call: tc}
		}
	}
}

func (r *repeats) begin() {
	r.keys, r.allRepeat = map[string]bool{}, true
}

// earlier returns the call with key that a new one repeats, and whether
// its result is still in the conversation.
func (r *repeats) earlier(key string, conv *Conversation) (pastCall, bool) {
	p, ok := r.seen[key]
	if !ok {
		return p, false
	}
	for i := len(conv.Messages) - 1; i >= 0; i-- {
		m := conv.Messages[i]
		if m.Role == llm.RoleTool && m.ToolCallID == p.id {
			return p, hash(m.Content) == p.result
		}
	}
	return p, false
}

// same reports whether a call's outcome equals the earlier one's.
func (p pastCall) same(raw string, failed bool) bool {
	if failed != p.failed {
		return false
	}
	if p.raw != "" {
		return hash(raw) == p.raw
	}
	return hash(raw) == p.result
}

// record remembers a call that ran (by its key), and whether it was a
// repeat.
func (r *repeats) record(key string, tc llm.ToolCall, step int, result, raw string, failed, repeat bool) {
	if !repeat && !r.prev[key] {
		r.allRepeat = false
	}
	r.keys[key] = true
	if repeat {
		return // the earlier call stays the one that shows the result
	}
	r.seen[key] = pastCall{id: tc.ID, step: step, result: hash(result), raw: hash(raw), failed: failed, call: tc}
}

// end closes an answer that had calls to run and returns the run of
// answers made only of repeats. The run counts the job's answers in a row,
// whatever tools they call: any answer with a call that is not a repeat
// ends it. Answers in which nothing ran are not counted here and do not
// end it (see noCallToRun).
func (r *repeats) end() int {
	if r.allRepeat && len(r.keys) > 0 {
		r.run++
	} else {
		r.run = 0
	}
	r.prev = r.keys
	return r.run
}

// where names the step of an earlier call for a message.
func (p pastCall) where() string {
	if p.step > 0 {
		return fmt.Sprintf("your call in step %d", p.step)
	}
	return "an earlier call"
}

// Results of calls that repeat an earlier one with the same outcome start
// with one of these.
const (
	repeatPrefix       = "This call repeats "
	repeatFailedPrefix = "error: this call repeats "
)

// IsRepeat reports whether a tool result says the call repeats an earlier
// one whose result, unchanged, is still in the conversation.
func IsRepeat(result string) bool {
	return strings.HasPrefix(result, repeatPrefix) || strings.HasPrefix(result, repeatFailedPrefix)
}

// repeatResult answers a call that repeats an earlier one with the same
// outcome still in the conversation.
func repeatResult(p pastCall, errText string, warn bool) string {
	var s string
	if errText != "" {
		s = fmt.Sprintf("%s%s, which failed the same way: %s. Change the arguments or do this another way.", repeatFailedPrefix, p.where(), humanize.Clip(humanize.OneLine(errText), 300))
	} else {
		s = fmt.Sprintf("%s%s exactly, and nothing has changed since: its result is still above in this conversation. Use that result instead of calling again, and go on with the next piece of work.", repeatPrefix, p.where())
	}
	if warn {
		s += fmt.Sprintf(" (%d answers in a row have only repeated earlier calls; one more such answer stops the job as a loop.)", MaxRepeats-1)
	}
	return s
}

// loopReason describes the calls a loop repeated.
func loopReason(r *repeats) string {
	var calls []string
	for key := range r.prev {
		if p, ok := r.seen[key]; ok {
			calls = append(calls, humanize.Clip(p.call.Name+" "+p.call.Arguments, 120))
		}
	}
	slices.Sort(calls)
	return fmt.Sprintf("the model repeated the same tool calls in %d answers in a row without any new result (%s)", MaxRepeats, strings.Join(calls, "; "))
}

// CallKey identifies a call by its tool and its arguments, whatever their
// order or spacing: two calls with the same key are the same call, and the
// second is answered as a repeat of the first.
func CallKey(tc llm.ToolCall) string {
	args := tc.Arguments
	var v any
	if json.Unmarshal([]byte(args), &v) == nil {
		if data, err := json.Marshal(v); err == nil {
			args = string(data)
		}
	}
	return tc.Name + "\x00" + args
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return string(sum[:])
}
