package tools

import (
	"context"
	"fmt"
	"strings"

	"creator/internal/humanize"
	"creator/internal/llm"
	"creator/workspace"
)

// AnalyzeChunksName is the tool that hands chunks to sub-agents.
const AnalyzeChunksName = "analyze_chunks"

// ChunkAnalyzer runs one sub-agent per chunk: the job run's fan-out.
type ChunkAnalyzer interface {
	// AnalyzeChunks analyses the chunks named (every chunk not covered
	// yet when none is), each by a sub-agent given note, and returns a
	// row per chunk in the document's order. Its error is for a call that
	// could not start (a chunk that does not exist) or was interrupted;
	// a chunk whose sub-agent failed is a row.
	AnalyzeChunks(ctx context.Context, chunks []string, note string) (AnalyzedChunks, error)
}

// AnalyzeTools returns analyze_chunks over the job's fan-out.
func AnalyzeTools(a ChunkAnalyzer) []Tool {
	t := &analyzeTool{a: a}
	return []Tool{
		FuncResult(AnalyzeChunksName, "Analyse chunks in parallel: each chunk goes, whole, to a sub-agent with a fresh context that saves its requirements with save_requirement or declares it empty, exactly as you would. Returns one row per chunk: the requirement ids saved, declared empty, or failed with the reason (call again for failed chunks). Leave chunks out to analyse every chunk not covered yet. Put what the sub-agents must know in note: how the document marks requirements, its identifier for frameworks, what to skip.", t.call),
	}
}

type analyzeTool struct{ a ChunkAnalyzer }

type analyzeArgs struct {
	Chunks []string `json:"chunks,omitempty" list:"names" jsonschema:"chunk ids, e.g. [\"chunk_003\", \"chunk_004\"]; leave out for every chunk not covered yet"`
	Note   string   `json:"note,omitempty" jsonschema:"guidance given to every sub-agent: how the document states requirements, its keywords, its identifier, what to skip"`
}

func (t *analyzeTool) call(ctx context.Context, a analyzeArgs) (llm.ToolResult, error) {
	res, err := t.a.AnalyzeChunks(ctx, a.Chunks, strings.TrimSpace(a.Note))
	if err != nil {
		if len(res.Chunks) > 0 {
			return llm.ToolResult{Text: ChunkTable(res), Data: res}, fmt.Errorf("%v; what was done before it:\n%s", err, ChunkTable(res))
		}
		return llm.ToolResult{}, err
	}
	return llm.ToolResult{Text: ChunkTable(res), Data: res}, nil
}

// ChunkTable is analyze_chunks's text: a count, then one line per chunk.
func ChunkTable(res AnalyzedChunks) string {
	var saved, dups, empty, failed, before, reqs int
	for _, r := range res.Chunks {
		switch r.Status {
		case ChunkSaved:
			saved++
		case ChunkEmpty:
			empty++
		case ChunkFailed:
			failed++
		case ChunkBefore:
			before++
		}
		reqs += len(r.IDs)
		dups += r.Duplicates
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d with requirements (%s saved", humanize.Plural(len(res.Chunks), "chunk"), saved, humanize.Plural(reqs, "requirement"))
	if dups > 0 {
		fmt.Fprintf(&b, ", %d repeating earlier ones", dups)
	}
	fmt.Fprintf(&b, "), %d declared empty", empty)
	if before > 0 {
		fmt.Fprintf(&b, ", %d done before", before)
	}
	fmt.Fprintf(&b, ", %d failed", failed)
	if failed > 0 {
		b.WriteString(" — call analyze_chunks again for the failed ones, or read and cover them yourself")
	}
	b.WriteString("\n")
	if len(res.Notes) > 0 {
		b.WriteString("(" + strings.Join(res.Notes, "; ") + ")\n")
	}
	for _, r := range res.Chunks {
		fmt.Fprintf(&b, "%s  %s\n", r.Chunk, rowText(r))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func rowText(r ChunkRow) string {
	var s string
	switch r.Status {
	case ChunkSaved:
		s = fmt.Sprintf("%d saved: %s", len(r.IDs), idList(r.IDs))
		if r.Duplicates > 0 {
			s += fmt.Sprintf(" (+%d already saved)", r.Duplicates)
		}
	case ChunkEmpty:
		s = "empty: " + r.Empty
	case ChunkBefore:
		s = "done before"
		if len(r.IDs) > 0 {
			s += ": " + idList(r.IDs)
		}
		if r.Empty != "" {
			s += ": empty: " + r.Empty
		}
	default:
		s = "failed: " + r.Error
	}
	return s
}

// idList names ids compactly: a run of consecutive ids as its ends.
func idList(ids []string) string {
	switch len(ids) {
	case 0:
		return "none new"
	case 1:
		return ids[0]
	}
	first, last := idNumber(ids[0]), idNumber(ids[len(ids)-1])
	if first > 0 && last-first == len(ids)-1 {
		return ids[0] + " to " + ids[len(ids)-1]
	}
	if len(ids) > 6 {
		return strings.Join(ids[:5], ", ") + fmt.Sprintf(" and %d more", len(ids)-5)
	}
	return strings.Join(ids, ", ")
}

func idNumber(id string) int {
	var n int
	if _, err := fmt.Sscanf(id, "REQ-%d", &n); err != nil {
		return 0
	}
	return n
}

// SubagentTools are a sub-agent's tools: save_requirement and
// declare_chunk_empty over its chunk's staging, read_file and search_files
// to look at the rest of the job.
func SubagentTools(saver RequirementSaver, declarer ChunkDeclarer, files *workspace.Files, s Searcher) []Tool {
	tools := []Tool{SaveTool(saver)}
	tools = append(tools, CoverageTools(declarer)...)
	for _, t := range WorkspaceTools(files) {
		if t.Name() == "read_file" {
			tools = append(tools, t)
		}
	}
	return append(tools, SearchTools(files, s)...)
}
