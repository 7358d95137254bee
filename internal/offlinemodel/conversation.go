package offlinemodel

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"creator/compaction"
	"creator/internal/agent"
	"creator/internal/document"
	"creator/internal/llm"
	"creator/planner"
	"creator/tools"
	"creator/workspace"
)

// conversation is the request as the built-in model reads it: steps (an
// answer's tool calls with their results) and the facts they establish.
type conversation struct {
	steps []step
	facts *facts
	// canDeclare is true when the request offers declare_chunk_empty.
	canDeclare bool
	// refused are the chunks whose every save the latest step refused,
	// with how many there were.
	refused map[string]int
}

type step struct {
	note  string // the answer's text
	calls []callResult
}

type callResult struct {
	call     llm.ToolCall
	args     map[string]any
	result   string          // the text, to pass on (never parsed)
	data     llm.MessageData // what the result says, as data
	answered bool
	ok       bool // answered, without an error, and still visible
	cleared  bool // answered, but context management replaced the result
}

// done is true for a call that most likely succeeded: its result says so,
// or was cleared (failures are rare and short).
func (c callResult) done() bool { return c.ok || c.cleared }

func (c callResult) path() string {
	p, _ := c.args["path"].(string)
	return p
}

type chunkRange struct{ first, last int }

// facts are what the conversation shows about the job so far.
type facts struct {
	instructionsRead bool
	inputs           []string
	extracted        map[string]string     // document → extracted text
	chunked          map[string]chunkRange // document → its chunks
	plan             []planner.Task
	planWritten      bool
	profilesWritten  bool
	finalized        bool
	finalizeNote     string
	finalizeFailed   bool
	broken           []string // the files the failed finalize_output named
	cleanedUp        bool
	processed        map[int]bool // chunks whose requirements a step announced and saved
	summaryUpTo      int          // the last chunk a summary says was processed
	canAnalyze       bool         // the request offers analyze_chunks
	finals           []finalRound // the outputs finalize_output wrote, in order
}

// finalRound is an output finalize_output wrote: in which step, and the
// chunks it found not covered, unless context management has cleared
// what it said.
type finalRound struct {
	step      int
	uncovered []tools.UncoveredChunk
	cleared   bool
}

// chunkPathRE matches the chunk files this model reads.
var chunkPathRE = regexp.MustCompile(`^chunks/chunk_(\d+)\.md$`)

func readConversation(msgs []llm.Message) *conversation {
	c := &conversation{facts: &facts{extracted: map[string]string{}, chunked: map[string]chunkRange{}, processed: map[int]bool{}}}
	f := c.facts
	firstUser := true
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch m.Role {
		case llm.RoleUser:
			if firstUser {
				firstUser = false
				var job workspace.Assignment
				m.Data.Decode(&job)
				f.inputs = unique(job.Inputs)
				continue
			}
			f.readNote(m)
		case llm.RoleAssistant:
			// A step that saves a chunk's requirements names the chunk
			// first ("chunk_022: 3 requirement(s)."); from then on the chunk
			// is done: saves that did not run are repeated by the next step.
			if g := savedChunkRE.FindStringSubmatch(m.Content); g != nil {
				n, _ := strconv.Atoi(g[1])
				f.processed[n] = true
			}
			if len(m.ToolCalls) == 0 {
				continue
			}
			results := map[string]llm.Message{}
			for j := i + 1; j < len(msgs) && msgs[j].Role == llm.RoleTool; j++ {
				results[msgs[j].ToolCallID] = msgs[j]
			}
			s := step{note: m.Content}
			for _, tc := range m.ToolCalls {
				cr := callResult{call: tc, args: map[string]any{}}
				json.Unmarshal([]byte(tc.Arguments), &cr.args)
				if res, ok := results[tc.ID]; ok {
					cr.result, cr.data, cr.answered = res.Content, res.Data, true
					cr.cleared = res.Data.Cleared
					cr.ok = !res.Data.Failed && !cr.cleared
				}
				s.calls = append(s.calls, cr)
			}
			c.steps = append(c.steps, s)
		}
	}
	c.resolveRepeats()
	for si, s := range c.steps {
		for _, cr := range s.calls {
			f.apply(si, cr)
		}
	}
	return c
}

// readNote takes in a user message after the first: a summary (with the
// plan of its brief), a resume note, a reminder.
func (f *facts) readNote(m llm.Message) {
	var summary compaction.SummaryData
	if m.Data.Kind == compaction.KindSummary && m.Data.Decode(&summary) && len(summary.Plan) > 0 {
		f.plan = planOf(summary.Plan)
	}
	// This model's own summaries say how far it got.
	if g := summaryUpToRE.FindStringSubmatch(m.Content); g != nil {
		f.summaryUpTo, _ = strconv.Atoi(g[1])
	}
	// After a summary or a resume the plan is in plan.json.
	f.planWritten = f.planWritten || m.Data.Kind == agent.KindResume || m.Data.Kind == compaction.KindSummary
}

// resolveRepeats gives a call answered as a repeat of an earlier one the
// earlier call's result, which is what the answer points to: the latest
// identical call that succeeded (one cut off by an interruption, say, is
// not the one pointed to).
func (c *conversation) resolveRepeats() {
	// Only calls of a name some repeat answer has need a key: usually none.
	repeated := map[string]bool{}
	for _, s := range c.steps {
		for _, cr := range s.calls {
			if cr.data.Kind == agent.KindRepeat {
				repeated[cr.call.Name] = true
			}
		}
	}
	if len(repeated) == 0 {
		return
	}
	last := map[string]callResult{}
	for _, s := range c.steps {
		for i, cr := range s.calls {
			if !repeated[cr.call.Name] {
				continue
			}
			key := agent.CallKey(cr.call)
			if cr.data.Kind == agent.KindRepeat {
				if earlier, ok := last[key]; ok {
					s.calls[i].result, s.calls[i].data, s.calls[i].ok, s.calls[i].cleared = earlier.result, earlier.data, earlier.ok, earlier.cleared
				}
				continue
			}
			if cr.ok {
				last[key] = cr
			}
		}
	}
}

func (f *facts) apply(si int, cr callResult) {
	switch cr.call.Name {
	case "read_file":
		switch p := cr.path(); {
		case p == "instructions.md" && cr.done():
			f.instructionsRead = true
		}
	case "list_files":
		var listing tools.Listing
		if cr.ok && strings.TrimSuffix(cr.path(), "/") == "input" && len(f.inputs) == 0 && cr.data.Decode(&listing) {
			f.inputs = inputNames(listing)
		}
	case "extract_document_text":
		var x tools.Extracted
		if cr.ok && cr.data.Decode(&x) && strings.HasPrefix(x.Source, "input/") {
			f.extracted[strings.TrimPrefix(x.Source, "input/")] = x.Output
		}
	case "chunk_document":
		var ch tools.Chunked
		if cr.ok && cr.data.Decode(&ch) && ch.Document != "" {
			f.chunked[ch.Document] = chunkRange{ch.First, ch.Last}
		}
	case "write_plan":
		if cr.done() {
			f.replacePlan(cr.args)
		}
	case "read_plan":
		var p tools.PlanData
		cr.data.Decode(&p)
		if cr.ok && len(p.Tasks) > 0 {
			f.plan = planOf(p.Tasks)
			f.planWritten = true
		} else if p.NoPlan {
			f.planWritten = false
		}
	case "start_task", "complete_task":
		n := intArg(cr.args["task_number"])
		if cr.done() && n >= 1 && n <= len(f.plan) {
			f.plan[n-1].Status = map[string]planner.Status{"start_task": planner.InProgress, "complete_task": planner.Completed}[cr.call.Name]
		}
	case "write_file":
		if cr.done() && cr.path() == "notes/document.md" {
			f.profilesWritten = true
		}
	case "finalize_output":
		if cr.ok || cr.cleared && !cr.data.Failed {
			f.finalized, f.finalizeNote, f.finalizeFailed, f.broken = true, cr.result, false, nil
			var fin tools.Finalized
			cr.data.Decode(&fin)
			f.finals = append(f.finals, finalRound{step: si, uncovered: fin.Uncovered, cleared: cr.cleared})
		} else if cr.answered {
			var refused tools.FinalizeRefused
			cr.data.Decode(&refused)
			f.finalized, f.finalizeFailed, f.broken, f.cleanedUp = false, true, refused.Broken, false
		}
	case "delete_file":
		if cr.ok && f.finalizeFailed {
			f.cleanedUp = true
		}
	}
}

// replacePlan takes in a plan this model wrote; a task whose text is
// unchanged keeps its status, as in the planner.
func (f *facts) replacePlan(args map[string]any) {
	f.planWritten = true
	old := map[string]planner.Status{}
	for _, t := range f.plan {
		old[t.Text] = t.Status
	}
	var texts []string
	if raw, ok := args["tasks"].([]any); ok {
		for _, t := range raw {
			if s, ok := t.(string); ok {
				texts = append(texts, s)
			}
		}
	}
	if len(texts) == 0 {
		return // arguments shortened: the plan stays as known
	}
	f.plan = nil
	for i, t := range texts {
		st := old[t]
		if st == "" {
			st = planner.Pending
		}
		f.plan = append(f.plan, planner.Task{Number: i + 1, Text: t, Status: st})
	}
}

func fileExt(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[i:]
	}
	return ""
}

// inputNames reads the source documents from a listing of input/, leaving
// out the texts extracted from them.
func inputNames(listing tools.Listing) []string {
	var names []string
	for _, e := range listing.Entries {
		if !e.Dir {
			names = append(names, e.Name)
		}
	}
	var out []string
	for _, n := range names {
		if strings.HasSuffix(n, ".extracted.txt") {
			continue
		}
		if strings.HasSuffix(n, ".txt") {
			base := strings.TrimSuffix(n, ".txt")
			derived := false
			for _, o := range names {
				if o != n && strings.TrimSuffix(o, fileExt(o)) == base {
					derived = true
				}
			}
			if derived {
				continue
			}
		}
		out = append(out, n)
	}
	return out
}

// planOf takes in the plan's tasks; a status it does not know is pending.
func planOf(tasks []planner.Task) []planner.Task {
	var plan []planner.Task
	for _, t := range tasks {
		st := planner.Pending
		if t.Status == planner.Completed || t.Status == planner.InProgress {
			st = t.Status
		}
		plan = append(plan, planner.Task{Number: t.Number, Text: t.Text, Status: st})
	}
	return plan
}

// intArg reads an integer argument, also when it was sent as a string.
func intArg(v any) int {
	switch x := v.(type) {
	case float64:
		return int(x)
	case string:
		f, _ := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return int(f)
	}
	return 0
}

// firstOpen is the first task of the plan that is not completed.
func (f *facts) firstOpen() *planner.Task {
	for i := range f.plan {
		if f.plan[i].Status != planner.Completed {
			return &f.plan[i]
		}
	}
	return nil
}

// lastChunkTask reports whether task n is the last "Split … into chunks".
func (f *facts) lastChunkTask(n int) bool {
	last := 0
	for _, t := range f.plan {
		if _, ok := taskDoc(t.Text, taskChunk); ok {
			last = t.Number
		}
	}
	return n == last
}

func (f *facts) hasGroups() bool {
	for _, t := range f.plan {
		if groupRE.MatchString(t.Text) {
			return true
		}
	}
	return false
}

// processedUpTo is the last chunk in [a, b] handled in an earlier step
// (or, after a summary, the last one it names), or a-1.
func (f *facts) processedUpTo(a, b int) int {
	last := a - 1
	if f.summaryUpTo >= a {
		last = min(f.summaryUpTo, b)
	}
	for n := a; n <= b; n++ {
		if f.processed[n] {
			last = max(last, n)
		}
	}
	return last
}

// chunkRead is a chunk file as read_file showed it.
type chunkRead struct {
	n         int
	doc       string
	heading   string
	firstPage int // 0 when the header names no page
	body      string
}

// savesToRepeat returns the requirements of the last step that were never
// saved because the call did not run: cut off or skipped when the job
// stopped, or garbled on the way to the tools (an unknown tool name), and
// the chunks declared empty that were not. Saving one again is harmless:
// an existing requirement keeps its id. Saves refused for
// their content are not repeated; they would only fail again. When context
// management has shortened such a call's arguments, the call cannot be
// repeated as it was: reread names the chunk to read and analyse again.
// chunks are the chunks the calls are about, one for each.
func (c *conversation) savesToRepeat() (calls []llm.ToolCall, chunks []string, reread int) {
	if len(c.steps) == 0 {
		return nil, nil, 0
	}
	last := c.steps[len(c.steps)-1]
	var declares []llm.ToolCall
	var declared []string
	for _, cr := range last.calls {
		garbled := cr.data.Kind == agent.KindUnknownTool
		if !(agent.NotRun(cr.data) || garbled) {
			continue
		}
		if id, ok := cr.args["chunk"].(string); ok && cr.call.Name == declareTool {
			declares = append(declares, call(declareTool, cr.args))
			declared = append(declared, id)
			continue
		}
		_, isSave := cr.args["citations"].([]any)
		if !isSave && cr.call.Name == "save_requirement" {
			// The arguments did not arrive (cut off at the output limit,
			// broken JSON): analyse the chunk the step announced again.
			if g := savedChunkRE.FindStringSubmatch(last.note); g != nil {
				reread, _ = strconv.Atoi(g[1])
			}
			continue
		}
		if !isSave {
			continue
		}
		if strings.Contains(cr.call.Arguments, compaction.Shortened) {
			if m := chunkIDRE.FindStringSubmatch(citedChunk(cr.args)); m != nil {
				reread, _ = strconv.Atoi(m[1])
			}
			continue
		}
		calls = append(calls, call("save_requirement", cr.args))
		chunks = append(chunks, citedChunk(cr.args))
	}
	if reread > 0 {
		// Analysing the chunk again saves them all in their order; saving
		// some now would number them out of it.
		return declares, declared, reread
	}
	return append(calls, declares...), append(chunks, declared...), reread
}

// lostReread is the chunk, done before, whose read again in the latest
// step did not arrive (its name garbled, its arguments broken, cut off):
// the read that was to save what was lost of it. 0 for none.
func (c *conversation) lostReread(f *facts) int {
	if len(c.steps) == 0 {
		return 0
	}
	for _, cr := range c.steps[len(c.steps)-1].calls {
		garbled := cr.data.Kind == agent.KindUnknownTool
		if !(agent.NotRun(cr.data) || garbled) || !(cr.call.Name == "read_file" || garbled) {
			continue
		}
		if g := chunkPathRE.FindStringSubmatch(cr.path()); g != nil {
			if n, _ := strconv.Atoi(g[1]); f.processed[n] {
				return n
			}
		}
	}
	return 0
}

var chunkIDRE = regexp.MustCompile(`^chunk_(\d+)$`)

// chunkView is what the conversation still shows of a chunk file: its
// lines from the first on, as far as the reads that are visible join up.
// A chunk cut by read_file is read on with an offset, and its parts are
// put together here.
type chunkView struct {
	n     int
	path  string
	lines []string // lines 1 to len(lines)
	total int
}

// whole reports whether the view holds every line of the file.
func (v chunkView) whole() bool { return len(v.lines) >= v.total }

// rest reads the lines not in the view yet.
func (v chunkView) rest() llm.ToolCall {
	return call("read_file", map[string]any{"path": v.path, "offset": len(v.lines) + 1, "limit": 2000})
}

// chunk is the chunk the view shows whole, if its header reads as one.
func (v chunkView) chunk() (chunkRead, bool) {
	if !v.whole() {
		return chunkRead{}, false
	}
	return parseChunk(v.n, strings.Join(v.lines, "\n")+"\n")
}

// lastChunkView is the view of the chunk read last in the latest step,
// with what earlier reads that still show add to it.
func (c *conversation) lastChunkView() (chunkView, bool) {
	if len(c.steps) == 0 {
		return chunkView{}, false
	}
	calls := c.steps[len(c.steps)-1].calls
	for i := len(calls) - 1; i >= 0; i-- {
		cr := calls[i]
		if cr.call.Name == "read_file" && cr.ok && chunkPathRE.MatchString(cr.path()) {
			return c.chunkView(cr.path(), 0)
		}
	}
	return chunkView{}, false
}

// chunkView puts together what the visible reads of a chunk file from
// step from on show of it; ok is false when none shows any line. The
// newest read gives the file's length; a read of another length was of
// another version of the file.
func (c *conversation) chunkView(path string, from int) (chunkView, bool) {
	var parts []tools.FileLines
	for si := len(c.steps) - 1; si >= from; si-- {
		calls := c.steps[si].calls
		for i := len(calls) - 1; i >= 0; i-- {
			cr := calls[i]
			var read tools.FileLines
			if cr.call.Name == "read_file" && cr.ok && cr.path() == path && cr.data.Decode(&read) {
				if len(parts) == 0 || read.Total == parts[0].Total {
					parts = append(parts, read)
				}
			}
		}
	}
	if len(parts) == 0 {
		return chunkView{}, false
	}
	n, _ := strconv.Atoi(chunkPathRE.FindStringSubmatch(path)[1])
	v := chunkView{n: n, path: path, total: parts[0].Total}
	for grew := true; grew && !v.whole(); {
		grew = false
		for _, p := range parts {
			next := len(v.lines) + 1
			if p.First <= next && p.First+len(p.Lines) > next {
				v.lines = append(v.lines, p.Lines[next-p.First:]...)
				grew = true
			}
		}
	}
	return v, true
}

// parseChunk reads a chunk file: its header ("[chunk_004 | doc.pdf | pp.
// 3-4 | 2 Scope]") and its body.
func parseChunk(n int, content string) (chunkRead, bool) {
	if !strings.HasPrefix(content, "[chunk_") {
		return chunkRead{}, false
	}
	header, body, _ := strings.Cut(content, "\n")
	parts := strings.Split(strings.Trim(header, "[]"), " | ")
	c := chunkRead{n: n, body: strings.TrimPrefix(body, "\n")}
	if len(parts) > 1 {
		c.doc = parts[1]
	}
	rest := parts[min(2, len(parts)):]
	if len(rest) > 0 && (strings.HasPrefix(rest[0], "p. ") || strings.HasPrefix(rest[0], "pp. ")) {
		c.firstPage = atoi(strings.TrimLeft(strings.SplitN(rest[0], "-", 2)[0], "p. "))
		rest = rest[1:]
	}
	c.heading = strings.Join(rest, " | ")
	return c, true
}

// fileContent is the file as read_file returned it (as far as it was
// read).
func fileContent(cr callResult) string {
	var read tools.FileLines
	cr.data.Decode(&read)
	var b strings.Builder
	for _, line := range read.Lines {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// profileReads returns the text of the profile chunks read in the latest
// step, by document, when the step read the first k chunks of every
// document: the first chunks' text, and the text of the chunks sampled
// further in (see profileSample).
func (c *conversation) profileReads(f *facts, k int) (head, sample map[string]string, ok bool) {
	if len(c.steps) == 0 {
		return nil, nil, false
	}
	head, sample = map[string]string{}, map[string]string{}
	read := map[string]bool{}
	for _, cr := range c.steps[len(c.steps)-1].calls {
		if cr.call.Name == "read_file" && cr.ok && chunkPathRE.MatchString(cr.path()) {
			read[cr.path()] = true
			// A profile needs a sample of the text: a chunk cut by
			// read_file gives what was read of it.
			content := fileContent(cr)
			n := atoi(chunkPathRE.FindStringSubmatch(cr.path())[1])
			if ch, ok := parseChunk(0, content); ok {
				if rng, ok := f.chunked[ch.doc]; ok && n >= rng.first+k {
					sample[ch.doc] += ch.body + "\n"
				} else {
					head[ch.doc] += ch.body + "\n"
				}
			}
		}
	}
	for _, d := range f.inputs {
		if head[d] == "" {
			return nil, nil, false
		}
		// All of the sampled chunks, so that a profile made again (its
		// write was lost) is the one made the first time.
		rng, ok := f.chunked[d]
		if !ok {
			continue
		}
		for _, n := range profileSample(rng, k) {
			if !read[chunkPath(n)] {
				return nil, nil, false
			}
		}
	}
	return head, sample, len(head) > 0
}

// evidenceRead is the evidence of each document, by name, as the latest
// step read chunks/evidence.json; none when it did not (a job chunked
// before there was evidence).
func (c *conversation) evidenceRead() map[string]document.Evidence {
	out := map[string]document.Evidence{}
	if len(c.steps) == 0 {
		return out
	}
	for _, cr := range c.steps[len(c.steps)-1].calls {
		if cr.call.Name != "read_file" || !cr.ok || cr.path() != document.EvidenceFile {
			continue
		}
		if list, err := document.ParseEvidence([]byte(fileContent(cr))); err == nil {
			for _, d := range list.Documents {
				out[d.Document] = d.Evidence
			}
		}
	}
	return out
}

// profileLost reports whether the newest read of notes/document.md failed
// with no write of it since: the profile was never written.
func (c *conversation) profileLost() bool {
	for i := len(c.steps) - 1; i >= 0; i-- {
		calls := c.steps[i].calls
		for j := len(calls) - 1; j >= 0; j-- {
			cr := calls[j]
			if cr.path() != "notes/document.md" || !cr.answered {
				continue
			}
			switch cr.call.Name {
			case "write_file":
				return false
			case "read_file":
				// A read that did not run, or may not have, says nothing.
				if !agent.NotRun(cr.data) {
					return cr.data.Failed
				}
			}
		}
	}
	return false
}

// profiles reads the document profiles from the newest place that shows
// them whole: a read of notes/document.md or the write of it.
func (c *conversation) profiles() (map[string]profile, bool) {
	for i := len(c.steps) - 1; i >= 0; i-- {
		calls := c.steps[i].calls
		for j := len(calls) - 1; j >= 0; j-- {
			cr := calls[j]
			var text string
			switch {
			case cr.call.Name == "read_file" && cr.ok && cr.path() == "notes/document.md":
				text = fileContent(cr)
			case cr.call.Name == "write_file" && cr.path() == "notes/document.md":
				text, _ = cr.args["content"].(string)
			default:
				continue
			}
			if p := parseProfiles(text); len(p) > 0 {
				return p, true
			}
		}
	}
	return nil, false
}
