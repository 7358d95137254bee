// Package offlinemodel is the built-in offline model: a deterministic,
// rule-based extractor that works through a job like an LLM would —
// reading the conversation, calling the same tools, writing the same files
// — so that creator runs without any model server, and every LLM run has a
// baseline to be compared with.
package offlinemodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"creator/compaction"
	"creator/internal/agent"
	"creator/internal/document"
	"creator/internal/llm"
	"creator/internal/requirement"
	"creator/planner"
	"creator/tools"
)

// Name is the model name that selects the built-in model.
const Name = "builtin"

// Model is the built-in model. It keeps no state between calls: what it
// knows, it reads from the conversation, and what was cleared from the
// conversation it reads again from the workspace.
type Model struct {
	// GroupSize is how many chunks one task of the plan covers.
	GroupSize int
	// ProfileChunks is how many chunks of each document are read to learn
	// how it writes requirements.
	ProfileChunks int
}

// New returns the built-in model with its default settings.
func New() *Model { return &Model{GroupSize: 10, ProfileChunks: 5} }

// Name implements llm.Model.
func (m *Model) Name() string { return Name }

// Complete decides the next step from the conversation.
func (m *Model) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	if len(req.Tools) == 0 {
		// A request without tools asks for a summary of the conversation.
		text := summarize(req)
		return llm.Response{Content: text, FinishReason: "stop", Attempts: 1,
			Usage: llm.Usage{PromptTokens: requestSize(req) / 4, CompletionTokens: len(text) / 4}}, nil
	}
	var text string
	var calls []llm.ToolCall
	var err error
	st := readConversation(req.Messages)
	if len(req.Messages) > 0 && req.Messages[0].Data.Kind == tools.KindChunkAssignment {
		text, calls, err = m.subagent(req)
	} else {
		// A tool not sent yet but findable with search_tools can be
		// called by its exact name, which loads it.
		st.canDeclare = offers(req.Tools, declareTool) || offers(req.Tools, "search_tools")
		st.facts.canAnalyze = offers(req.Tools, tools.AnalyzeChunksName)
		text, calls, err = m.next(st)
	}
	if err != nil {
		return llm.Response{}, err
	}
	if st.wouldRepeat(calls) {
		return llm.Response{}, fmt.Errorf("%w: its next step would repeat the last one, which succeeded (%s); something in the workspace is not as it expects it, such as a profile in notes/document.md it cannot read",
			ErrNoProgress, callList(calls))
	}
	for i := range calls {
		calls[i].ID = fmt.Sprintf("b%d_%d", len(req.Messages), i+1)
	}
	resp := llm.Response{Content: text, ToolCalls: calls, FinishReason: "stop", Attempts: 1}
	if len(calls) > 0 {
		resp.FinishReason = "tool_calls"
	}
	// The built-in model has no tokenizer of its own; it reports the size
	// of what it read and wrote in the usual four bytes per token.
	in := requestSize(req)
	out := len(text)
	for _, c := range calls {
		out += len(c.Name) + len(c.Arguments)
	}
	resp.Usage = llm.Usage{PromptTokens: in / 4, CompletionTokens: max(out/4, 1)}
	return resp, nil
}

// ErrNoProgress means the built-in model would only repeat itself. It
// stops the job at once instead of looping until a limit.
var ErrNoProgress = errors.New("the built-in model cannot make progress")

// wouldRepeat reports whether calls are the calls of the latest step again,
// when every one of them succeeded: a step that cannot get further.
func (c *conversation) wouldRepeat(calls []llm.ToolCall) bool {
	if len(c.steps) == 0 || len(calls) == 0 {
		return false
	}
	last := c.steps[len(c.steps)-1].calls
	if len(last) != len(calls) {
		return false
	}
	for i, cr := range last {
		if !cr.ok || agent.CallKey(cr.call) != agent.CallKey(calls[i]) {
			return false
		}
	}
	return true
}

func callList(calls []llm.ToolCall) string {
	var parts []string
	for _, c := range calls {
		parts = append(parts, c.Name+" "+c.Arguments)
	}
	return strings.Join(parts, "; ")
}

func requestSize(req llm.Request) int {
	n := len(req.System)
	for _, msg := range req.Messages {
		n += len(msg.Content) + len(msg.Reasoning)
		for _, c := range msg.ToolCalls {
			n += len(c.Name) + len(c.Arguments)
		}
	}
	return n
}

var (
	// A step that saves a chunk's requirements announces it; a summary of
	// this model's says how far it got.
	savedChunkRE  = regexp.MustCompile(`^chunk_(\d+): \d+ requirement`)
	summaryUpToRE = regexp.MustCompile(`Chunks processed up to chunk_(\d+)\.`)
)

// summarize writes the built-in model's summary of the turns it is given
// (as the request's data): how far it got, which it needs to continue; the
// plan is in the brief.
func summarize(req llm.Request) string {
	var turns []llm.Message
	for _, m := range req.Messages {
		if m.Data.Kind == compaction.KindTurns {
			m.Data.Decode(&turns)
		}
	}
	saves, last := 0, 0
	for _, m := range turns {
		switch m.Role {
		case llm.RoleAssistant:
			for _, c := range m.ToolCalls {
				if c.Name == "save_requirement" {
					saves++
				}
			}
			if g := savedChunkRE.FindStringSubmatch(strings.TrimSpace(m.Content)); g != nil {
				last = max(last, atoi(g[1]))
			}
		case llm.RoleUser:
			// An earlier summary in these turns carries its own count forward.
			for _, g := range summaryUpToRE.FindAllStringSubmatch(m.Content, -1) {
				last = max(last, atoi(g[1]))
			}
		}
	}
	var b strings.Builder
	b.WriteString("Work so far follows the built-in method: plan, extract, chunk, profile, then the chunks in groups, then the output.\n")
	fmt.Fprintf(&b, "- %d requirements were submitted with save_requirement in these turns; they are in requirements/.\n", saves)
	if last > 0 {
		fmt.Fprintf(&b, "- Chunks processed up to %s.\n", chunkID(last))
	}
	b.WriteString("- Continue with the task in progress of the plan below; the document profile is in notes/document.md.\n")
	return b.String()
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// call makes a tool call with JSON arguments.
func call(name string, args any) llm.ToolCall {
	data, _ := json.Marshal(args)
	return llm.ToolCall{Name: name, Arguments: string(data)}
}

// Task texts of the plan. They do not change when the plan is rewritten,
// so the planner keeps their status.
const taskRead = "Read instructions.md and look at input/"

func taskExtract(doc string) string { return "Extract the text of " + doc }
func taskChunk(doc string) string   { return "Split " + doc + " into chunks" }

// taskDoc is the document a task text made by taskOf names ("a.pdf" for
// taskChunk("a.pdf")); ok is false for a text taskOf does not make.
func taskDoc(text string, taskOf func(doc string) string) (doc string, ok bool) {
	prefix, suffix, _ := strings.Cut(taskOf("\x00"), "\x00")
	if !strings.HasPrefix(text, prefix) || !strings.HasSuffix(text, suffix) {
		return "", false
	}
	return strings.TrimSuffix(strings.TrimPrefix(text, prefix), suffix), true
}

const taskProfile = "Profile the documents in notes/document.md"

func taskGroup(a, b int) string {
	return fmt.Sprintf("Find and save the requirements in %s to %s", chunkID(a), chunkID(b))
}

const taskFinalize = "Build the output with finalize_output and check it"

var groupRE = regexp.MustCompile(`^Find and save the requirements in chunk_(\d+) to chunk_(\d+)$`)

func chunkID(n int) string   { return fmt.Sprintf("chunk_%03d", n) }
func chunkPath(n int) string { return "chunks/" + chunkID(n) + ".md" }

// next decides the next step: a short note of what it does, and the tool
// calls. A chunk whose requirements were all refused in the latest step
// is declared empty first, saying so.
func (m *Model) next(st *conversation) (string, []llm.ToolCall, error) {
	st.refused = st.refusedChunks()
	text, calls, err := m.decide(st)
	if len(st.refused) > 0 && err == nil {
		calls = append(st.declareRefused(), calls...)
	}
	return text, calls, err
}

// decide is the step the plan calls for: the first open task's, or, with
// every task done, the output's and its coverage's.
func (m *Model) decide(st *conversation) (string, []llm.ToolCall, error) {
	f := st.facts
	if f.plan == nil {
		text, calls := planJob(f)
		return text, calls, nil
	}
	cur := f.firstOpen()
	if cur == nil {
		switch {
		case !f.finalized:
			return "Every task is done; building the output once more.", []llm.ToolCall{call("finalize_output", struct{}{})}, nil
		case st.hasGaps():
			return st.coverGaps(nil)
		}
		return "Every task of the plan is completed and the output is written.", nil, nil
	}
	s := &taskStep{task: cur}
	if cur.Status != planner.InProgress {
		s.add(call("start_task", map[string]any{"task_number": cur.Number}))
	}
	var note string
	extractDoc, isExtract := taskDoc(cur.Text, taskExtract)
	chunkDoc, isChunk := taskDoc(cur.Text, taskChunk)
	analyseDoc, analyseFirst, analyseLast, isAnalyse := analyseTask(cur.Text)
	switch {
	case cur.Text == taskRead:
		s.done(fmt.Sprintf("read instructions.md; %d document(s) in input/: %s", len(f.inputs), strings.Join(f.inputs, ", ")))
		note = "The instructions are read and the documents are known."
	case isExtract:
		note = s.extract(f, extractDoc)
	case isChunk:
		note = m.chunk(f, s, chunkDoc)
	case cur.Text == taskProfile:
		note = m.profile(st, f, s)
	case isAnalyse:
		note = m.analyse(st, f, s, analyseDoc, analyseFirst, analyseLast)
	case groupRE.MatchString(cur.Text):
		g := groupRE.FindStringSubmatch(cur.Text)
		text, calls := m.workGroup(st, f, cur, atoi(g[1]), atoi(g[2]), s.calls)
		return text, calls, nil
	case cur.Text == taskFinalize && f.finalized && st.hasGaps():
		return st.coverGaps(s.calls)
	case cur.Text == taskFinalize:
		note = s.finalize(f)
	default:
		// A task this model did not write: mark it done so the plan can finish.
		s.done("not part of the built-in method")
		note = "Closing a task the built-in method does not cover."
	}
	return note, s.calls, nil
}

// planJob is the step before the plan is known: read the instructions,
// look at the documents, write the plan (or read it again).
func planJob(f *facts) (string, []llm.ToolCall) {
	switch {
	case f.planWritten:
		return "Looking at the plan.", []llm.ToolCall{call("read_plan", struct{}{})}
	case !f.instructionsRead:
		return "Reading the instructions first.", []llm.ToolCall{call("read_file", map[string]any{"path": "instructions.md", "limit": 60})}
	case len(f.inputs) == 0:
		return "Looking at the source documents.", []llm.ToolCall{call("list_files", map[string]any{"path": "input"})}
	}
	tasks := []string{taskRead}
	for _, d := range f.inputs {
		tasks = append(tasks, taskExtract(d))
	}
	for _, d := range f.inputs {
		tasks = append(tasks, taskChunk(d))
	}
	tasks = append(tasks, taskProfile, taskFinalize)
	return "Planning the job: extract, chunk, profile, then work through the chunks in groups.",
		[]llm.ToolCall{call("write_plan", map[string]any{"tasks": tasks})}
}

// taskStep is a step that works on one task of the plan.
type taskStep struct {
	task  *planner.Task
	calls []llm.ToolCall
}

func (s *taskStep) add(c ...llm.ToolCall) { s.calls = append(s.calls, c...) }

// done completes the task with notes.
func (s *taskStep) done(notes string) {
	s.add(call("complete_task", map[string]any{"task_number": s.task.Number, "notes": notes}))
}

func (s *taskStep) extract(f *facts, doc string) string {
	if out, ok := f.extracted[doc]; ok {
		s.done("text in " + out)
		return "Extracted " + doc + "."
	}
	s.add(call("extract_document_text", map[string]any{"path": "input/" + doc}))
	return "Extracting the text of " + doc + "."
}

// chunk splits a document into chunks; after the last document, the plan
// gets one task per group of chunks.
func (m *Model) chunk(f *facts, s *taskStep, doc string) string {
	rng, ok := f.chunked[doc]
	if !ok {
		path := "input/" + doc
		if out, ok := f.extracted[doc]; ok {
			path = out
		}
		s.add(call("chunk_document", map[string]any{"path": path}))
		return "Splitting " + doc + " into chunks."
	}
	if f.lastChunkTask(s.task.Number) && !f.hasGroups() && !f.analysing() {
		var tasks []string
		for _, t := range f.plan {
			if t.Text == taskFinalize && f.canAnalyze {
				tasks = append(tasks, f.analyseTasks()...)
			} else if t.Text == taskFinalize {
				tasks = append(tasks, m.groupTasks(f)...)
			}
			tasks = append(tasks, t.Text)
		}
		s.add(call("write_plan", map[string]any{"tasks": tasks}))
	}
	s.done(fmt.Sprintf("%d chunks: %s to %s", rng.last-rng.first+1, chunkID(rng.first), chunkID(rng.last)))
	return fmt.Sprintf("%s is in %d chunks.", doc, rng.last-rng.first+1)
}

// profile reads the first chunks of each document, then writes how each
// marks its requirements to notes/document.md.
func (m *Model) profile(st *conversation, f *facts, s *taskStep) string {
	const notes = "notes/document.md: language, identifier and how each document marks requirements"
	if f.profilesWritten {
		s.done(notes)
		return "The documents are profiled."
	}
	if w, ok := m.profileWrite(st, f); ok {
		s.add(w)
		s.done(notes)
		return "Writing the document profile."
	}
	s.add(m.profileChunkReads(f)...)
	return "Reading the first chunks of each document to learn how it writes requirements."
}

// profileWrite is the write of notes/document.md from the first chunks of
// each document, when their reads are in the conversation.
func (m *Model) profileWrite(st *conversation, f *facts) (llm.ToolCall, bool) {
	texts, samples, ok := st.profileReads(f, m.ProfileChunks)
	if !ok {
		return llm.ToolCall{}, false
	}
	evidence := st.evidenceRead()
	var b strings.Builder
	b.WriteString("# Document profile\n\nHow each document writes its requirements; the rules for finding them follow from it.\n\n")
	for _, d := range f.inputs {
		var ev *document.Evidence
		if e, ok := evidence[d]; ok {
			ev = &e
		}
		b.WriteString(makeProfile(d, texts[d], ev, samples[d]).render() + "\n")
	}
	return call("write_file", map[string]any{"path": "notes/document.md", "content": b.String()}), true
}

// profileChunkReads read the first chunks of each document, which the
// profile is made from, and the evidence found in the whole of each.
func (m *Model) profileChunkReads(f *facts) []llm.ToolCall {
	calls := []llm.ToolCall{call("read_file", map[string]any{"path": document.EvidenceFile, "limit": 5000})}
	for _, d := range f.inputs {
		rng, ok := f.chunked[d]
		if !ok {
			continue
		}
		for _, n := range profileSample(rng, m.ProfileChunks) {
			limit := 2000 // the first chunks whole: the profile is made from them
			if n >= rng.first+m.ProfileChunks {
				limit = sampleLines
			}
			calls = append(calls, call("read_file", map[string]any{"path": chunkPath(n), "limit": limit}))
		}
	}
	return calls
}

// sampleChunks is how many chunks beyond the first ones the profile reads,
// spread over the rest of the document: the tables or rules of a document
// may begin only after many pages of front matter.
const sampleChunks = 4

// sampleLines is how many lines of a sampled chunk the profile reads: as
// many as tell a verification table or a rule list from prose (the shape of
// every corpus document is the one whole chunks give), and few enough that
// the main agent's prompt, which keeps the profile's reads to the end of a
// job, stays under the 20,000 tokens BenchmarkParallelNIST80053 allows
// with --parallel (NIST SP 800-53r3: 25,268 tokens with whole chunks,
// 19,135 with 40 lines).
const sampleLines = 40

// profileSample are the chunks the profile of a document is made from: its
// first k chunks, and sampleChunks spread evenly over the rest.
func profileSample(rng chunkRange, k int) []int {
	var out []int
	for n := rng.first; n <= rng.last && n < rng.first+k; n++ {
		out = append(out, n)
	}
	rest := rng.last - (rng.first + k) + 1
	for i := 1; rest > 0 && i <= sampleChunks; i++ {
		n := rng.first + k + i*rest/(sampleChunks+1)
		if n > out[len(out)-1] && n <= rng.last {
			out = append(out, n)
		}
	}
	return out
}

// finalize builds the output; what finalize_output refused is removed
// first, then it is built again.
func (s *taskStep) finalize(f *facts) string {
	switch {
	case f.finalized:
		s.done(f.finalizeNote)
		return "The output is written and valid."
	case f.finalizeFailed && !f.cleanedUp:
		for _, p := range unique(f.broken) {
			s.add(call("delete_file", map[string]any{"path": p}))
		}
		s.add(call("finalize_output", struct{}{}))
		return "Removing requirements that finalize_output refused, then building the output again."
	}
	s.add(call("finalize_output", struct{}{}))
	return "Building the output."
}

func (m *Model) groupTasks(f *facts) []string {
	size := max(m.GroupSize, 1)
	var out []string
	for _, d := range f.inputs {
		rng := f.chunked[d]
		for a := rng.first; a <= rng.last; a += size {
			out = append(out, taskGroup(a, min(a+size-1, rng.last)))
		}
	}
	return out
}

// workGroup processes the chunks of one task: save the requirements of the
// chunk read in the last step, read the next one.
func (m *Model) workGroup(st *conversation, f *facts, cur *planner.Task, a, b int, calls []llm.ToolCall) (string, []llm.ToolCall) {
	repeat, _, reread := st.savesToRepeat()
	calls = append(calls, repeat...)
	if reread == 0 {
		reread = st.lostReread(f)
	}
	profiles, ok := st.profiles()
	if !ok && st.profileLost() {
		// The write of the profile never ran (its arguments were lost on
		// the way): write it again, from the first chunks.
		if w, ok := m.profileWrite(st, f); ok {
			return "Writing the document profile again: notes/document.md does not exist.", append(calls, w)
		}
		if reads := m.profileChunkReads(f); len(reads) > 0 {
			return "Reading the first chunks of each document again, to write the missing document profile.", append(calls, reads...)
		}
	}
	if !ok {
		calls = append(calls, call("read_file", map[string]any{"path": "notes/document.md"}))
		next := max(a, f.processedUpTo(a, b)+1)
		if view, read := st.lastChunkView(); read && view.n >= a && view.n <= b && f.processed[view.n] {
			// The last step read a chunk done before again (to save what
			// was lost of it), and the profile is needed to analyse it.
			next = view.n
		}
		if reread > 0 {
			next = reread
		}
		if next <= b {
			calls = append(calls, call("read_file", map[string]any{"path": chunkPath(next), "limit": 2000}))
		}
		return "Reading the document profile again.", calls
	}
	view, read := st.lastChunkView()
	if reread > 0 && !(read && view.n == reread) {
		calls = append(calls, call("read_file", map[string]any{"path": chunkPath(reread), "limit": 2000}))
		return "Reading " + chunkID(reread) + " again: saving its requirements was cut off.", calls
	}
	if read && (view.n < a || view.n > b) && f.processed[view.n] && view.whole() {
		// A chunk of an earlier group read again to save what was lost of
		// it, after its group was completed in the same answer as the
		// saves: analyse it, then go on with this group.
		if last, ok := view.chunk(); ok {
			cover, n := st.cover(f, last, profiles)
			calls = append(calls, cover...)
			note := fmt.Sprintf("%s: %d requirement(s). ", chunkID(last.n), n)
			if next := max(a, f.processedUpTo(a, b)+1); next <= b {
				calls = append(calls, call("read_file", map[string]any{"path": chunkPath(next), "limit": 2000}))
				return note + "Reading " + chunkID(next) + ".", calls
			}
			return note, calls
		}
	}
	if read && view.n >= a && view.n <= b {
		if !view.whole() {
			calls = append(calls, view.rest())
			return fmt.Sprintf("Reading the rest of %s from line %d.", chunkID(view.n), len(view.lines)+1), calls
		}
		if last, ok := view.chunk(); ok {
			cover, n := st.cover(f, last, profiles)
			calls = append(calls, cover...)
			note := fmt.Sprintf("%s: %d requirement(s). ", chunkID(last.n), n)
			if last.n >= b {
				calls = append(calls, call("complete_task", map[string]any{"task_number": cur.Number,
					"notes": fmt.Sprintf("read %s to %s and saved their requirements", chunkID(a), chunkID(b))}))
				return note + "This group of chunks is done.", calls
			}
			calls = append(calls, call("read_file", map[string]any{"path": chunkPath(last.n + 1), "limit": 2000}))
			return note + "Reading " + chunkID(last.n+1) + ".", calls
		}
	}
	next := max(a, f.processedUpTo(a, b)+1)
	if next > b {
		calls = append(calls, call("complete_task", map[string]any{"task_number": cur.Number,
			"notes": fmt.Sprintf("read %s to %s and saved their requirements", chunkID(a), chunkID(b))}))
		return "This group of chunks is done.", calls
	}
	calls = append(calls, call("read_file", map[string]any{"path": chunkPath(next), "limit": 2000}))
	return "Reading " + chunkID(next) + ".", calls
}

func unique(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range list {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// analyzeChunk finds the requirements of a chunk by the rules of its
// document's shape (shapes.go), then applies the document's evidence to
// each (evidence.go) and makes them drafts, in the order they stand.
func analyzeChunk(c chunkRead, profiles map[string]profile) []draft {
	p := profiles[c.doc]
	sh := shapeNamed(p.Shape)
	all := sh.extract(c, p)
	sort.SliceStable(all, func(i, j int) bool { return all[i].s.start < all[j].s.start })
	var out []draft
	seen := map[string]bool{}
	for _, x := range all {
		// The section the quote stands in: a chunk may hold several.
		section := document.SectionIn(c.heading, c.body, x.s.start, c.firstPage > 0)
		if !p.applyEvidence(&x, section) {
			continue // in a part the document marks informative
		}
		if p.UpperOnly && !sh.layoutStates && x.id == "" && !keywordCue(x.f.cue) {
			continue // no keyword in a document whose keywords carry its requirements
		}
		// Rows that begin alike are told apart by their whole text.
		key := x.quote + "\x00" + x.text
		if len(strings.Fields(x.quote)) < 4 && x.text == "" || seen[key] || strings.Contains(x.text+x.quote, tools.LineCut) {
			continue
		}
		seen[key] = true
		text := x.quote
		if x.text != "" {
			text = x.text
		}
		if p.KeywordsWhy != "" && keywordCue(x.f.cue) {
			x.evidence = append([]string{p.KeywordsWhy}, x.evidence...)
		}
		d := buildDraft(text, c.doc, chunkID(c.n), section, x.f, p, x.evidence)
		d.Citations[0].Quote = x.quote
		for _, q := range x.more {
			d.Citations = append(d.Citations, requirement.Citation{Document: c.doc, Chunk: chunkID(c.n), Quote: q})
		}
		d.SourceID = x.id
		if x.levels != "" || len(x.attrs) > 0 {
			d.Attributes = map[string]string{}
			for k, v := range x.attrs {
				d.Attributes[k] = v
			}
		}
		if x.levels != "" {
			d.Attributes["level"] = x.levels
		}
		out = append(out, d)
	}
	return out
}
