// Package toolcall reads tool calls that a model wrote in forms other than the
// protocol's structured calls, and checks and repairs the arguments of calls.
//
// Models served by llama.cpp, vLLM, Ollama or OpenAI do not always answer through the
// tool_calls field of the chat-completions API. When the chat template does not match
// the model, the call lands in the message text in the model's training format
// (<tool_call> tags, [TOOL_CALLS], harmony or DeepSeek tokens, plain JSON); and the
// arguments of a call, structured or not, may be cut off at the output token limit,
// fenced, double-encoded or otherwise not quite JSON. FromText finds calls in text,
// Arguments checks and repairs arguments, and Canonical maps a misspelled tool name to
// the tool it means, so that the agent can run the call or tell the model exactly what
// went wrong.
package toolcall

import (
	"regexp"
	"strings"
	"unicode"
)

// Found is a tool call found in an answer's text.
type Found struct {
	Name       string // as written (not canonicalised); "" when no name could be read
	Arguments  string // JSON text of the arguments, as found (may be invalid; callers run Arguments on it)
	Form       string // how it was written, for messages, e.g. "<tool_call> tags"
	Start, End int    // byte span in the text that the call occupies (including its tags/fence)
}

// The forms that FromText recognises, as they appear in Found.Form.
const (
	formToolCall = "<tool_call> tags"
	formFunction = "<function=…> tags"
	formPython   = "<|python_tag|>"
	formMistral  = "[TOOL_CALLS]"
	formHarmony  = "harmony"
	formDeepSeek = "DeepSeek tool-call tokens"
	formFence    = "fenced JSON block"
	formJSON     = "JSON object"
)

// markerRE finds where a call may start. Tags come before '{' and '[' so that at one
// position the more specific reading wins.
var markerRE = regexp.MustCompile(strings.Join([]string{
	regexp.QuoteMeta(toolCallOpen),
	regexp.QuoteMeta(functionOpen),
	regexp.QuoteMeta(pythonTag),
	regexp.QuoteMeta(mistralCalls),
	regexp.QuoteMeta(deepSeekCallsBegin),
	regexp.QuoteMeta(deepSeekCallBegin),
	harmonyHeader,
	fence,
	`\{`,
	`\[`,
}, "|"))

// FromText finds tool calls written as text in a model's answer. It returns them in order,
// and the text with their spans removed (trimmed of surrounding blank lines).
// A span that looks like a call attempt but cannot be read (no name, broken JSON) is still returned,
// with what could be read, so the caller can name exactly what was seen.
func FromText(text string) (calls []Found, rest string) {
	s := newSource(text)
	for pos := 0; pos < len(text); {
		loc := markerRE.FindStringIndex(text[pos:])
		if loc == nil {
			break
		}
		at, marker := pos+loc[0], text[pos+loc[0]:pos+loc[1]]
		found, end, ok := s.readAt(at, marker)
		if !ok || end <= at {
			pos = at + len(marker)
			continue
		}
		if len(found) > 0 {
			calls = append(calls, spread(found, at, end)...)
		}
		pos = end
	}
	if len(calls) == 0 {
		return nil, text
	}
	return calls, without(text, calls)
}

// readAt reads the calls written at text[at:], where marker was found. It returns the
// calls and where they end; or no calls and the end of a region that holds none (a
// code block, a JSON value that is data); or false when nothing is written there.
func (s source) readAt(at int, marker string) ([]Found, int, bool) {
	switch marker {
	case toolCallOpen:
		return s.readToolCall(at)
	case functionOpen:
		// Qwen3-Coder may leave out <tool_call> but still close it.
		f, end, ok := s.readFunction(at, true)
		return []Found{f}, skipToken(s.text, end, toolCallClose), ok
	case pythonTag:
		return s.readPythonTag(at)
	case mistralCalls:
		return s.readMistral(at)
	case deepSeekCallsBegin, deepSeekCallBegin:
		return s.readDeepSeek(at)
	case fence:
		return s.readFence(at)
	case "{", "[":
		return s.readJSON(at)
	}
	return s.readHarmony(at, marker)
}

// spread gives the calls read from text[start:end] spans that together cover it, each
// from where the call begins: removing them removes the whole block, and no two overlap.
func spread(calls []Found, start, end int) []Found {
	calls[0].Start = start
	for i := range calls {
		calls[i].End = end
		if i+1 < len(calls) {
			calls[i].End = calls[i+1].Start
		}
	}
	return calls
}

// without returns text without the spans of calls. Where a span was removed, the text
// on either side is joined by a blank line if a line break separated them, else by a space.
func without(text string, calls []Found) string {
	var b strings.Builder
	broken := false // a line break was removed since the last text written
	write := func(piece string) {
		core := strings.TrimSpace(piece)
		if core == "" {
			broken = broken || strings.Contains(piece, "\n")
			return
		}
		lead := piece[:len(piece)-len(strings.TrimLeftFunc(piece, unicode.IsSpace))]
		if b.Len() > 0 {
			if broken || strings.Contains(lead, "\n") {
				b.WriteString("\n\n")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(core)
		broken = strings.Contains(piece[len(lead)+len(core):], "\n")
	}
	last := 0
	for _, c := range calls {
		write(text[last:c.Start])
		last = c.End
	}
	write(text[last:])
	return b.String()
}

func withForm(calls []Found, form string) []Found {
	for i := range calls {
		calls[i].Form = form
	}
	return calls
}

// unread is a call attempt whose content, text[start:end], could not be read as a call.
func unread(text string, start, end int, form string) Found {
	return Found{Arguments: strings.TrimSpace(text[start:end]), Form: form, Start: start}
}
