package tools

import (
	"context"
	"fmt"
	"strings"

	"creator/internal/humanize"
	"creator/internal/llm"
)

// DeclaredEmpty is declare_chunk_empty's data.
type DeclaredEmpty struct {
	Chunk  string `json:"chunk"`
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// MinReasonWords is how many words a reason for declaring a chunk empty
// needs at least: enough to say what the chunk is.
const MinReasonWords = 3

// ChunkDeclarer keeps the job's coverage ledger: the job.
type ChunkDeclarer interface {
	// DeclareEmpty records that a chunk read in full holds no requirement,
	// and why; chunk may name it in any form the manifest resolves. Its
	// error is the refusal the model reads.
	DeclareEmpty(chunk, reason string) (DeclaredEmpty, error)
}

// CoverageTools returns declare_chunk_empty over the job's coverage
// ledger.
func CoverageTools(ledger ChunkDeclarer) []Tool {
	c := &coverageTools{ledger: ledger}
	return []Tool{
		FuncResult("declare_chunk_empty", "Declare that a chunk you have read in full holds no requirement, and say why (e.g. 'table of contents', 'revision history of the document', 'definitions only, no duty'). A chunk counts as covered when a saved requirement cites it or it is declared empty; the job completes only when every chunk is covered.", c.declare),
	}
}

type coverageTools struct {
	ledger ChunkDeclarer
}

type declareArgs struct {
	Chunk  string `json:"chunk" jsonschema:"the chunk id, e.g. chunk_002"`
	Reason string `json:"reason" jsonschema:"why it holds no requirement, in a few words, e.g. table of contents"`
}

func (c *coverageTools) declare(ctx context.Context, a declareArgs) (llm.ToolResult, error) {
	reason := humanize.OneLine(a.Reason)
	if len(strings.Fields(reason)) < MinReasonWords {
		return llm.ToolResult{}, fmt.Errorf("give the reason %s holds no requirement in at least %d words, e.g. \"table of contents\" or \"the publication's revision history\" (got %q)", a.Chunk, MinReasonWords, a.Reason)
	}
	d, err := c.ledger.DeclareEmpty(a.Chunk, reason)
	if err != nil {
		return llm.ToolResult{}, err
	}
	text := fmt.Sprintf("declared %s empty: %s", d.Chunk, reason)
	if d.Chunk != a.Chunk {
		text += fmt.Sprintf("; read chunk %q as %q", a.Chunk, d.Chunk)
	}
	return llm.ToolResult{Text: text, Data: d}, nil
}
