package offlinemodel

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"creator/internal/llm"
	"creator/tools"
)

// With analyze_chunks among its tools the built-in model hands each
// document's chunks to sub-agents, the document's profile as their note,
// and answers as each sub-agent too: the sub-agent's first message holds
// its chunk whole, which it analyses as the main agent analyses a chunk
// it read.

// taskAnalyse is the task of the plan that analyses a document's chunks,
// a to b, with sub-agents. The chunks are named in it, so that the task
// still says them after a summary.
func taskAnalyse(doc string, a, b int) string {
	return fmt.Sprintf("Analyse %s to %s of %s with analyze_chunks", chunkID(a), chunkID(b), doc)
}

var analyseRE = regexp.MustCompile(`^Analyse chunk_(\d+) to chunk_(\d+) of (.+) with analyze_chunks$`)

// analyseTask reads a task made by taskAnalyse.
func analyseTask(text string) (doc string, a, b int, ok bool) {
	g := analyseRE.FindStringSubmatch(text)
	if g == nil {
		return "", 0, 0, false
	}
	return g[3], atoi(g[1]), atoi(g[2]), true
}

// maxAnalyseRounds bounds the analyze_chunks calls for one document: the
// first, and one more for the chunks whose sub-agents failed; what is
// still uncovered then is covered by the main agent after the output.
const maxAnalyseRounds = 2

// analyse is the step of a task that analyses a document's chunks: call
// analyze_chunks with the profile as the note, again for failed chunks,
// then complete the task.
func (m *Model) analyse(st *conversation, f *facts, s *taskStep, doc string, first, lastChunk int) string {
	rounds, last, ok := st.analyses(first, lastChunk)
	if ok {
		var failed []string
		for _, r := range last.Chunks {
			if r.Status == tools.ChunkFailed {
				failed = append(failed, r.Chunk)
			}
		}
		if len(failed) == 0 || rounds >= maxAnalyseRounds {
			s.done(analysedNote(last, failed))
			return fmt.Sprintf("The chunks of %s are analysed.", doc)
		}
		if note, ok := st.profileNote(doc); ok {
			s.add(call(tools.AnalyzeChunksName, map[string]any{"chunks": failed, "note": note}))
			return fmt.Sprintf("Analysing the %d chunks of %s whose sub-agents failed again.", len(failed), doc)
		}
	}
	note, ok := st.profileNote(doc)
	if !ok && st.profileLost() {
		// The write of the profile never ran (its arguments were lost on
		// the way): write it again, from the first chunks.
		if w, ok := m.profileWrite(st, f); ok {
			s.add(w)
			return "Writing the document profile again: notes/document.md does not exist."
		}
		if reads := m.profileChunkReads(f); len(reads) > 0 {
			s.add(reads...)
			return "Reading the first chunks of each document again, to write the missing document profile."
		}
	}
	if !ok {
		s.add(call("read_file", map[string]any{"path": "notes/document.md"}))
		return "Reading the document profile, which the sub-agents are given."
	}
	var chunks []string
	for n := first; n <= lastChunk; n++ {
		chunks = append(chunks, chunkID(n))
	}
	s.add(call(tools.AnalyzeChunksName, map[string]any{"chunks": chunks, "note": note}))
	return fmt.Sprintf("Analysing the %d chunks of %s with sub-agents.", len(chunks), doc)
}

func analysedNote(res tools.AnalyzedChunks, failed []string) string {
	reqs := 0
	for _, r := range res.Chunks {
		reqs += len(r.IDs)
	}
	note := fmt.Sprintf("%d chunks analysed by sub-agents, %d requirements saved", len(res.Chunks), reqs)
	if len(failed) > 0 {
		note += "; not covered yet: " + strings.Join(failed, ", ")
	}
	return note
}

// profileNote is a document's profile as the sub-agents' note, when the
// conversation shows the profiles.
func (c *conversation) profileNote(doc string) (string, bool) {
	profiles, ok := c.profiles()
	if !ok {
		return "", false
	}
	p, ok := profiles[doc]
	if !ok {
		return "", false
	}
	return "# Document profile\n\n" + p.render(), true
}

// analyses counts the analyze_chunks calls about a document's chunks that
// ran, and gives the latest one's result.
func (c *conversation) analyses(first, lastChunk int) (rounds int, last tools.AnalyzedChunks, ok bool) {
	for _, s := range c.steps {
		for _, cr := range s.calls {
			if cr.call.Name != tools.AnalyzeChunksName || !cr.ok {
				continue
			}
			var res tools.AnalyzedChunks
			if !cr.data.Decode(&res) || len(res.Chunks) == 0 {
				continue
			}
			if n := chunkNumber(res.Chunks[0].Chunk); n >= first && n <= lastChunk {
				rounds++
				last, ok = res, true
			}
		}
	}
	return rounds, last, ok
}

func chunkNumber(id string) int {
	m := chunkIDRE.FindStringSubmatch(id)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// subagent is the built-in model as a sub-agent: analyse the chunk of the
// first message, save what it states or declare it empty, then fix what
// was refused, and stop.
func (m *Model) subagent(req llm.Request) (string, []llm.ToolCall, error) {
	var a tools.ChunkAssignment
	req.Messages[0].Data.Decode(&a)
	n := chunkNumber(a.Chunk)
	ch, ok := parseChunk(n, a.Content())
	if n == 0 || !ok {
		return "", nil, fmt.Errorf("%w: the sub-agent's chunk %q cannot be read as a chunk file", ErrNoProgress, a.Chunk)
	}
	st := readConversation(req.Messages)
	st.canDeclare = true
	f := st.facts
	f.chunked[ch.doc] = chunkRange{n - a.Index + 1, n - a.Index + a.Of}
	profiles := parseProfiles(a.Note)
	if _, ok := profiles[ch.doc]; !ok {
		if read, ok := st.profiles(); ok {
			profiles = read
		}
	}
	if _, ok := profiles[ch.doc]; !ok {
		if !st.triedProfile() {
			return "Reading the document profile: the note has none.", []llm.ToolCall{call("read_file", map[string]any{"path": "notes/document.md"})}, nil
		}
		// No profile anywhere: one from the chunk itself.
		profiles = map[string]profile{ch.doc: makeProfile(ch.doc, ch.body, nil)}
	}
	if !st.worked() {
		calls, found := st.cover(f, ch, profiles)
		return fmt.Sprintf("%s: %d requirement(s).", a.Chunk, found), calls, nil
	}
	st.refused = st.refusedChunks()
	calls := st.declareRefused()
	repeat, _, reread := st.savesToRepeat()
	calls = append(calls, repeat...)
	if reread > 0 {
		more, _ := st.cover(f, ch, profiles)
		calls = append(calls, more...)
	}
	if len(calls) > 0 {
		return "Saving what did not go through.", calls, nil
	}
	return a.Chunk + " is done.", nil, nil
}

// triedProfile reports whether a step read notes/document.md.
func (c *conversation) triedProfile() bool {
	for _, s := range c.steps {
		for _, cr := range s.calls {
			if cr.call.Name == "read_file" && cr.path() == "notes/document.md" && cr.answered {
				return true
			}
		}
	}
	return false
}

// worked reports whether a step saved requirements or declared a chunk
// empty.
func (c *conversation) worked() bool {
	for _, s := range c.steps {
		for _, cr := range s.calls {
			if cr.call.Name == "save_requirement" || cr.call.Name == declareTool {
				return true
			}
		}
	}
	return false
}

// analysing reports whether the plan analyses chunks with sub-agents.
func (f *facts) analysing() bool {
	for _, t := range f.plan {
		if _, _, _, ok := analyseTask(t.Text); ok {
			return true
		}
	}
	return false
}

// analyseTasks are the tasks that analyse each document's chunks.
func (f *facts) analyseTasks() []string {
	var out []string
	for _, d := range f.inputs {
		if rng, ok := f.chunked[d]; ok {
			out = append(out, taskAnalyse(d, rng.first, rng.last))
		}
	}
	return out
}
