package offlinemodel

import (
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
func chunkNamed(name string, args map[string]any) string {
	switch name {
	case "save_requirement":
		return citedChunk(args)
	case declareTool:
		id, _ := args["chunk"].(string)
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
		if cr.call.Name != "save_requirement" {
			continue
		}
		id := citedChunk(cr.args)
		if id == "" {
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

// gaps are the chunks the latest output finalize_output wrote left
// uncovered. When context management has cleared what it said, they are
// the chunks read since, which is where the work on them stands: the
// output is built again once they are covered, and says what is left.
func (c *conversation) gaps() []tools.UncoveredChunk {
	f := c.facts
	if len(f.finals) == 0 {
		return nil
	}
	round := f.finals[len(f.finals)-1]
	if !round.cleared {
		return round.uncovered
	}
	var out []tools.UncoveredChunk
	seen := map[string]bool{}
	for _, s := range c.steps[round.step+1:] {
		for _, cr := range s.calls {
			if m := chunkPathRE.FindStringSubmatch(cr.path()); cr.call.Name == "read_file" && m != nil && !seen[m[1]] {
				seen[m[1]] = true
				out = append(out, tools.UncoveredChunk{Chunk: "chunk_" + m[1]})
			}
		}
	}
	return out
}

// hasGaps reports whether the latest output left chunks uncovered.
func (c *conversation) hasGaps() bool { return len(c.gaps()) > 0 }

// chunksWorked are the chunks that saves or declarations in steps from to
// to-1 were about, and that ran (or may have).
func (c *conversation) chunksWorked(from, to int) map[string]bool {
	out := map[string]bool{}
	for _, s := range c.steps[from:to] {
		for _, cr := range s.calls {
			if id := chunkNamed(cr.call.Name, cr.args); id != "" && !agent.NotRun(cr.data) && cr.data.Kind != agent.KindUnknownTool {
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
// built again.
func (c *conversation) coverGaps(calls []llm.ToolCall) (string, []llm.ToolCall, error) {
	pending, repeat, err := c.pendingGaps()
	if err != nil {
		return "", nil, err
	}
	calls = append(calls, repeat...)
	var covered, reading []string
	if len(pending) > 0 {
		var more []llm.ToolCall
		more, covered, reading = c.workGaps(pending)
		calls = append(calls, more...)
	}
	note := "Covering the chunks the output left uncovered"
	if len(covered) > 0 {
		note += "; " + strings.Join(covered, ", ")
	}
	if len(reading) > 0 {
		return note + "; reading " + strings.Join(reading, ", ") + ".", calls, nil
	}
	return note + "; building the output again.", append(calls, call("finalize_output", struct{}{})), nil
}

// pendingGaps are the uncovered chunks no step since the output worked
// on; repeat are the saves and declarations of the latest step to make
// again. A chunk still uncovered after the round before it worked on it
// is an error: the model would only go round.
func (c *conversation) pendingGaps() (pending []tools.UncoveredChunk, repeat []llm.ToolCall, err error) {
	f := c.facts
	round := f.finals[len(f.finals)-1]
	worked := c.chunksWorked(round.step+1, len(c.steps))
	repeat, chunks, _ := c.savesToRepeat()
	for _, id := range chunks {
		worked[id] = true
	}
	for id := range c.refused {
		worked[id] = true
	}
	var before map[string]bool
	if len(f.finals) > 1 {
		before = c.chunksWorked(f.finals[len(f.finals)-2].step+1, round.step+1)
	}
	for _, u := range c.gaps() {
		switch {
		case worked[u.Chunk]:
		case before[u.Chunk]:
			return nil, nil, fmt.Errorf("%w: %s is still not covered after its requirements were saved or it was declared empty", ErrNoProgress, u.Chunk)
		case !chunkIDRE.MatchString(u.Chunk):
			return nil, nil, fmt.Errorf("%w: finalize_output names %q as not covered, which is no chunk it reads", ErrNoProgress, u.Chunk)
		default:
			pending = append(pending, u)
		}
	}
	return pending, repeat, nil
}

// workGaps covers the pending chunks that show whole and reads the next
// few of the others (with the profile when it does not show): the reads
// come last, so that a clearing before the next step keeps them.
func (c *conversation) workGaps(pending []tools.UncoveredChunk) (calls []llm.ToolCall, covered, reading []string) {
	round := c.facts.finals[len(c.facts.finals)-1]
	profiles, haveProfiles := c.profiles()
	var reads []llm.ToolCall
	if !haveProfiles {
		reads = append(reads, call("read_file", map[string]any{"path": "notes/document.md"}))
	}
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
			// It shows whole: covered once the profile is read.
		case seen:
			reads = append(reads, v.rest())
		default:
			reads = append(reads, call("read_file", map[string]any{"path": path, "limit": 2000}))
		}
	}
	return append(calls, reads...), covered, reading
}
