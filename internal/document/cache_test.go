package document

import (
	"os"
	"path/filepath"
	"testing"

	"creator/internal/pdfwrite"
)

// A document is extracted once for the same bytes under the same extension,
// wherever the file lies, and again when the bytes change.
func TestCacheFindsTheSameBytes(t *testing.T) {
	t.Parallel()
	page := func(s string) []byte {
		return (&pdfwrite.Document{Pages: []pdfwrite.Page{{Texts: []pdfwrite.Text{{X: 72, Y: 700, Size: 12, S: s}}}}}).Bytes()
	}
	dir := t.TempDir()
	orig := write(t, "policy.pdf", page("Records must be kept for ten years."))
	cache := NewCache(Options{})
	first, err := cache.Extract(orig)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Extract(orig, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if first.Text() != plain.Text() {
		t.Fatalf("the cache's document differs from Extract's")
	}
	data, _ := os.ReadFile(orig)
	copied := filepath.Join(dir, "input", "policy.pdf")
	os.MkdirAll(filepath.Dir(copied), 0o755)
	if err := os.WriteFile(copied, data, 0o444); err != nil {
		t.Fatal(err)
	}
	if again, err := cache.Extract(copied); err != nil || again != first {
		t.Errorf("a copy of the same bytes was extracted again (err %v)", err)
	}
	if extracted, found := cache.Counts(); extracted != 1 || found != 1 {
		t.Errorf("%d extracted, %d found; want 1 and 1", extracted, found)
	}
	renamed := filepath.Join(dir, "policy.txt")
	os.WriteFile(renamed, data, 0o644)
	if doc, err := cache.Extract(renamed); err == nil && doc == first {
		t.Error("the same bytes under another extension came from the cache")
	}
	changed := filepath.Join(dir, "changed", "policy.pdf")
	os.MkdirAll(filepath.Dir(changed), 0o755)
	os.WriteFile(changed, page("Records must be kept for six years."), 0o644)
	doc, err := cache.Extract(changed)
	if err != nil || doc == first {
		t.Fatalf("changed bytes came from the cache (err %v)", err)
	}
	mustContain(t, doc.Body(), "six years")
	var none *Cache
	if doc, err := none.Extract(orig); err != nil || doc.Text() != plain.Text() {
		t.Errorf("a nil cache: %v", err)
	}
	if _, err := cache.Extract(filepath.Join(dir, "missing.pdf")); err == nil {
		t.Error("a missing file gave no error")
	}
}
