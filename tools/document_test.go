package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"creator/internal/document"
	"creator/internal/pdfwrite"
	"creator/internal/tokens"
	"creator/workspace"
)

// docEnv is a job with a generated PDF (policy.pdf) and a text file
// (notes.txt) as inputs, and the document tools.
func docEnv(t *testing.T) (*workspace.Job, *Registry) {
	t.Helper()
	base := t.TempDir()
	var blocks []pdfwrite.Block
	for i := 1; i <= 6; i++ {
		blocks = append(blocks, pdfwrite.Block{Heading: true, Text: fmt.Sprintf("%d Section %d", i, i)})
		for j := 1; j <= 4; j++ {
			blocks = append(blocks, pdfwrite.Block{Text: fmt.Sprintf("Rule %d.%d: the operator must keep the records of kind %d for %d years. ", i, j, i, j) +
				strings.Repeat(fmt.Sprintf("Records of kind %d are checked. ", i*10+j), 8)})
		}
	}
	pdf := filepath.Join(base, "policy.pdf")
	os.WriteFile(pdf, (&pdfwrite.Document{Pages: pdfwrite.Layout{Header: "Policy", Footer: "Page %d"}.Pages(blocks)}).Bytes(), 0o644)
	txt := filepath.Join(base, "notes.txt")
	os.WriteFile(txt, []byte("1. Scope\n\nStaff must lock screens.\n\n2. Keys\n\nKeys shall be rotated yearly.\n"), 0o644)
	job, err := workspace.Create(filepath.Join(base, "ws"), workspace.CreateOptions{ID: "d", Inputs: []string{pdf, txt}})
	if err != nil {
		t.Fatal(err)
	}
	return job, docRegistry(t, job)
}

// docRegistry is the workspace and document tools of job, closed with the
// test.
func docRegistry(t *testing.T, job *workspace.Job) *Registry {
	t.Helper()
	t.Cleanup(func() { job.Close() })
	docs, err := DocumentFilesOf(job)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := NewRegistry(append(WorkspaceTools(job.Files), DocumentTools(docs, tokens.Default())...)...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func call(t *testing.T, reg *Registry, name, args string) (string, error) {
	t.Helper()
	res, err := reg.Call(context.Background(), name, json.RawMessage(args))
	return res.Text, err
}

func manifest(t *testing.T, job *workspace.Job) document.Manifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(job.Dir, "chunks", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := document.ParseManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestExtractDocumentText(t *testing.T) {
	t.Parallel()
	job, reg := docEnv(t)
	out, err := call(t, reg, "extract_document_text", `{"path":"input/policy.pdf"}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"extracted input/policy.pdf (PDF) to input/policy.txt:", "pages", "tokens", "'--- page N ---'", `chunk_document(path="input/policy.txt")`} {
		if !strings.Contains(out, w) {
			t.Errorf("result lacks %q: %s", w, out)
		}
	}
	text, _ := os.ReadFile(filepath.Join(job.Dir, "input", "policy.txt"))
	if !strings.HasPrefix(string(text), "--- page 1 ---\n") || !strings.Contains(string(text), "Rule 6.4: the operator must keep the records of kind 6 for 4 years.") {
		t.Fatalf("extracted text:\n%.300s", text)
	}
	// A text source is not overwritten by its extracted text.
	out, err = call(t, reg, "extract_document_text", `{"path":"input/notes.txt"}`)
	if err != nil || !strings.Contains(out, "to input/notes.extracted.txt") {
		t.Fatalf("text source: %s, %v", out, err)
	}
	for _, c := range []struct{ args, want string }{
		{`{"path":"input/missing.pdf"}`, "does not exist"},
		{`{"path":"../outside.pdf"}`, "leaves the workspace"},
		{`{"path":"instructions.md"}`, "instructions.md is empty"},
		{`{}`, `missing required field "path"`},
	} {
		if _, err := call(t, reg, "extract_document_text", c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("extract_document_text(%s) = %v, want %q", c.args, err, c.want)
		}
	}
}

func TestChunkDocument(t *testing.T) {
	t.Parallel()
	job, reg := docEnv(t)
	// A source document is extracted first.
	out, err := call(t, reg, "chunk_document", `{"path":"input/policy.pdf","max_tokens":300}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "chunked input/policy.txt into") || !strings.Contains(out, "chunk_001  p. 1") || !strings.Contains(out, "1 Section 1") {
		t.Fatalf("result: %s", out)
	}
	m := manifest(t, job)
	if len(m.Chunks) < 4 {
		t.Fatalf("%d chunks", len(m.Chunks))
	}
	var joined strings.Builder
	for _, c := range m.Chunks {
		data, err := os.ReadFile(filepath.Join(job.Dir, c.File))
		if err != nil {
			t.Fatal(err)
		}
		header := strings.SplitN(string(data), "\n", 2)[0]
		if !strings.HasPrefix(header, "["+c.ID+" | policy.pdf | p") || c.Tokens > 300 || c.Document != "policy.pdf" || c.Source != "input/policy.txt" {
			t.Errorf("chunk %s: header %q, %+v", c.ID, header, c)
		}
		joined.WriteString(document.ChunkBody(string(data)))
	}
	text, _ := os.ReadFile(filepath.Join(job.Dir, "input", "policy.txt"))
	if joined.String() != string(text) {
		t.Error("the chunk files do not add up to the extracted text")
	}
	first := len(m.Chunks)

	// A second document's chunks follow; re-chunking the first replaces only its own.
	if _, err := call(t, reg, "chunk_document", `{"path":"input/notes.txt"}`); err != nil {
		t.Fatal(err)
	}
	m = manifest(t, job)
	last := m.Chunks[len(m.Chunks)-1]
	if last.Document != "notes.txt" || last.ID != fmt.Sprintf("chunk_%03d", first+1) || last.Heading != "1. Scope" || len(last.Sections) != 1 {
		t.Fatalf("second document's chunk: %+v", last)
	}
	if _, err := call(t, reg, "chunk_document", `{"path":"input/policy.txt","max_tokens":8000}`); err != nil {
		t.Fatal(err)
	}
	m = manifest(t, job)
	files, _ := filepath.Glob(filepath.Join(job.Dir, "chunks", "chunk_*.md"))
	if len(m.Chunks) != 2 || len(files) != 2 || m.Chunks[0].Document != "notes.txt" || m.Chunks[1].ID != fmt.Sprintf("chunk_%03d", first+2) {
		t.Fatalf("after re-chunking: %+v, files %v", m.Chunks, files)
	}
	for _, c := range []struct{ args, want string }{
		{`{"path":"input/policy.txt","max_tokens":50}`, "max_tokens must be between 200 and 8000"},
		{`{"path":"notes/none.txt"}`, "does not exist"},
	} {
		if _, err := call(t, reg, "chunk_document", c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("chunk_document(%s) = %v, want %q", c.args, err, c.want)
		}
	}
}

// cancelAfterChunks cancels a context once n chunk files are written.
type cancelAfterChunks struct {
	n       int
	written int
	cancel  context.CancelFunc
}

func (c *cancelAfterChunks) FileChanged(rel string) {
	if strings.HasPrefix(rel, "chunks/chunk_") {
		if c.written++; c.written == c.n {
			c.cancel()
		}
	}
}
func (c *cancelAfterChunks) FileRemoved(string) {}

// Chunking stops writing chunk files when its context ends, and leaves the
// source unchunked rather than chunked in part: its files written so far
// removed, the manifest listing the other sources' chunks only.
func TestChunkDocumentStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	job, reg := docEnv(t)
	if _, err := call(t, reg, "chunk_document", `{"path":"input/notes.txt"}`); err != nil {
		t.Fatal(err)
	}
	before := manifest(t, job)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &cancelAfterChunks{n: 3, cancel: cancel}
	job.Watch(w)
	_, err := reg.Call(ctx, "chunk_document", json.RawMessage(`{"path":"input/policy.pdf","max_tokens":200}`))
	job.Watch(nil)
	if !errors.Is(err, context.Canceled) || w.written != w.n {
		t.Fatalf("cancelled after %d chunk files: %v, %d written", w.n, err, w.written)
	}
	after := manifest(t, job)
	files, _ := filepath.Glob(filepath.Join(job.Dir, "chunks", "chunk_*.md"))
	if len(after.Chunks) != len(before.Chunks) || len(files) != len(before.Chunks) {
		t.Fatalf("after a cancelled chunking: manifest %+v, files %v", after.Chunks, files)
	}
}

// Extraction's token count, a minute for a 32 MB text, stops when the
// context ends: the tool returns the context's error.
func TestExtractDocumentStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	job, reg := docEnv(t)
	big := strings.Repeat("Records of kind 7 must be kept for ten years in the archive room.\n", 20000) // 1.3 MB
	if err := os.WriteFile(filepath.Join(job.Dir, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := reg.Call(ctx, "extract_document_text", json.RawMessage(`{"path":"big.txt"}`)); !errors.Is(err, context.Canceled) {
		t.Fatalf("extraction with its context ended: %v", err)
	}
}

// Documents of one name in several formats (policy.md, policy.txt,
// policy.html) each get their own text: none overwrites a source or
// another's text, and each chunks as its own document.
func TestExtractDocumentsOfOneName(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	sources := map[string]string{
		"policy.md":   "# Backups\n\nBackups must be encrypted.\n",
		"policy.txt":  "Screens\n\nStaff shall lock their screens.\n",
		"policy.html": "<html><body><h1>Keys</h1><p>Keys must be rotated yearly.</p></body></html>",
	}
	var paths []string
	for _, name := range []string{"policy.md", "policy.txt", "policy.html"} {
		p := filepath.Join(base, name)
		os.WriteFile(p, []byte(sources[name]), 0o644)
		paths = append(paths, p)
	}
	job, err := workspace.Create(filepath.Join(base, "ws"), workspace.CreateOptions{ID: "d", Inputs: paths})
	if err != nil {
		t.Fatal(err)
	}
	reg := docRegistry(t, job)
	want := map[string]string{"policy.md": "input/policy.md.txt", "policy.txt": "input/policy.extracted.txt", "policy.html": "input/policy.html.txt"}
	for name, out := range want {
		res, err := call(t, reg, "extract_document_text", fmt.Sprintf(`{"path":"input/%s"}`, name))
		if err != nil || !strings.Contains(res, "to "+out) {
			t.Errorf("%s: %s, %v; want its text in %s", name, res, err, out)
		}
	}
	for name, text := range sources {
		if got, _ := os.ReadFile(filepath.Join(job.Dir, "input", name)); string(got) != text {
			t.Errorf("input/%s was overwritten: %q", name, got)
		}
	}
	for name, words := range map[string]string{"policy.md": "encrypted", "policy.txt": "screens", "policy.html": "rotated"} {
		got, _ := os.ReadFile(filepath.Join(job.Dir, filepath.FromSlash(want[name])))
		if !strings.Contains(string(got), words) {
			t.Errorf("%s: %q lacks %q", want[name], got, words)
		}
	}
	for _, name := range []string{"policy.md", "policy.txt", "policy.html"} {
		if _, err := call(t, reg, "chunk_document", fmt.Sprintf(`{"path":"input/%s"}`, name)); err != nil {
			t.Errorf("chunk_document(%s): %v", name, err)
		}
	}
	chunked := map[string]string{}
	for _, c := range manifest(t, job).Chunks {
		chunked[c.Document] = c.Source
	}
	for name, out := range want {
		if chunked[name] != out {
			t.Errorf("%s chunked from %q, want %q", name, chunked[name], out)
		}
	}
}
