package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"creator/internal/coverage"
	"creator/internal/document"
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

// CoverageTools returns declare_chunk_empty over the job's coverage
// ledger; manifest reads the chunk manifest.
func CoverageTools(ledger *coverage.Ledger, manifest func() (document.Manifest, error)) []Tool {
	c := &coverageTools{ledger: ledger, manifest: manifest}
	return []Tool{
		FuncResult("declare_chunk_empty", "Declare that a chunk you have read in full holds no requirement, and say why (e.g. 'table of contents', 'revision history of the document', 'definitions only, no duty'). A chunk counts as covered when a saved requirement cites it or it is declared empty; the job completes only when every chunk is covered.", c.declare),
	}
}

type coverageTools struct {
	ledger   *coverage.Ledger
	manifest func() (document.Manifest, error)
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
	man, err := c.manifest()
	if err != nil {
		return llm.ToolResult{}, err
	}
	mc, ok := man.Lookup(a.Chunk)
	if !ok {
		if len(man.Chunks) == 0 {
			return llm.ToolResult{}, fmt.Errorf("chunk %q does not exist: there are no chunks yet; split the document with chunk_document first", a.Chunk)
		}
		return llm.ToolResult{}, fmt.Errorf("chunk %q does not exist; the chunks are %s to %s", a.Chunk, man.Chunks[0].ID, man.Chunks[len(man.Chunks)-1].ID)
	}
	if err := c.ledger.Declare(mc.File, reason); errors.Is(err, coverage.ErrNotRead) {
		e, _ := c.ledger.Entry(mc.File)
		return llm.ToolResult{}, fmt.Errorf("%s is not read in full yet (%s): read it with read_file(path=%q) first, then declare it empty if it holds no requirement", mc.ID, e.Unread(), mc.File)
	} else if err != nil {
		return llm.ToolResult{}, err
	}
	if err := c.ledger.Save(); err != nil {
		return llm.ToolResult{}, err
	}
	text := fmt.Sprintf("declared %s empty: %s", mc.ID, reason)
	if mc.ID != a.Chunk {
		text += fmt.Sprintf("; read chunk %q as %q", a.Chunk, mc.ID)
	}
	return llm.ToolResult{Text: text, Data: DeclaredEmpty{Chunk: mc.ID, File: mc.File, Reason: reason}}, nil
}

// NoteRead records in the ledger what read_file returned of a chunk file;
// it reports whether the ledger changed.
func NoteRead(ledger *coverage.Ledger, lines FileLines) bool {
	if !strings.HasPrefix(lines.Path, "chunks/") {
		return false
	}
	return ledger.Read(lines.Path, lines.First, len(lines.Lines), lines.Total)
}

// ReplayCoverage rebuilds a ledger from a conversation's tool results: the
// chunk lines read_file returned and the chunks declared empty, in order.
func ReplayCoverage(ledger *coverage.Ledger, msgs []llm.Message) {
	for _, m := range msgs {
		if m.Role != llm.RoleTool || m.Data.Failed {
			continue
		}
		switch m.ToolName {
		case "read_file":
			var lines FileLines
			if m.Data.Decode(&lines) {
				NoteRead(ledger, lines)
			}
		case "declare_chunk_empty":
			var d DeclaredEmpty
			if m.Data.Decode(&d) {
				_ = ledger.Declare(d.File, d.Reason)
			}
		}
	}
}
