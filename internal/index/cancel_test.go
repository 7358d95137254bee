package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Indexing a job folder stops when its context ends, with the context's
// error, having put no file in a batch after the cancellation.
func TestIndexingStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "chunks"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 120 {
		var b strings.Builder
		for k := range 400 {
			fmt.Fprintf(&b, "Records of kind %d-%d must be kept for ten years in archive %d.\n", i, k, k%17)
		}
		if err := os.WriteFile(filepath.Join(dir, "chunks", fmt.Sprintf("chunk_%03d.md", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const stopAfter = 30
	indexed := 0
	x, err := OpenWith(ctx, dir, os.DirFS(dir), Options{PersistAtOnce: true, fileIndexed: func(string) {
		if indexed++; indexed == stopAfter {
			cancel()
		}
	}})
	if err == nil {
		x.Close()
	}
	if !errors.Is(err, context.Canceled) || indexed != stopAfter {
		t.Fatalf("indexing cancelled after %d files: %v, %d files indexed", stopAfter, err, indexed)
	}
}
