package tools

import (
	"strings"

	"creator/planner"
)

// The data some tools give with their text (llm.ToolResult.Data). A
// program that reads the conversation decodes it from the tool message's
// data, the type following from the tool's name, and so never depends on
// the wording of the text.

// FileLines is read_file's data: the lines it returned.
type FileLines struct {
	Path  string `json:"path"`  // relative to the job folder
	First int    `json:"first"` // the number of the first line returned, from 1
	// Lines are the lines as shown: one longer than MaxLineChars is cut
	// and ends with LineCut.
	Lines []string `json:"lines"`
	Total int      `json:"total"` // the lines in the file
}

// Complete reports whether the lines returned reach the end of the file.
func (f FileLines) Complete() bool { return f.First+len(f.Lines)-1 >= f.Total }

// LineCut starts the note that ends a line read_file cut at MaxLineChars.
const LineCut = "… [line cut:"

// Listing is list_files's data: the entries of a folder, as far as shown.
type Listing struct {
	Path    string      `json:"path"` // relative to the job folder
	Entries []ListEntry `json:"entries"`
}

// ListEntry is one entry of a listing.
type ListEntry struct {
	Name string `json:"name"`
	Dir  bool   `json:"dir,omitempty"`
}

// Extracted is extract_document_text's data.
type Extracted struct {
	Source string `json:"source"` // the document, e.g. input/policy.pdf
	Output string `json:"output"` // its text, e.g. input/policy.txt
	Pages  int    `json:"pages"`
}

// Chunked is chunk_document's data: where the chunks of one text are.
type Chunked struct {
	Source   string `json:"source"`   // the text chunked, e.g. input/policy.txt
	Document string `json:"document"` // the source document it is the text of
	// First and Last are the numbers of its first and last chunk (5 for
	// chunks/chunk_005.md); the chunks between them are its too.
	First int `json:"first"`
	Last  int `json:"last"`
}

// PlanData is read_plan's data: the tasks, or NoPlan (with the error) when
// no plan is written yet.
type PlanData struct {
	NoPlan bool           `json:"no_plan,omitempty"`
	Tasks  []planner.Task `json:"tasks,omitempty"`
}

// SavedRequirement is save_requirement's data: the requirement's id and
// file, and whether it had been saved before (nothing changed then).
type SavedRequirement struct {
	ID        string `json:"id"`
	File      string `json:"file"`
	Duplicate bool   `json:"duplicate,omitempty"`
	// Staged: kept for its chunk's commit, which gives the id; ID is
	// provisional.
	Staged bool `json:"staged,omitempty"`
	// Chunks are the chunks its citations name.
	Chunks []string `json:"chunks,omitempty"`
}

// Finalized is finalize_output's data when it wrote the output: how many
// requirements, and the coverage of the documents.
type Finalized struct {
	Requirements int              `json:"requirements"`
	Chunks       int              `json:"chunks"`
	Uncovered    []UncoveredChunk `json:"uncovered,omitempty"`
	Unchunked    []string         `json:"unchunked,omitempty"`
}

// UncoveredChunk is a chunk not covered yet; Read says whether it was read
// in full (then it is neither cited nor declared empty).
type UncoveredChunk struct {
	Chunk string `json:"chunk"`
	Read  bool   `json:"read,omitempty"`
}

// FinalizeRefused is finalize_output's data when it refuses to build the
// output: the final.json files it names as broken (unreadable, invalid, or
// holding another id), in the order of its message.
type FinalizeRefused struct {
	Broken []string `json:"broken"`
}

// KindChunkAssignment marks the first message of a sub-agent (its data is
// a ChunkAssignment).
const KindChunkAssignment = "chunk_assignment"

// ChunkAssignment is a sub-agent's first message as data: the one chunk it
// analyses, given whole, and the main agent's guidance.
type ChunkAssignment struct {
	Document string `json:"document"`
	Chunk    string `json:"chunk"` // chunk_003
	Section  string `json:"section,omitempty"`
	// Index is the chunk's place among the chunks of its document, from
	// 1; Of is how many the document has.
	Index int    `json:"index"`
	Of    int    `json:"of"`
	Note  string `json:"note,omitempty"`
	// Text is the chunk file, every line of it (lines are not cut as
	// read_file cuts them): the read the coverage ledger records.
	Text FileLines `json:"text"`
}

// Content is the chunk file as the assignment gives it.
func (a ChunkAssignment) Content() string {
	if len(a.Text.Lines) == 0 {
		return ""
	}
	return strings.Join(a.Text.Lines, "\n") + "\n"
}

// LinesOf splits a file's content into lines as read_file counts them,
// without cutting long ones.
func LinesOf(rel, content string) FileLines {
	fl := FileLines{Path: rel, First: 1, Lines: []string{}}
	for line := range strings.Lines(content) {
		fl.Lines = append(fl.Lines, strings.ToValidUTF8(strings.TrimRight(line, "\r\n"), "\uFFFD"))
	}
	fl.Total = len(fl.Lines)
	return fl
}

// AnalyzedChunks is analyze_chunks's data: one row per chunk asked for,
// in the document's order.
type AnalyzedChunks struct {
	Chunks []ChunkRow `json:"chunks"`
	// Notes say how chunk names were read ("chunk_001-chunk_004").
	Notes []string `json:"notes,omitempty"`
}

// Outcomes of a chunk in analyze_chunks's table.
const (
	ChunkSaved  = "saved"  // requirements saved (committed) for it
	ChunkEmpty  = "empty"  // declared empty
	ChunkFailed = "failed" // not accounted for: Error says why
	ChunkBefore = "before" // accounted for by an earlier call: not sent again
)

// ChunkRow is what became of one chunk.
type ChunkRow struct {
	Chunk  string `json:"chunk"`
	Status string `json:"status"`
	// IDs are the requirements saved for the chunk; Duplicates counts
	// those that repeated a requirement saved before.
	IDs        []string `json:"ids,omitempty"`
	Duplicates int      `json:"duplicates,omitempty"`
	Empty      string   `json:"empty,omitempty"`
	Error      string   `json:"error,omitempty"`
	// Cited are the chunks the saved requirements cite.
	Cited    []string `json:"cited,omitempty"`
	Requests int      `json:"requests,omitempty"`
}
