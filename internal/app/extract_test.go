package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Extract gives the text, its pages and characters, the tokens only when
// asked for, and refuses a text over MaxText.
func TestExtract(t *testing.T) {
	t.Parallel()
	doc := filepath.Join(t.TempDir(), "policy.md")
	text := "# Policy\n\nRecords must be kept for ten years.\n"
	if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	noenv := func(string) string { return "" }
	ctx := context.Background()
	x, err := Extract(ctx, ExtractOptions{Document: doc}, noenv)
	if err != nil || !strings.Contains(x.Text, "Records must be kept") || x.Pages != 1 || x.Characters != len([]rune(x.Text)) || x.Tokens != 0 {
		t.Errorf("without tokens: %+v, %v", x, err)
	}
	x, err = Extract(ctx, ExtractOptions{Document: doc, Tokens: true}, noenv)
	if err != nil || x.Tokens < 5 || x.Tokens > 20 {
		t.Errorf("with tokens: %d, %v", x.Tokens, err)
	}
	if _, err := Extract(ctx, ExtractOptions{Document: doc, MaxText: 10}, noenv); err == nil || !strings.Contains(err.Error(), "--max-text") {
		t.Errorf("over MaxText: %v", err)
	}
}
