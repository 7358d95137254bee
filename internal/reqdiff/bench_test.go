package reqdiff

import (
	"fmt"
	"strings"
	"testing"

	"creator/internal/document"
	"creator/internal/export"
	"creator/internal/requirement"
)

// benchSource is a version of 2,000 requirements in 200 chunks of 30
// sentences, two sections each; changed rewords every 20th requirement.
func benchSource(id string, changed bool) export.Source {
	src := export.Source{JobID: id, Chunks: map[string]string{}}
	n := 0
	for c := 1; c <= 200; c++ {
		chunk := fmt.Sprintf("chunk_%03d", c)
		var body strings.Builder
		fmt.Fprintf(&body, "%d.1 Records of part %d\n\n", c, c)
		for s := range 30 {
			if s == 15 {
				fmt.Fprintf(&body, "\n%d.2 Retention of part %d\n\n", c, c)
			}
			sentence := fmt.Sprintf("Sentence %d of part %d says that the records of kind %d are kept for the period the law of part %d sets, and no shorter.", s, c, s, c)
			if s%3 == 0 {
				n++
				verb := "must"
				if changed && n%20 == 0 {
					verb = "should"
				}
				sentence = fmt.Sprintf("The company %s keep the records of kind %d of part %d for ten years after the end of the calendar year.", verb, s, c)
				src.Records = append(src.Records, requirement.Record{ID: fmt.Sprintf("REQ-%04d", n), Title: "Keep records", Text: sentence,
					Type: "obligation", Category: "compliance", Priority: "high", Confidence: 0.9,
					Citations: []requirement.Citation{{Document: "policy.txt", Chunk: chunk, Quote: sentence}}})
			}
			body.WriteString(sentence)
			body.WriteString(" ")
			if s%5 == 4 {
				body.WriteString("\n")
			}
		}
		src.Chunks[chunk] = body.String()
		src.Manifest.Chunks = append(src.Manifest.Chunks, document.ManifestChunk{ID: chunk, Document: "policy.txt",
			Heading: fmt.Sprintf("%d Part > %d.1 Records of part %d", c, c, c), Sections: []string{fmt.Sprintf("%d Part > %d.2 Retention of part %d", c, c, c)}})
	}
	return src
}

func BenchmarkCompare(b *testing.B) {
	old, new := benchSource("v1", false), benchSource("v2", true)
	if len(old.Records) != 2000 {
		b.Fatalf("%d requirements", len(old.Records))
	}
	if r := Compare(old, new); len(r.Changed) != 100 || r.Unchanged != 1900 || len(r.Added)+len(r.Removed) != 0 {
		b.Fatalf("changed %d, unchanged %d, added %d, removed %d", len(r.Changed), r.Unchanged, len(r.Added), len(r.Removed))
	}
	b.ReportAllocs()
	for b.Loop() {
		Compare(old, new)
	}
}
