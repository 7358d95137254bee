package tools

import (
	"net/http"
	"strings"
	"testing"

	"creator/internal/fakellm"
	"creator/internal/index"
	"creator/internal/llm"
)

// semanticEnv is a job whose index embeds passages with the fake server's
// embeddings endpoint.
func semanticEnv(t *testing.T) (*env, *fakellm.Server) {
	t.Helper()
	srv := fakellm.New(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{} })
	t.Cleanup(srv.Close)
	e, _ := searchEnvWith(t, index.Options{PersistAtOnce: true,
		Embedder: llm.NewEmbedClient(llm.EmbedConfig{BaseURL: srv.URL(), Model: "fake-embed"})})
	return e, srv
}

func TestSearchSemanticModes(t *testing.T) {
	t.Parallel()
	e, srv := semanticEnv(t)
	e.mustCall(t, "write_file", map[string]any{"path": "notes/backup.md", "content": "Nightly backups are encrypted.\n"})
	e.mustCall(t, "write_file", map[string]any{"path": "notes/audit.md", "content": "Audit records are kept for ten years.\n"})

	out := e.search(t, map[string]any{"query": "encrypted backup copies", "mode": "semantic"})
	if !strings.HasPrefix(out, "notes/backup.md:1:") || !strings.Contains(out, "nearest in meaning") {
		t.Errorf("semantic:\n%s", out)
	}
	if out := e.search(t, map[string]any{"query": "nightly backups"}); !strings.HasPrefix(out, "notes/backup.md:1: **Nightly** **backups** are encrypted.") {
		t.Errorf("hybrid by default:\n%s", out)
	}
	if _, err := e.call("search_files", `{"query":"audit","mode":"fuzzy"}`); err == nil {
		t.Error("an unknown mode is accepted")
	}

	srv.FailEmbeddings(http.StatusServiceUnavailable)
	e.mustCall(t, "write_file", map[string]any{"path": "notes/more.md", "content": "Backups are tested monthly.\n"})
	out = e.search(t, map[string]any{"query": "backups", "mode": "semantic"})
	if !strings.HasPrefix(out, "(the embedding server failed") || !strings.Contains(out, "keyword hits") || !strings.Contains(out, "notes/more.md:1:") {
		t.Errorf("failing embeddings server:\n%s", out)
	}
	if v := srv.Violations(); len(v) > 0 {
		t.Errorf("violations: %v", v)
	}
}

func TestSearchSemanticWithoutEmbeddingModel(t *testing.T) {
	t.Parallel()
	e := searchEnv(t)
	e.mustCall(t, "write_file", map[string]any{"path": "notes/backup.md", "content": "Nightly backups are encrypted.\n"})
	out := e.search(t, map[string]any{"query": "backups", "mode": "semantic"})
	if !strings.HasPrefix(out, "(semantic search needs an embedding model") || !strings.Contains(out, "notes/backup.md:1:") {
		t.Errorf("without an embedding model:\n%s", out)
	}
}
