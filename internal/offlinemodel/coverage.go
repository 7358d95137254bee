package offlinemodel

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"creator/compaction"
	"creator/internal/agent"
	"creator/internal/humanize"
	"creator/internal/llm"
	"creator/tools"
)

// A job completes when every chunk is covered: read in full, and cited by
// a saved requirement or declared empty. The built-in model covers each
// chunk as it works through it — it saves what it finds, or declares the
// chunk empty with what it is — and after finalize_output it works
// through the chunks the output's coverage names, then builds it again.

// declareTool is the tool that declares a chunk empty.
const declareTool = "declare_chunk_empty"

func declare(chunk, reason string) llm.ToolCall {
	return call(declareTool, map[string]any{"chunk": chunk, "reason": reason})
}

// offers reports whether the request offers a tool.
func offers(defs []llm.ToolDef, name string) bool {
	for _, d := range defs {
		if d.Name == name {
			return true
		}
	}
	return false
}

// cover saves the requirements found in a chunk read whole or, when it
// holds none, declares it empty with what it is; n is how many it saves.
func (c *conversation) cover(f *facts, ch chunkRead, profiles map[string]profile) (calls []llm.ToolCall, n int) {
	drafts := analyzeChunk(ch, profiles)
	for _, d := range drafts {
		calls = append(calls, call("save_requirement", d))
	}
	if len(drafts) == 0 && c.canDeclare {
		calls = append(calls, declare(chunkID(ch.n), emptyReason(ch, profiles[ch.doc], f.opensDocument(ch))))
	}
	return calls, len(drafts)
}

// opensDocument reports whether a chunk is the first of its document.
func (f *facts) opensDocument(ch chunkRead) bool {
	if rng, ok := f.chunked[ch.doc]; ok {
		return rng.first == ch.n
	}
	return ch.n == 1 || ch.firstPage == 1
}

// citedChunk is the chunk a save_requirement call cites first.
func citedChunk(args map[string]any) string {
	cits, _ := args["citations"].([]any)
	if len(cits) == 0 {
		return ""
	}
	cit, _ := cits[0].(map[string]any)
	id, _ := cit["chunk"].(string)
	return id
}

// chunkNamed is the chunk a save or a declaration is about, "" for other
// calls.
func chunkNamed(cr callResult) string {
	switch cr.call.Name {
	case "save_requirement":
		return citedChunk(cr.args)
	case declareTool:
		id, _ := cr.args["chunk"].(string)
		return id
	}
	return ""
}

// refusedChunks are the chunks whose saves in the latest step were all
// refused for their content (cut off or skipped ones are repeated
// instead), by the number of saves, when no save of theirs went through
// before.
func (c *conversation) refusedChunks() map[string]int {
	if !c.canDeclare || len(c.steps) == 0 {
		return nil
	}
	saves, refused := map[string]int{}, map[string]int{}
	for _, cr := range c.steps[len(c.steps)-1].calls {
		id := chunkNamed(cr)
		if id == "" || cr.call.Name != "save_requirement" {
			continue
		}
		saves[id]++
		if cr.answered && cr.data.Failed && !agent.NotRun(cr.data) && cr.data.Kind != agent.KindUnknownTool &&
			!strings.Contains(cr.call.Arguments, compaction.Shortened) {
			refused[id]++
		}
	}
	for id, n := range refused {
		if n < saves[id] || c.savedBefore(id) {
			delete(refused, id)
		}
	}
	return refused
}

// savedBefore reports whether a save citing the chunk went through in a
// step before the latest.
func (c *conversation) savedBefore(id string) bool {
	for _, s := range c.steps[:len(c.steps)-1] {
		for _, cr := range s.calls {
			if cr.call.Name == "save_requirement" && cr.done() && citedChunk(cr.args) == id {
				return true
			}
		}
	}
	return false
}

// declareRefused declares empty the chunks whose every requirement was
// refused, saying so: they are read, and nothing of them can be saved.
func (c *conversation) declareRefused() []llm.ToolCall {
	ids := make([]string, 0, len(c.refused))
	for id := range c.refused {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var calls []llm.ToolCall
	for _, id := range ids {
		calls = append(calls, declare(id, fmt.Sprintf("no requirement saved: save_requirement refused the %s found in it", humanize.Plural(c.refused[id], "statement"))))
	}
	return calls
}

// hasGaps reports whether the latest output finalize_output wrote left
// chunks uncovered.
func (c *conversation) hasGaps() bool {
	f := c.facts
	return len(f.finals) > 0 && len(f.finals[len(f.finals)-1].uncovered) > 0
}

// chunksWorked are the chunks that saves or declarations in steps from to
// to-1 were about, and that ran (or may have).
func (c *conversation) chunksWorked(from, to int) map[string]bool {
	out := map[string]bool{}
	for _, s := range c.steps[from:to] {
		for _, cr := range s.calls {
			if id := chunkNamed(cr); id != "" && !agent.NotRun(cr.data) && cr.data.Kind != agent.KindUnknownTool {
				out[id] = true
			}
		}
	}
	return out
}

// gapReads bounds the uncovered chunks read in one step: few enough that
// context management keeps all their results for the next.
const gapReads = 3

// coverGaps works through the chunks the latest output left uncovered:
// each is read (again, unless it was read in full and still shows), then
// its requirements are saved or it is declared empty; then the output is
// built again. A chunk still uncovered after the round before worked on
// it stops the model: it would only go round.
func (c *conversation) coverGaps(calls []llm.ToolCall) (string, []llm.ToolCall, error) {
	f := c.facts
	round := f.finals[len(f.finals)-1]
	worked := c.chunksWorked(round.step+1, len(c.steps))
	repeat, _ := c.savesToRepeat()
	calls = append(calls, repeat...)
	for _, r := range repeat {
		var cr callResult
		cr.call, cr.args = r, argsOf(r)
		worked[chunkNamed(cr)] = true
	}
	for id := range c.refused {
		worked[id] = true
	}
	var before map[string]bool
	if len(f.finals) > 1 {
		before = c.chunksWorked(f.finals[len(f.finals)-2].step+1, round.step+1)
	}
	var pending []tools.UncoveredChunk
	for _, u := range round.uncovered {
		switch {
		case worked[u.Chunk]:
		case before[u.Chunk]:
			return "", nil, fmt.Errorf("%w: %s is still not covered after its requirements were saved or it was declared empty", ErrNoProgress, u.Chunk)
		case !chunkIDRE.MatchString(u.Chunk):
			return "", nil, fmt.Errorf("%w: finalize_output names %q as not covered, which is no chunk it reads", ErrNoProgress, u.Chunk)
		default:
			pending = append(pending, u)
		}
	}
	if len(pending) == 0 {
		calls = append(calls, call("finalize_output", struct{}{}))
		return "The chunks the output left uncovered are worked through; building the output again.", calls, nil
	}
	profiles, haveProfiles := c.profiles()
	if !haveProfiles {
		calls = append(calls, call("read_file", map[string]any{"path": "notes/document.md"}))
	}
	var covered, reading []string
	for _, u := range pending {
		path := "chunks/" + u.Chunk + ".md"
		from := 0
		if !u.Read {
			from = round.step + 1 // what was read of it before did not count
		}
		v, seen := c.chunkView(path, from)
		if ch, ok := v.chunk(); seen && ok && haveProfiles {
			more, n := c.cover(c.facts, ch, profiles)
			calls = append(calls, more...)
			covered = append(covered, fmt.Sprintf("%s: %d requirement(s)", u.Chunk, n))
			continue
		}
		if len(reading) == gapReads {
			break
		}
		reading = append(reading, u.Chunk)
		switch {
		case seen && v.whole():
			// It shows whole: analysed once the profile is read.
		case seen:
			calls = append(calls, v.rest())
		default:
			calls = append(calls, call("read_file", map[string]any{"path": path, "limit": 2000}))
		}
	}
	note := "Covering the chunks the output left uncovered"
	if len(covered) > 0 {
		note += "; " + strings.Join(covered, ", ")
	}
	if len(reading) == 0 {
		calls = append(calls, call("finalize_output", struct{}{}))
		return note + "; building the output again.", calls, nil
	}
	return note + "; reading " + strings.Join(reading, ", ") + ".", calls, nil
}

// argsOf are a call's arguments as a map.
func argsOf(tc llm.ToolCall) map[string]any {
	args := map[string]any{}
	json.Unmarshal([]byte(tc.Arguments), &args)
	return args
}
