package jobrun

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"creator/internal/agent"
	"creator/internal/document"
	"creator/internal/job"
	"creator/internal/llm"
	"creator/templates"
	"creator/tools"
)

// DefaultParallel is how many sub-agents analyse chunks at once when
// --parallel is not given.
const DefaultParallel = 4

// MaxSubagentSteps bounds the model calls of one sub-agent that saved
// nothing new: a chunk takes one or two; more means the sub-agent is
// stuck, and its chunk is better left to the main agent than paid for
// until the job's budget runs out. Each requirement it staged gives it
// one call more, so that a model making one call per answer is not cut
// off in the middle of a chunk of many requirements (which would be
// committed as if whole).
const MaxSubagentSteps = 12

// fanout is analyze_chunks: it runs one sub-agent per chunk, at most
// parallel at once, and commits their work in the document's order.
type fanout struct {
	r        *run
	parallel int
	searcher tools.Searcher

	// mu serialises analyze_chunks calls: the main agent makes one at a
	// time, but the commits of one must not interleave with another's.
	mu sync.Mutex
	// total and running are the chunks of the call under way and the
	// sub-agents at work on them, for the progress display.
	countMu        sync.Mutex
	total, running int
}

// chunkResult is what one sub-agent left.
type chunkResult struct {
	index   int
	outcome job.ChunkOutcome
	err     error // the job's files could not be written
}

// AnalyzeChunks implements tools.ChunkAnalyzer.
func (f *fanout) AnalyzeChunks(ctx context.Context, chunks []string, note string) (tools.AnalyzedChunks, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.r.job.FinishCommits(); err != nil {
		return tools.AnalyzedChunks{}, err
	}
	uncovered, err := f.uncovered()
	if err != nil {
		return tools.AnalyzedChunks{}, err
	}
	ids, notes, err := f.chunkList(chunks, uncovered)
	if err != nil {
		return tools.AnalyzedChunks{}, err
	}
	if len(ids) == 0 {
		return tools.AnalyzedChunks{}, fmt.Errorf("every chunk is covered already; nothing to analyse")
	}
	rows := make([]tools.ChunkRow, len(ids))
	results := make(chan chunkResult, len(ids))
	todo, err := f.earlierOutcomes(ids, uncovered, rows, results)
	if err != nil {
		return tools.AnalyzedChunks{}, err
	}
	f.setTotal(len(ids))
	f.startSubagents(ctx, ids, todo, note, results)
	next, firstErr := f.commitInOrder(ctx, ids, rows, results)
	// An interruption or a budget leaves later chunks unsettled: staged
	// ones are committed by the next call, the rest are redone.
	var done []tools.ChunkRow
	for i := range next {
		done = append(done, rows[i])
	}
	f.setTotal(0)
	res := tools.AnalyzedChunks{Chunks: done, Notes: notes}
	if firstErr != nil {
		return res, firstErr
	}
	if why := f.halted(ctx); why != "" && next < len(ids) {
		return res, fmt.Errorf("%s after %d of %d chunks", why, next, len(ids))
	}
	return res, nil
}

// halted says why no sub-agent may start now — the job was interrupted,
// or the job's totals reached one of its budgets — or "" if one may. A
// sub-agent started after that would stop before its first call, and
// only leave files behind for a chunk it never read.
func (f *fanout) halted(ctx context.Context) string {
	if ctx.Err() != nil {
		return "interrupted"
	}
	if out, ok := f.r.cfg.limits().Reached(f.r.meter.Totals()); ok {
		return out.Reason
	}
	return ""
}

// earlierOutcomes sends to results the outcomes of the chunks of ids that
// an earlier call analysed, the rows of those it committed filled in;
// todo are the indexes in ids of the chunks to analyse now.
func (f *fanout) earlierOutcomes(ids []string, uncovered map[string]bool, rows []tools.ChunkRow, results chan<- chunkResult) (todo []int, err error) {
	for i, id := range ids {
		o, ok, err := f.r.job.ChunkOutcome(id)
		if err != nil {
			return nil, err
		}
		switch {
		// A chunk committed before is not sent again — unless it is not
		// covered any more (its requirements were deleted since).
		case ok && o.State == job.ChunkCommitted && !uncovered[id]:
			rows[i] = tools.ChunkRow{Chunk: id, Status: tools.ChunkBefore, IDs: o.IDs, Duplicates: o.Duplicates, Empty: o.Empty}
			results <- chunkResult{index: i, outcome: o}
		case ok && o.State == job.ChunkStaged:
			// Finished before a kill or an interruption, waiting for
			// the chunks before it: its work is committed in its turn.
			results <- chunkResult{index: i, outcome: o}
		default:
			todo = append(todo, i)
		}
	}
	return todo, nil
}

// startSubagents analyses the chunks todo (indexes in ids), at most
// f.parallel at once, each outcome to results, and closes results when
// all are done. Once the job is halted (interrupted, or at a budget) no
// more chunks are started, and those not started have no outcome; the
// sub-agents at work stop at their next call.
func (f *fanout) startSubagents(ctx context.Context, ids []string, todo []int, note string, results chan<- chunkResult) {
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(f.parallel, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				// Asked again here: the budget may have run out while
				// the chunk waited for a free worker.
				if f.halted(ctx) != "" {
					continue
				}
				o, err := f.analyze(ctx, ids[i], note)
				results <- chunkResult{index: i, outcome: o, err: err}
			}
		}()
	}
	go func() {
		defer close(work)
		for _, i := range todo {
			if f.halted(ctx) != "" {
				return
			}
			select {
			case work <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
}

// commitInOrder is the reorder buffer: outcomes wait until every chunk
// before them is settled, then are committed in order, each into its row.
// After an interruption nothing more is committed — staged work is on
// disk, and the next call commits it in its turn — so that the job stops
// at once. A chunk whose sub-agent a budget cut short holds back the
// chunks after it the same way: it is redone after a resume, and
// committing them first would give their requirements other ids than a
// run that never stopped. next is the number of chunks settled; firstErr
// the first of the results' errors.
func (f *fanout) commitInOrder(ctx context.Context, ids []string, rows []tools.ChunkRow, results <-chan chunkResult) (next int, firstErr error) {
	pending := map[int]chunkResult{}
	held := false
	for res := range results {
		pending[res.index] = res
		for !held && ctx.Err() == nil {
			res, ok := pending[next]
			if !ok {
				break
			}
			if res.err == nil && res.outcome.State == job.ChunkFailed && rows[next].Status != tools.ChunkBefore && f.halted(ctx) != "" {
				held = true
				break
			}
			delete(pending, next)
			if res.err != nil && firstErr == nil {
				firstErr = res.err
			}
			if rows[next].Status != tools.ChunkBefore {
				rows[next] = f.settle(ids[next], res.outcome)
			}
			next++
		}
	}
	return next, firstErr
}

// uncovered are the chunks the job's coverage names not covered.
func (f *fanout) uncovered() (map[string]bool, error) {
	rep, err := f.r.job.Coverage()
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, g := range rep.Gaps {
		out[g.ID] = true
	}
	return out, nil
}

// chunkList is the chunks asked for, as manifest ids in the document's
// order without repeats; none asked for (or "all") is every chunk not
// covered yet (uncovered). A range ("chunk_001-chunk_010", "3 to 7") is
// its chunks; notes say how such names were read.
func (f *fanout) chunkList(asked []string, uncovered map[string]bool) (ids, notes []string, err error) {
	j := f.r.job
	man, err := j.Manifest()
	if err != nil {
		return nil, nil, err
	}
	if len(man.Chunks) == 0 {
		return nil, nil, fmt.Errorf("there are no chunks yet; split the documents with chunk_document first")
	}
	want := map[string]bool{}
	all := len(asked) == 0
	var unknown []string
	for _, a := range asked {
		if mc, ok := man.Lookup(a); ok {
			want[mc.ID] = true
			continue
		}
		if everyChunkRE.MatchString(a) {
			all = true
			notes = append(notes, fmt.Sprintf("read %q as every chunk not covered yet", a))
			continue
		}
		if from, to, ok := chunkRange(man, a); ok {
			for _, c := range man.Chunks[from : to+1] {
				want[c.ID] = true
			}
			notes = append(notes, fmt.Sprintf("read %q as %s to %s", a, man.Chunks[from].ID, man.Chunks[to].ID))
			continue
		}
		unknown = append(unknown, fmt.Sprintf("%q", a))
	}
	if len(unknown) > 0 {
		return nil, nil, fmt.Errorf("no such chunk: %s; the chunks are %s to %s, and nothing was analysed", strings.Join(unknown, ", "), man.Chunks[0].ID, man.Chunks[len(man.Chunks)-1].ID)
	}
	if all {
		for id := range uncovered {
			want[id] = true
		}
	}
	for _, c := range man.Chunks {
		if want[c.ID] {
			ids = append(ids, c.ID)
		}
	}
	return ids, notes, nil
}

var (
	everyChunkRE = regexp.MustCompile(`(?i)^\s*(all|\*|every|all chunks|every chunk)\s*$`)
	rangeRE      = regexp.MustCompile(`(?i)^\s*(.+?)\s*(?:\.\.\.?|–|—|-|\bto\b|\bthrough\b)\s*(.+?)\s*$`)
)

// chunkRange reads a range of chunks: two names the manifest resolves,
// the first not after the second; from and to are indexes of its chunks.
func chunkRange(man document.Manifest, s string) (from, to int, ok bool) {
	g := rangeRE.FindStringSubmatch(s)
	if g == nil {
		return 0, 0, false
	}
	a, okA := man.Lookup(g[1])
	b, okB := man.Lookup(g[2])
	if !okA || !okB {
		return 0, 0, false
	}
	from, to = slices.IndexFunc(man.Chunks, func(c document.ManifestChunk) bool { return c.ID == a.ID }), slices.IndexFunc(man.Chunks, func(c document.ManifestChunk) bool { return c.ID == b.ID })
	return from, to, from <= to
}

// analyze runs one sub-agent on a chunk and records how it ended. The
// error is for the job's files; a sub-agent that failed is an outcome.
func (f *fanout) analyze(ctx context.Context, chunk, note string) (job.ChunkOutcome, error) {
	j := f.r.job
	task, err := j.AssignChunk(chunk, note)
	if err != nil {
		return job.ChunkOutcome{}, err
	}
	staging, journal, err := j.StartChunk(task)
	if err != nil {
		return job.ChunkOutcome{}, err
	}
	f.r.events.SubagentStarted(chunk)
	f.addRunning(1)
	defer f.addRunning(-1)

	reg, err := tools.NewRegistry(tools.SubagentTools(staging, staging, j.Files(), f.searcher)...)
	if err != nil {
		return job.ChunkOutcome{}, err
	}
	done := &chunkDone{staging: staging}
	limits := f.r.cfg.limits()
	limits.MaxOwnSteps, limits.OwnProgress = MaxSubagentSteps, staging.Staged
	a := &agent.Agent{
		Model: f.r.cfg.Model, Tools: reg, Completion: done, Journal: journal,
		Observer: observers{done, f.r.usage, f.r.report, f.r.events},
		System:   templates.SubagentPrompt, Limits: limits, Price: f.r.agent.Price, Meter: f.r.meter, Label: chunk, Now: f.r.cfg.Now,
	}
	out, err := a.Start(ctx, assignmentMessage(task))
	if err != nil {
		return job.ChunkOutcome{}, err
	}
	// Only a sub-agent that finished keeps its work. One that stopped —
	// interrupted between the calls of an answer, its model failing after
	// some saves, a budget reached before it saved the rest — may have
	// staged part of what it meant to: its chunk is redone from the start.
	own := a.OwnTotals()
	var o job.ChunkOutcome
	if out.Kind == agent.Completed {
		o, err = staging.Finish(own.Steps)
	} else {
		stopped := out.Kind.String()
		if out.Reason != "" && out.Reason != stopped {
			stopped += ": " + out.Reason
		}
		o, err = staging.Discard(own.Steps, stopped)
	}
	if err != nil {
		return o, err
	}
	f.r.events.SubagentFinished(chunk, len(o.Records), o.Empty, errorOf(o), own.Steps, own.Tokens())
	return o, nil
}

// errorOf is the error a failed outcome carries.
func errorOf(o job.ChunkOutcome) string {
	if o.State == job.ChunkFailed {
		return o.Error
	}
	return ""
}

// settle commits a staged chunk, or reports why it is not accounted for.
func (f *fanout) settle(chunk string, o job.ChunkOutcome) tools.ChunkRow {
	row := tools.ChunkRow{Chunk: chunk, Requests: o.Requests}
	if o.State != job.ChunkStaged {
		row.Status, row.Error = tools.ChunkFailed, o.Error
		if row.Error == "" {
			row.Error = "not analysed"
		}
		return row
	}
	c, err := f.r.job.CommitChunk(chunk)
	if err != nil {
		row.Status, row.Error = tools.ChunkFailed, err.Error()
		return row
	}
	row.IDs, row.Duplicates, row.Cited = c.IDs, c.Duplicates, c.Cited()
	row.Status = tools.ChunkSaved
	if len(c.Records) == 0 {
		row.Status, row.Empty = tools.ChunkEmpty, c.Empty
	}
	f.r.coverage.committed(row.Cited)
	f.changed(0, len(row.IDs))
	return row
}

// setTotal starts (total > 0) or ends (0) an analyze_chunks call.
func (f *fanout) setTotal(total int) {
	f.countMu.Lock()
	f.total, f.running = total, 0
	f.countMu.Unlock()
	f.changed(0, 0)
}

func (f *fanout) addRunning(d int) { f.changed(d, 0) }

// changed tells the reporter of sub-agents started or ended and of the
// requirements a commit saved.
func (f *fanout) changed(running, saved int) {
	f.countMu.Lock()
	f.running += running
	p := ChunkProgress{Total: f.total, Running: f.running, Saved: saved}
	f.countMu.Unlock()
	f.r.report.ChunksChanged(p)
}

// ChunkProgress is how far an analyze_chunks call has come: its chunks
// (0 once it ended) and the sub-agents at work, with the requirements the
// commit that caused the report saved, for a count of the job's.
type ChunkProgress struct {
	Total, Running int
	Saved          int
}

// assignmentMessage is a sub-agent's first message: where the chunk
// stands, the main agent's guidance, then the chunk whole — last, so that
// what every sub-agent of the job is sent alike comes first.
func assignmentMessage(a tools.ChunkAssignment) llm.Message {
	var b strings.Builder
	fmt.Fprintf(&b, "Document: %s (chunk %d of %d)\nChunk: %s (%s)\n", a.Document, a.Index, a.Of, a.Chunk, a.Text.Path)
	if a.Section != "" {
		fmt.Fprintf(&b, "Section: %s\n", a.Section)
	}
	if a.Note != "" {
		fmt.Fprintf(&b, "\nGuidance from the main agent:\n%s\n", a.Note)
	}
	fmt.Fprintf(&b, "\nThe chunk, whole (%d lines):\n\n%s", a.Text.Total, a.Content())
	return llm.Message{Role: llm.RoleUser, Content: b.String(), Data: llm.MessageData{Kind: tools.KindChunkAssignment, Value: llm.ValueOf(a)}}
}

// chunkDone is a sub-agent's completion check. The sub-agent is done
// when an answer without a tool call finds its chunk accounted for, or at
// once after an answer that accounted for it in which every call worked —
// unless that answer made a single save: a model that saves one
// requirement per answer has more to save, and is asked once more.
type chunkDone struct {
	staging *job.Staging

	mu       sync.Mutex
	calls    int  // the tool calls of the latest answer
	failed   bool // one of them failed
	declared bool // one of them declared the chunk empty
}

func (c *chunkDone) Check() (agent.CompletionStatus, error) {
	c.mu.Lock()
	calls, failed, declared := c.calls, c.failed, c.declared
	c.mu.Unlock()
	accounted := c.staging.Accounted()
	switch {
	case accounted && calls == 0:
		return agent.CompletionStatus{Done: true}, nil
	case accounted && !failed && (calls > 1 || declared):
		return agent.CompletionStatus{Done: true}, nil
	case failed:
		return agent.CompletionStatus{Missing: []string{"fix the calls that failed, or answer without a tool call if nothing is left to save"}}, nil
	case accounted:
		return agent.CompletionStatus{Missing: []string{"save the chunk's other requirements, or answer without a tool call if there are none"}}, nil
	}
	return agent.CompletionStatus{Missing: []string{"save the chunk's requirements with save_requirement, citing it, or declare it empty with declare_chunk_empty"}}, nil
}

func (c *chunkDone) ModelCalled(m agent.ModelCall) {
	c.mu.Lock()
	c.calls, c.failed, c.declared = m.ToolCalls, false, false
	c.mu.Unlock()
}

func (c *chunkDone) ToolCalled(t agent.ToolCall) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case t.Err != nil:
		c.failed = true
	case t.Name == "declare_chunk_empty" && !t.NotRun:
		c.declared = true
	}
}
