package toolcall

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokens of the chat formats, as llama.cpp and vLLM parse them.
const (
	toolCallOpen       = "<tool_call>" // Hermes, Qwen
	toolCallClose      = "</tool_call>"
	functionOpen       = "<function=" // Llama 3.1, Qwen3-Coder
	functionClose      = "</function>"
	parameterOpen      = "<parameter=" // Qwen3-Coder
	parameterClose     = "</parameter>"
	pythonTag          = "<|python_tag|>" // Llama 3.x
	mistralCalls       = "[TOOL_CALLS]"
	mistralCallID      = "[CALL_ID]"
	mistralArgs        = "[ARGS]"
	deepSeekCallsBegin = "<｜tool▁calls▁begin｜>"
	deepSeekCallsEnd   = "<｜tool▁calls▁end｜>"
	deepSeekCallBegin  = "<｜tool▁call▁begin｜>"
	deepSeekCallEnd    = "<｜tool▁call▁end｜>"
	deepSeekSep        = "<｜tool▁sep｜>"
	fence              = "```"
)

// harmonyHeader matches the header of a gpt-oss (harmony) message to a tool, in the
// places the recipient can be written, up to <|message|>:
//
//	<|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>
//	<|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>
//
// Group 1 is the recipient.
const harmonyHeader = `(?:<\|start\|>[ \t]*assistant[ \t]*)?(?:<\|channel\|>[ \t]*\w+[ \t]*)?` +
	`to=([\w.\-]+)[ \t]*(?:<\|channel\|>[ \t]*\w+[ \t]*)?(?:<\|constrain\|>[ \t]*)?(?:\w+[ \t]*)?<\|message\|>`

var harmonyRE = regexp.MustCompile(harmonyHeader)

// readToolCall reads <tool_call>…</tool_call> holding a JSON call (Hermes, Qwen2.5,
// Qwen3) or <function=…> tags (Qwen3-Coder). The close tag may be missing: at the end
// of a text that was cut off, or before the next <tool_call>.
func (s source) readToolCall(at int) ([]Found, int, bool) {
	start := at + len(toolCallOpen)
	if j := skipSpace(s.text, start); strings.HasPrefix(s.text[j:], functionOpen) {
		// Parameter values are free text that may mention any tag, so
		// the functions, not the next <tool_call>, decide where this ends.
		if calls, end := s.readFunctions(j, true); len(calls) > 0 {
			end = skipSpace(s.text, end)
			if strings.HasPrefix(s.text[end:], toolCallClose) {
				end += len(toolCallClose)
			}
			return calls, end, true
		}
	}
	bodyEnd, end := s.tagBody(start, toolCallOpen, toolCallClose)
	body := s.prefix(bodyEnd)
	j := skipSpace(body.text, start)
	if strings.HasPrefix(body.text[j:], fence) {
		_, j = fenceLanguage(body.text, j)
	}
	if strings.HasPrefix(body.text[j:], functionOpen) {
		if calls, _ := body.readFunctions(j, bodyEnd == len(s.text)); len(calls) > 0 {
			return calls, end, true
		}
	}
	if calls, _ := body.callValues(j, false); len(calls) > 0 {
		return withForm(calls, formToolCall), end, true
	}
	return []Found{unread(s.text, start, bodyEnd, formToolCall)}, end, true
}

// readFunctions reads consecutive <function=…> calls at text[j:] and returns where
// the last one ends.
func (s source) readFunctions(j int, textCut bool) ([]Found, int) {
	var calls []Found
	end := j
	for strings.HasPrefix(s.text[j:], functionOpen) {
		f, e, ok := s.readFunction(j, textCut)
		if !ok {
			break
		}
		calls = append(calls, f)
		end = e
		j = skipSpace(s.text, e)
	}
	return calls, end
}

// readFunction reads <function=NAME>…</function> at text[at:], with JSON arguments
// (Llama 3.1) or <parameter=…> tags (Qwen3-Coder). textCut says whether the end of the
// text is where the model was cut off, rather than the end of an enclosing tag.
func (s source) readFunction(at int, textCut bool) (Found, int, bool) {
	nameStart := at + len(functionOpen)
	gt := strings.IndexByte(s.text[nameStart:min(len(s.text), nameStart+maxName+1)], '>')
	if gt < 0 || !isName(s.text[nameStart:nameStart+gt]) {
		return Found{}, 0, false
	}
	bodyStart := nameStart + gt + 1
	bodyEnd, end, ok := parameterBodyEnd(s.text, bodyStart)
	if !ok {
		bodyEnd, end = s.tagBody(bodyStart, functionOpen, functionClose)
	}
	body := s.text[bodyStart:bodyEnd]
	args := strings.TrimSpace(body)
	if strings.Contains(body, parameterOpen) && !strings.HasPrefix(args, "{") {
		args = parameterArguments(body, textCut && bodyEnd == len(s.text))
	}
	return Found{Name: s.text[nameStart : nameStart+gt], Arguments: args, Form: formFunction, Start: at}, end, true
}

// parameterBodyEnd finds the end of a body of <parameter=…>…</parameter> tags: the
// </function> after the last of them, so that a value mentioning a tag such as
// <function=…> does not end the call. A body cut off inside a value runs to the end
// of the text. ok is false for a body of another shape.
func parameterBodyEnd(text string, i int) (bodyEnd, tagEnd int, ok bool) {
	j := skipSpace(text, i)
	if !strings.HasPrefix(text[j:], parameterOpen) {
		return 0, 0, false
	}
	for strings.HasPrefix(text[j:], parameterOpen) {
		k := strings.Index(text[j:], parameterClose)
		// A missing close tag: the function's own close ends the value.
		if f := strings.Index(text[j:], functionClose); f >= 0 && (k < 0 || f < k) {
			return j + f, j + f + len(functionClose), true
		}
		if k < 0 {
			return len(text), len(text), true
		}
		j = skipSpace(text, j+k+len(parameterClose))
	}
	if strings.HasPrefix(text[j:], functionClose) {
		return j, j + len(functionClose), true
	}
	if j == len(text) {
		return j, j, true
	}
	return 0, 0, false
}

// parameterArguments builds a JSON object from <parameter=KEY>VALUE</parameter> tags.
// Values are strings unless they read as another JSON value. When the text was cut off,
// the object (and the last string, if its tag is not closed) is left open, so that
// Arguments reports the arguments as cut off rather than passing on a partial value.
func parameterArguments(body string, cut bool) string {
	var b strings.Builder
	b.WriteByte('{')
	rest := body
	for n := 0; ; n++ {
		i := strings.Index(rest, parameterOpen)
		if i < 0 {
			break
		}
		rest = rest[i+len(parameterOpen):]
		gt := strings.IndexByte(rest, '>')
		if gt < 0 {
			break
		}
		key := strings.TrimSpace(rest[:gt])
		rest = rest[gt+1:]
		end := len(rest)
		if k := strings.Index(rest, parameterOpen); k >= 0 {
			end = k // the close tag may be missing before the next parameter
		}
		if k := strings.Index(rest[:end], parameterClose); k >= 0 {
			end = k
		}
		value := trimNewline(rest[:end])
		if n > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(key) + ":")
		if cut && end == len(rest) {
			b.WriteString(strings.TrimSuffix(jsonString(value), `"`))
			return b.String()
		}
		b.WriteString(parameterValue(value))
		rest = strings.TrimPrefix(rest[end:], parameterClose)
	}
	if !cut {
		b.WriteByte('}')
	}
	return b.String()
}

// parameterValue returns the JSON for a parameter's text: the text itself when it is a
// JSON number, boolean, array or object, else the text as a JSON string.
func parameterValue(v string) string {
	t := strings.TrimSpace(v)
	if t != "" && strings.ContainsRune("-0123456789tf[{", rune(t[0])) && json.Valid([]byte(t)) {
		return t
	}
	return jsonString(v)
}

// trimNewline removes the line break that the tag format puts after an open tag and
// before a close tag, and no other white space, which may belong to the value.
func trimNewline(s string) string {
	return strings.TrimSuffix(strings.TrimPrefix(s, "\n"), "\n")
}

// readPythonTag reads Llama 3.x <|python_tag|>{"name": …, "parameters": …}, possibly
// several calls separated by ';'.
func (s source) readPythonTag(at int) ([]Found, int, bool) {
	start := at + len(pythonTag)
	calls, end := s.callValues(start, false)
	if len(calls) == 0 {
		bodyEnd, tagEnd := s.tagBody(start, pythonTag, "<|eom_id|>", "<|eot_id|>")
		return []Found{unread(s.text, start, bodyEnd, formPython)}, tagEnd, true
	}
	return withForm(calls, formPython), skipToken(s.text, end, "<|eom_id|>", "<|eot_id|>"), true
}

// readMistral reads [TOOL_CALLS] followed by a JSON array of calls, or by
// NAME[ARGS]{…} (newer Mistral models; [CALL_ID]… may come before [ARGS], and older
// ones leave [ARGS] out).
func (s source) readMistral(at int) ([]Found, int, bool) {
	start := at + len(mistralCalls)
	if calls, end := s.callValues(start, false); len(calls) > 0 {
		return withForm(calls, formMistral), end, true
	}
	if f, end, ok := s.readMistralNamed(skipSpace(s.text, start)); ok {
		f.Start = at
		return []Found{f}, end, true
	}
	bodyEnd, tagEnd := s.tagBody(start, mistralCalls)
	return []Found{unread(s.text, start, bodyEnd, formMistral)}, tagEnd, true
}

func (s source) readMistralNamed(i int) (Found, int, bool) {
	text := s.text
	n := nameLength(text[i:])
	j := i + n
	if strings.HasPrefix(text[j:], mistralCallID) {
		j += len(mistralCallID)
		j += nameLength(text[j:])
	}
	if strings.HasPrefix(text[j:], mistralArgs) {
		j += len(mistralArgs)
	}
	j = skipSpace(text, j)
	if n == 0 || j >= len(text) || text[j] != '{' {
		return Found{}, 0, false
	}
	end, _ := s.valueEnd(j)
	return Found{Name: text[i : i+n], Arguments: text[j:end], Form: formMistral}, end, true
}

// readHarmony reads a gpt-oss message to a tool: header is its header (see
// harmonyHeader), the arguments follow up to <|call|> or the end of the message.
func (s source) readHarmony(at int, header string) ([]Found, int, bool) {
	m := harmonyRE.FindStringSubmatch(header)
	if m == nil || m[1] == "assistant" { // to=assistant addresses the answer, not a tool
		return nil, 0, false
	}
	start := at + len(header)
	bodyEnd, end := s.tagBody(start, "<|start|>", "<|call|>", "<|end|>", "<|return|>")
	args := strings.TrimSpace(s.text[start:bodyEnd])
	return []Found{{Name: m[1], Arguments: args, Form: formHarmony, Start: at}}, end, true
}

// readDeepSeek reads DeepSeek's tool-call tokens: one or more
// <｜tool▁call▁begin｜>…<｜tool▁call▁end｜>, optionally between <｜tool▁calls▁begin｜>
// and <｜tool▁calls▁end｜>.
func (s source) readDeepSeek(at int) ([]Found, int, bool) {
	start := at
	if strings.HasPrefix(s.text[at:], deepSeekCallsBegin) {
		start += len(deepSeekCallsBegin)
	}
	var calls []Found
	i := start
	for j := skipSpace(s.text, i); strings.HasPrefix(s.text[j:], deepSeekCallBegin); j = skipSpace(s.text, i) {
		var f Found
		f, i = s.readDeepSeekCall(j)
		calls = append(calls, f)
	}
	if len(calls) == 0 {
		bodyEnd, end := s.tagBody(start, "", deepSeekCallsEnd)
		return []Found{unread(s.text, start, bodyEnd, formDeepSeek)}, end, true
	}
	return calls, skipToken(s.text, i, deepSeekCallsEnd), true
}

// readDeepSeekCall reads one call: TYPE<｜tool▁sep｜>NAME and the arguments in a
// ```json fence (V3, R1), or NAME<｜tool▁sep｜>ARGUMENTS (V3.1).
func (s source) readDeepSeekCall(at int) (Found, int) {
	start := at + len(deepSeekCallBegin)
	bodyEnd, end := s.tagBody(start, deepSeekCallBegin, deepSeekCallEnd, deepSeekCallsEnd)
	f := unread(s.text, start, bodyEnd, formDeepSeek)
	f.Start = at
	before, after, ok := strings.Cut(s.text[start:bodyEnd], deepSeekSep)
	name, args := strings.TrimSpace(before), strings.TrimSpace(after)
	if !strings.HasPrefix(args, "{") {
		line, fenced, _ := strings.Cut(after, "\n")
		name, args = strings.TrimSpace(line), strings.TrimSpace(fenced)
		if inner, _, _, ok := unfence(args); ok {
			args = inner
		}
	}
	if ok && isName(name) {
		f.Name, f.Arguments = name, args
	}
	return f, end
}

// tagBody finds where the content of a tag, starting at text[i], ends: at the first of
// closes, before the next open tag (the close tag is missing), or at the end of the text
// (cut off). When the content ended by a close tag starts with a JSON value that does
// not end within it, but would end just before a close tag further on, the close tag it
// passed was quoted inside the value, and the later one is taken.
// It returns where the content ends and where the tag ends.
func (s source) tagBody(i int, open string, closes ...string) (bodyEnd, tagEnd int) {
	bodyEnd, tagEnd = nextTag(s.text, i, open, closes)
	j := skipSpace(s.text, i)
	if tagEnd == bodyEnd || j >= bodyEnd || (s.text[j] != '{' && s.text[j] != '[') {
		return bodyEnd, tagEnd
	}
	if _, complete := s.prefix(bodyEnd).valueEnd(j); complete {
		return bodyEnd, tagEnd
	}
	end, complete := s.valueEnd(j)
	if !complete {
		return bodyEnd, tagEnd
	}
	if b, t := nextTag(s.text, end, open, closes); skipSpace(s.text, end) == b {
		return b, t
	}
	return bodyEnd, tagEnd
}

// nextTag finds the first of closes or open in text[i:]: where the content before it
// ends, and where the tag ends (an open tag belongs to the next call, so it is not
// taken). Without either, the content runs to the end of the text. It looks at the
// text once, whichever tags it holds. All tags start with an ASCII byte.
func nextTag(text string, i int, open string, closes []string) (contentEnd, tagEnd int) {
	firsts := ""
	for _, t := range append([]string{open}, closes...) {
		firsts += t[:min(len(t), 1)]
	}
	for j := i; j < len(text); j++ {
		k := strings.IndexAny(text[j:], firsts)
		if k < 0 {
			break
		}
		j += k
		for _, c := range closes {
			if strings.HasPrefix(text[j:], c) {
				return j, j + len(c)
			}
		}
		if open != "" && strings.HasPrefix(text[j:], open) {
			return j, j
		}
	}
	return len(text), len(text)
}

// skipToken returns the offset after token when only white space separates it from
// text[i:], else i.
func skipToken(text string, i int, tokens ...string) int {
	j := skipSpace(text, i)
	for _, t := range tokens {
		if strings.HasPrefix(text[j:], t) {
			return j + len(t)
		}
	}
	return i
}

// maxName is the length in bytes of the longest tool name read from tags.
const maxName = 128

// isName reports whether s looks like a tool name: letters, digits, '_', '-', '.', ':'.
func isName(s string) bool {
	return s != "" && len(s) <= maxName && nameLength(s) == len(s)
}

// nameLength returns the length in bytes of the tool name that s starts with.
func nameLength(s string) int {
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_-.:", r) {
			return i
		}
	}
	return len(s)
}

// jsonString returns s as a JSON string literal, without escaping HTML.
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
