package document

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"creator/internal/pdfwrite"
)

// manyPagesPDF writes a PDF of n pages of text.
func manyPagesPDF(t testing.TB, n int) string {
	t.Helper()
	var blocks []pdfwrite.Block
	for i := range n * 12 {
		if i%12 == 0 {
			blocks = append(blocks, pdfwrite.Block{Heading: true, Text: fmt.Sprintf("%d Records of kind %d", i/12+1, i)})
		}
		blocks = append(blocks, pdfwrite.Block{Text: fmt.Sprintf("Records of kind %d must be kept for ten years in the archive room, "+
			"and the archive must be checked every %d days by the person responsible for it.", i, i%90+1)})
	}
	doc := pdfwrite.Document{Pages: pdfwrite.Layout{Footer: "Page %d"}.Pages(blocks), Compress: true}
	path := filepath.Join(t.TempDir(), "many.pdf")
	if err := os.WriteFile(path, doc.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// PDF extraction stops when its context ends, with the context's error,
// having read no more than the pages under way when it ended.
func TestPDFExtractionStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	path := manyPagesPDF(t, 120)
	if all, err := Extract(path, Options{}); err != nil || len(all.Pages) < 40 {
		t.Fatalf("the whole PDF: %v", err)
	}
	for _, workers := range []int{1, 3} {
		ctx, cancel := context.WithCancel(context.Background())
		var read atomic.Int64
		const stopAfter = 10
		_, err := ExtractContext(ctx, path, Options{Workers: workers, pageRead: func(int) {
			if read.Add(1) == stopAfter {
				cancel()
			}
		}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%d workers: %v, want the context's error", workers, err)
		}
		if n := read.Load(); n > stopAfter+int64(workers) {
			t.Errorf("%d workers: %d pages read after a cancellation at page %d", workers, n, stopAfter)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ExtractContext(ctx, path, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before: %v", err)
	}
}
