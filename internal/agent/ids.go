package agent

import (
	"crypto/sha256"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"creator/internal/llm"
	"creator/internal/transcript"
)

// Tool-call ids. The protocol pairs each result with its call by id, so an
// id must name one call in the whole job, not only in its answer: Kimi K2
// numbers its calls functions.read_file:0, functions.save_requirement:1 …
// afresh in every answer, and a history with one id for two calls pairs
// results with the wrong calls (and saved results overwrite each other).
// Ids the loop makes itself — for calls without one, calls read from text,
// and calls whose id was already used — have the one form every server
// takes: nine letters and digits (Mistral refuses any other with HTTP
// 400). They are derived from the step and the call's place in the answer,
// so a resumed job that asks for the same answer again makes the same ids.

// idAlphabet are the characters of made-up ids.
const idAlphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// makeCallID is the id of call n (from 1) of step's answer: "c", the step
// in five base-36 digits, n in three (c00008001 for step 8, call 1); when
// that is taken, or the numbers do not fit, a hash of step, n and an
// attempt number, until one is free.
func makeCallID(step, n int, taken func(string) bool) string {
	s, k := strconv.FormatInt(int64(step), 36), strconv.FormatInt(int64(n), 36)
	if len(s) <= 5 && len(k) <= 3 && step >= 0 && n >= 0 {
		id := "c" + strings.Repeat("0", 5-len(s)) + s + strings.Repeat("0", 3-len(k)) + k
		if !taken(id) {
			return id
		}
	}
	for attempt := 1; ; attempt++ {
		sum := sha256.Sum256([]byte(fmt.Sprintf("%d/%d/%d", step, n, attempt)))
		b := make([]byte, 9)
		for i := range b {
			b[i] = idAlphabet[int(sum[i])%len(idAlphabet)]
		}
		if id := string(b); !taken(id) {
			return id
		}
	}
}

// oldMadeID is the form of the ids earlier versions made up: call_<step>_<n>.
var oldMadeID = regexp.MustCompile(`^call_([0-9]+)_([0-9]+)$`)

// newIDs maps the ids earlier versions made up (call_8_1) in a transcript
// to ids of the current form, unique against every id of the job, so that
// a job started with an older version can be resumed against a server that
// checks the form. The map is the same for every record, so a call and its
// result, wherever they stand (messages, summaries), are renamed alike.
func newIDs(recs []transcript.Record) (names map[string]string, used map[string]bool) {
	used = map[string]bool{}
	var old []string
	note := func(id string) {
		if id == "" || used[id] {
			return
		}
		used[id] = true
		if oldMadeID.MatchString(id) {
			old = append(old, id)
		}
	}
	each := func(m *llm.Message) {
		for _, tc := range m.ToolCalls {
			note(tc.ID)
		}
		note(m.ToolCallID)
	}
	for _, r := range recs {
		if r.Message != nil {
			each(r.Message)
		}
		for i := range r.Messages {
			each(&r.Messages[i])
		}
	}
	if len(old) == 0 {
		return nil, used
	}
	out := map[string]string{}
	for _, id := range old {
		g := oldMadeID.FindStringSubmatch(id)
		step, err1 := strconv.Atoi(g[1])
		n, err2 := strconv.Atoi(g[2])
		if err1 != nil || err2 != nil {
			step, n = -1, -1 // out of range: a hash
		}
		nid := makeCallID(step, n, func(s string) bool { return used[s] })
		used[nid] = true
		out[id] = nid
	}
	return out, used
}

// renameIDs returns m with its ids renamed by names (a copy when any is).
func renameIDs(m llm.Message, names map[string]string) llm.Message {
	if len(names) == 0 {
		return m
	}
	if nid, ok := names[m.ToolCallID]; ok {
		m.ToolCallID = nid
	}
	copied := false
	for i, tc := range m.ToolCalls {
		if nid, ok := names[tc.ID]; ok {
			if !copied {
				m.ToolCalls, copied = append([]llm.ToolCall(nil), m.ToolCalls...), true
			}
			m.ToolCalls[i].ID = nid
		}
	}
	return m
}

// dedupeIDs renames the calls of a rebuilt conversation whose id an
// earlier call of it has, and their results (the tool messages after an
// assistant message answer its calls): transcripts of earlier versions
// kept ids such as Kimi K2's as sent, the same in answer after answer.
// The new ids are hashes of the message's place, unique against taken
// (every id of the job), so every rebuild of the transcript makes the same.
func dedupeIDs(msgs []llm.Message, taken map[string]bool) {
	seen := map[string]bool{}
	var current map[string]string
	for i := range msgs {
		m := &msgs[i]
		switch {
		case m.Role == llm.RoleTool:
			if nid, ok := current[m.ToolCallID]; ok {
				m.ToolCallID = nid
			}
		case len(m.ToolCalls) > 0:
			current = map[string]string{}
			copied := false
			for j, tc := range m.ToolCalls {
				if seen[tc.ID] {
					if !copied {
						m.ToolCalls, copied = append([]llm.ToolCall(nil), m.ToolCalls...), true
					}
					nid := makeCallID(-1, i*1000+j, func(id string) bool { return taken[id] || seen[id] })
					current[tc.ID], m.ToolCalls[j].ID = nid, nid
					taken[nid] = true
				}
				seen[m.ToolCalls[j].ID] = true
			}
		default:
			current = nil
		}
	}
}
