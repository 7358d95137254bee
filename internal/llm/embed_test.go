package llm_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"creator/internal/fakellm"
	"creator/internal/llm"
)

func TestEmbedClient(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{} })
	defer srv.Close()
	c := llm.NewEmbedClient(llm.EmbedConfig{BaseURL: srv.URL(), Model: "embed-small"})
	if c.EmbeddingModel() != "embed-small" {
		t.Errorf("model %q", c.EmbeddingModel())
	}
	texts := []string{"backup of audit logs", "encryption at rest"}
	vecs, err := c.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		if !slices.Equal(v, fakellm.Embedding(texts[i])) {
			t.Errorf("vector %d differs from the server's", i)
		}
	}
	if v := srv.Violations(); len(v) > 0 {
		t.Errorf("violations: %v", v)
	}

	srv.FailEmbeddings(http.StatusInternalServerError)
	if _, err := c.Embed(context.Background(), texts); err == nil || !strings.Contains(err.Error(), "embedding server") {
		t.Errorf("a failing server: %v", err)
	}
}
