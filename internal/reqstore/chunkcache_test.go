package reqstore

import (
	"testing"

	"creator/internal/document"
)

// A store keeps its chunks from one save to the next; a chunk file
// rewritten in between (chunks/ is writable) is read and checked anew.
func TestSaveSeesAChunkRewritten(t *testing.T) {
	t.Parallel()
	job := newJob(t, true)
	s := Open(job)
	if _, err := s.Save(draft("Invoices must be kept for ten years.", cite("chunk_001", "Invoices must be kept for ten years."))); err != nil {
		t.Fatal(err)
	}
	mc := document.ManifestChunk{ID: "chunk_001", File: "chunks/chunk_001.md", Document: "policy.pdf", Source: "input/policy.txt", FirstPage: 1, LastPage: 1}
	if _, err := job.WriteFile(mc.File, []byte(document.ChunkFile(mc, "1. Retention\n\nInvoices must be kept for eight years.\n"))); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(draft("Business letters shall be kept for six years.", cite("chunk_001", "Business letters shall be kept for six years."))); err == nil {
		t.Error("a quote no longer in the rewritten chunk was accepted")
	}
	if _, err := s.Save(draft("Invoices must be kept for eight years.", cite("chunk_001", "Invoices must be kept for eight years."))); err != nil {
		t.Errorf("a quote of the rewritten chunk was refused: %v", err)
	}
}
