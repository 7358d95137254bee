package jobrun

import (
	"fmt"
	"testing"

	"creator/internal/document"
)

// The ways a model names a range of chunks, and names that are no range.
func TestChunkRange(t *testing.T) {
	t.Parallel()
	var man document.Manifest
	for n := 1; n <= 12; n++ {
		id := fmt.Sprintf("chunk_%03d", n)
		man.Chunks = append(man.Chunks, document.ManifestChunk{ID: id, File: "chunks/" + id + ".md"})
	}
	for s, want := range map[string][2]int{
		"chunk_001-chunk_004":     {0, 3},
		"chunk_003 to chunk_005":  {2, 4},
		"chunk_010..chunk_012":    {9, 11},
		"3-7":                     {2, 6},
		"chunks/chunk_002.md – 4": {1, 3},
		"chunk 8 through chunk 9": {7, 8},
	} {
		from, to, ok := chunkRange(man, s)
		if !ok || from != want[0] || to != want[1] {
			t.Errorf("%q: %d to %d, %v; want %d to %d", s, from, to, ok, want[0], want[1])
		}
	}
	for _, s := range []string{"chunk_005-chunk_002", "chunk_001-chunk_099", "chapter 3", "chunk_001"} {
		if from, to, ok := chunkRange(man, s); ok {
			t.Errorf("%q read as a range %d to %d", s, from, to)
		}
	}
	for _, s := range []string{"all", " ALL ", "*", "every chunk"} {
		if !everyChunkRE.MatchString(s) {
			t.Errorf("%q is not read as every chunk", s)
		}
	}
}
