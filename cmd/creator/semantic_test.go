package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"creator/internal/fakellm"
	"creator/internal/index"
	"creator/internal/llm"
)

// TestRunSemanticSearch runs the small job with an embedding model served
// by the fake server: search_files ranks by meaning, the vectors are kept
// with the index, and the job records the embedding model for resumes.
func TestRunSemanticSearch(t *testing.T) {
	t.Parallel()
	steps := fakellm.SmallJob(testDoc, testQuote)
	search := llm.ToolCall{Name: "search_files", Arguments: `{"query":"how long records are kept","mode":"semantic"}`}
	steps[3] = slices.Insert(steps[3], 4, search)
	e := newJobEnv(t, fakellm.Script(steps...))
	code, _, stderr := e.run("--job", "sem", "--embed-model", "fake-embed")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var result string
	for _, r := range e.srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == llm.RoleTool && strings.Contains(m.Content, "nearest in meaning") {
				result = m.Content
			}
		}
	}
	if !strings.Contains(result, "chunks/chunk_001.md:") {
		t.Errorf("search_files by meaning:\n%s", result)
	}
	if e.srv.EmbeddedTexts() == 0 {
		t.Error("nothing was embedded")
	}
	if _, err := os.Stat(filepath.Join(e.jobDir("sem"), index.Dir, "vectors.f32")); err != nil {
		t.Errorf("no vectors beside the index: %v", err)
	}
	if s := e.info("sem").Settings; s.EmbedModel != "fake-embed" || s.EmbedBaseURL != "" {
		t.Errorf("recorded settings %+v", s)
	}
}
