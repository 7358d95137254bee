package document

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A document whose text is over MaxText is refused with its size and the
// limit: a text file before it is read, other formats once extracted.
func TestTextOverTheLimitIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	body := strings.Repeat("Records must be kept for ten years in the archive room.\n", 2000) // 114 KB
	txt := filepath.Join(dir, "big.txt")
	html := filepath.Join(dir, "big.html")
	os.WriteFile(txt, []byte(body), 0o644)
	os.WriteFile(html, []byte("<html><body><p>"+strings.ReplaceAll(body, "\n", "</p><p>")+"</p></body></html>"), 0o644)
	for _, path := range []string{txt, html} {
		_, err := Extract(path, Options{MaxText: 100_000})
		var tl *TextTooLargeError
		if !errors.As(err, &tl) || tl.Max != 100_000 || tl.Size <= 100_000 || !strings.Contains(err.Error(), "--max-text") {
			t.Errorf("%s: %v; want the text refused as too large", filepath.Base(path), err)
		}
		if _, err := Extract(path, Options{MaxText: 200_000}); err != nil {
			t.Errorf("%s within the limit: %v", filepath.Base(path), err)
		}
	}
}

// Chunking stops when its context ends, with the context's error.
func TestChunkingStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 1; i <= 400; i++ {
		b.WriteString("\n" + strings.Repeat("x", 3) + "\n\n")
		b.WriteString(strings.Repeat("Records must be kept for ten years in the archive room. ", 40) + "\n")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	chunks, err := ChunkTextContext(ctx, b.String(), 200, wordCounter{})
	if !errors.Is(err, context.Canceled) || chunks != nil {
		t.Fatalf("%d chunks, %v; want context.Canceled", len(chunks), err)
	}
	if chunks, err := ChunkTextContext(context.Background(), b.String(), 200, wordCounter{}); err != nil || len(chunks) < 10 {
		t.Fatalf("%d chunks, %v", len(chunks), err)
	}
}
