package pdfwrite_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The committed sample PDF is what the generator makes from the committed
// Markdown: they cannot drift apart.
func TestSampleIsUpToDate(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "sample.pdf")
	cmd := exec.Command("go", "run", "./mksample", "../../testdata/sample/retention-policy.md", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mksample: %v\n%s", err, msg)
	}
	got, _ := os.ReadFile(out)
	want, err := os.ReadFile("../../testdata/sample/retention-policy.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("testdata/sample/retention-policy.pdf is out of date: run make sample-pdf")
	}
}
