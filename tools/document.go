package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"creator/internal/document"
	"creator/internal/humanize"
	"creator/internal/llm"
	"creator/internal/requirement"
	"creator/workspace"
)

// Bounds of chunk_document's max_tokens.
const (
	MinChunkTokens = 200
	MaxChunkTokens = 8000
)

// DocumentFiles is what the document tools work on: the job's sandboxed
// files, the program's own files they write (the extracted text, the chunk
// manifest), the job's source documents, and the documents the run has
// extracted already (nil: none).
type DocumentFiles struct {
	Files     *workspace.Files
	Own       *workspace.Internal
	Inputs    []workspace.Input
	Extracted *document.Cache
}

// DocumentFilesOf is a job's DocumentFiles.
func DocumentFilesOf(job *workspace.Job) (DocumentFiles, error) {
	info, err := job.Info()
	return DocumentFiles{Files: job.Files, Own: job.Internal, Inputs: info.Inputs}, err
}

// DocumentTools returns extract_document_text and chunk_document.
func DocumentTools(in DocumentFiles, counter document.Counter) []Tool {
	d := &docTools{files: in.Files, own: in.Own, inputs: in.Inputs, extracted: in.Extracted, count: counter}
	return []Tool{
		FuncResult("extract_document_text", "Extract the text of a source document (PDF, text, Markdown, HTML, DOCX) and write it next to it: input/doc.pdf → input/doc.txt. Pages start with lines '--- page N ---'; running headers, footers and page numbers are removed. Returns pages, characters, tokens and the output path.", d.extract),
		FuncResult("chunk_document", "Split extracted text (or a source document, which is extracted first) into chunks along its sections: chunks/chunk_NNN.md and chunks/manifest.json (id, heading path, pages, lines, tokens). No chunk exceeds max_tokens (default 1500); sentences are never cut. Returns the chunk list and the evidence found in the whole document (chunks/evidence.json): whether only upper-case keywords state requirements, the document's identifier schemes, and its informative parts.", d.chunk),
	}
}

type docTools struct {
	files     *workspace.Files
	own       *workspace.Internal
	inputs    []workspace.Input
	extracted *document.Cache
	count     document.Counter
}

type extractArgs struct {
	Path string `json:"path" jsonschema:"the source document, e.g. input/policy.pdf"`
}

// extractedName is where the text of a document goes: next to it, with
// .txt (input/doc.pdf → input/doc.txt). A .txt source gets .extracted.txt
// so that it is not overwritten, and a document whose doc.txt another
// input of the job would take — policy.md beside policy.txt or
// policy.html — keeps its extension in the name (input/policy.md.txt), so
// that no text overwrites a source or another document's text.
func (d *docTools) extractedName(rel string) string {
	ext := path.Ext(rel)
	base := strings.TrimSuffix(rel, ext)
	if strings.EqualFold(ext, ".txt") {
		return base + ".extracted.txt"
	}
	name := path.Base(rel)
	stem := strings.TrimSuffix(name, ext)
	for _, in := range d.inputs {
		if in.Name != name && strings.EqualFold(strings.TrimSuffix(in.Name, path.Ext(in.Name)), stem) {
			return rel + ".txt"
		}
	}
	return base + ".txt"
}

type extracted struct {
	source, out string
	doc         *document.Document
	text        string
}

func (d *docTools) extractTo(ctx context.Context, p string) (extracted, error) {
	rel, err := d.files.Resolve(p, workspace.Read)
	if err != nil {
		return extracted{}, err
	}
	if _, err := os.Stat(filepath.Join(d.files.Dir, filepath.FromSlash(rel))); errors.Is(err, fs.ErrNotExist) {
		return extracted{}, fmt.Errorf("path '%s' does not exist", p)
	}
	doc, err := d.extracted.ExtractContext(ctx, filepath.Join(d.files.Dir, filepath.FromSlash(rel)))
	if err != nil {
		return extracted{}, err
	}
	text := doc.Text()
	out := d.extractedName(rel)
	if err := d.own.WriteInternal(out, []byte(text)); err != nil {
		return extracted{}, err
	}
	return extracted{source: rel, out: out, doc: doc, text: text}, nil
}

// countContext counts the tokens of text, stopping when ctx ends where
// the counter can (tokens.Counter): a 32 MB text takes a minute.
func countContext(ctx context.Context, counter document.Counter, text string) (int, error) {
	if c, ok := counter.(interface {
		CountContext(context.Context, string) (int, error)
	}); ok {
		return c.CountContext(ctx, text)
	}
	return counter.Count(text), ctx.Err()
}

func (d *docTools) extract(ctx context.Context, a extractArgs) (llm.ToolResult, error) {
	x, err := d.extractTo(ctx, a.Path)
	if err != nil {
		return llm.ToolResult{}, err
	}
	n, err := countContext(ctx, d.count, x.text)
	if err != nil {
		return llm.ToolResult{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "extracted %s (%s) to %s: %s, %s characters, %s tokens.",
		x.source, formatName(x.doc.Format), x.out, humanize.Plural(len(x.doc.Pages), "page"),
		humanize.Int(len([]rune(x.text))), humanize.Int(n))
	if x.doc.Paged {
		b.WriteString(" Each page starts with a line '--- page N ---'.")
	}
	for _, n := range x.doc.Notes {
		b.WriteString(" Note: " + n + ".")
	}
	fmt.Fprintf(&b, " Next: chunk_document(path=%q).", x.out)
	return llm.ToolResult{Text: b.String(), Data: Extracted{Source: x.source, Output: x.out, Pages: len(x.doc.Pages)}}, nil
}

func formatName(f string) string {
	switch f {
	case document.FormatPDF:
		return "PDF"
	case document.FormatDOCX:
		return "Word document"
	case document.FormatHTML:
		return "HTML"
	case document.FormatMarkdown:
		return "Markdown"
	}
	return "text"
}

type chunkArgs struct {
	Path      string `json:"path" jsonschema:"the extracted text, e.g. input/policy.txt, or a source document in input/"`
	MaxTokens int    `json:"max_tokens,omitempty" jsonschema:"largest chunk in tokens, 200 to 8000 (default 1500)"`
}

func (d *docTools) chunk(ctx context.Context, a chunkArgs) (llm.ToolResult, error) {
	limit := a.MaxTokens
	if limit == 0 {
		limit = document.DefaultChunkTokens
	}
	if limit < MinChunkTokens || limit > MaxChunkTokens {
		return llm.ToolResult{}, fmt.Errorf("max_tokens must be between %d and %d", MinChunkTokens, MaxChunkTokens)
	}
	rel, err := d.files.Resolve(a.Path, workspace.Read)
	if err != nil {
		return llm.ToolResult{}, err
	}
	docName, source, text := "", rel, ""
	for _, in := range d.inputs {
		switch rel {
		case "input/" + in.Name:
			// A source document: extract it first.
			x, err := d.extractTo(ctx, rel)
			if err != nil {
				return llm.ToolResult{}, err
			}
			docName, source, text = in.Name, x.out, x.text
		case d.extractedName("input/" + in.Name):
			docName = in.Name
		}
	}
	if text == "" {
		data, _, err := d.files.ReadFile(rel, document.DefaultMaxBytes)
		if err != nil {
			return llm.ToolResult{}, err
		}
		text = string(data)
		if docName == "" {
			docName = path.Base(rel)
		}
	}
	if strings.TrimSpace(text) == "" {
		return llm.ToolResult{}, fmt.Errorf("'%s' holds no text to chunk", source)
	}
	chunks, err := document.ChunkTextContext(ctx, text, limit, d.count)
	if err != nil {
		return llm.ToolResult{}, err
	}
	man, err := d.replaceChunks(ctx, source, docName, chunks)
	if err != nil {
		return llm.ToolResult{}, err
	}
	ev, err := d.writeEvidence(source, docName, text)
	if err != nil {
		return llm.ToolResult{}, err
	}
	res := d.chunkList(source, docName, limit, man)
	res.Text += "\n" + ev.Summary(12) + " (All of it in " + document.EvidenceFile + ".)"
	return res, nil
}

// writeEvidence surveys a document's whole text for the evidence of how
// it states its requirements and keeps it in chunks/evidence.json, beside
// the evidence of the job's other documents.
func (d *docTools) writeEvidence(source, docName, text string) (document.Evidence, error) {
	var list document.EvidenceList
	if data, err := d.own.ReadInternal(document.EvidenceFile); err == nil {
		if l, err := document.ParseEvidence(data); err == nil {
			list = l
		}
	}
	ev := document.Survey(text)
	list.Put(document.DocumentEvidence{Document: docName, Source: source, Evidence: ev})
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return ev, err
	}
	return ev, d.own.WriteInternal(document.EvidenceFile, append(data, '\n'))
}

// replaceChunks writes the chunk files of one source and the manifest. The
// chunks of other sources stay; this source's earlier chunk files are
// removed; new ids follow the highest id in use. When ctx ends part of the
// way (thousands of files for a large text), the files written are removed
// and the manifest lists the other sources only: the source is left
// unchunked, never chunked in part, and it returns ctx's error.
func (d *docTools) replaceChunks(ctx context.Context, source, docName string, chunks []document.Chunk) (document.Manifest, error) {
	var man document.Manifest
	if data, err := d.own.ReadInternal(document.ManifestFile); err == nil {
		if m, err := document.ParseManifest(data); err == nil {
			man = m
		}
	}
	kept := man.Chunks[:0:0]
	next := 1
	for _, c := range man.Chunks {
		if c.Source == source {
			_, _, _ = d.files.Remove(c.File)
			continue
		}
		kept = append(kept, c)
		if n := chunkNumber(c.ID); n >= next {
			next = n + 1
		}
	}
	man.Chunks = kept
	for i, c := range chunks {
		if err := ctx.Err(); err != nil {
			for _, written := range man.Chunks[len(kept):] {
				_, _, _ = d.files.Remove(written.File)
			}
			man.Chunks = kept
			data, merr := requirement.Marshal(man)
			if merr == nil {
				merr = d.own.WriteInternal(document.ManifestFile, data)
			}
			return man, errors.Join(err, merr)
		}
		id := fmt.Sprintf("chunk_%03d", next+i)
		mc := document.ManifestChunk{
			ID: id, File: "chunks/" + id + ".md", Document: docName, Source: source,
			Heading: c.Heading, Sections: c.Sections, FirstPage: c.FirstPage, LastPage: c.LastPage,
			StartLine: c.StartLine, EndLine: c.EndLine, Tokens: c.Tokens, TableHeader: c.TableHeader,
		}
		if _, err := d.files.WriteFile(mc.File, []byte(document.ChunkFile(mc, c.Text))); err != nil {
			return man, err
		}
		man.Chunks = append(man.Chunks, mc)
	}
	data, err := requirement.Marshal(man)
	if err != nil {
		return man, err
	}
	return man, d.own.WriteInternal(document.ManifestFile, data)
}

// chunkList is the tool's result: the chunks compactly, not their text.
func (d *docTools) chunkList(source, docName string, limit int, man document.Manifest) llm.ToolResult {
	var mine []document.ManifestChunk
	largest := 0
	for _, c := range man.Chunks {
		if c.Source == source {
			mine = append(mine, c)
			largest = max(largest, c.Tokens)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "chunked %s into %s (largest %s tokens, limit %s): files %s … %s, list in %s.\n",
		source, humanize.Plural(len(mine), "chunk"), humanize.Int(largest), humanize.Int(limit),
		mine[0].File, mine[len(mine)-1].File, document.ManifestFile)
	show := func(c document.ManifestChunk) {
		heading := c.Heading
		if heading == "" {
			heading = "(before the first heading)"
		}
		pages := c.Pages()
		if pages != "" {
			pages = "  " + pages
		}
		fmt.Fprintf(&b, "%s%s  %s tok  %s\n", c.ID, pages, humanize.Int(c.Tokens), heading)
	}
	const head, tail = 30, 5
	for i, c := range mine {
		switch {
		case len(mine) <= head+tail || i < head || i >= len(mine)-tail:
			show(c)
		case i == head:
			fmt.Fprintf(&b, "… %d more chunks, see %s …\n", len(mine)-head-tail, document.ManifestFile)
		}
	}
	data := Chunked{Source: source, Document: docName, First: chunkNumber(mine[0].ID), Last: chunkNumber(mine[len(mine)-1].ID)}
	return llm.ToolResult{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

// chunkNumber is the number in a chunk id: 5 for chunk_005.
func chunkNumber(id string) int {
	var n int
	fmt.Sscanf(id, "chunk_%d", &n)
	return n
}
