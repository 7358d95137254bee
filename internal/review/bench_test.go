package review

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"creator/internal/document"
	"creator/internal/reqstore"
	"creator/internal/requirement"
	"creator/workspace"
)

// largeJob is a finalized job of 100 chunks with 9 requirements each, the
// size of NIST SP 800-53's output (902).
func largeJob(b *testing.B) *workspace.Job {
	b.Helper()
	doc := filepath.Join(b.TempDir(), "big.pdf")
	if err := os.WriteFile(doc, []byte("%PDF-1.4\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	job, err := workspace.Create(filepath.Join(b.TempDir(), "ws"), workspace.CreateOptions{ID: "big", Inputs: []string{doc}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { job.Close() })
	var man document.Manifest
	var quotes [][]string
	for c := range 100 {
		id := fmt.Sprintf("chunk_%03d", c+1)
		var body strings.Builder
		var qs []string
		for r := range 9 {
			q := fmt.Sprintf("The operator of system %d must keep control %d.%d in force.", c, c, r)
			qs = append(qs, q)
			fmt.Fprintf(&body, "%s Some explanation follows that is not a requirement at all.\n", q)
		}
		mc := document.ManifestChunk{ID: id, File: "chunks/" + id + ".md", Document: "big.pdf", Source: "input/big.txt", Heading: fmt.Sprintf("%d Controls", c+1), FirstPage: c + 1, LastPage: c + 1}
		if _, err := job.WriteFile(mc.File, []byte(document.ChunkFile(mc, body.String()))); err != nil {
			b.Fatal(err)
		}
		man.Chunks = append(man.Chunks, mc)
		quotes = append(quotes, qs)
	}
	data, _ := requirement.Marshal(man)
	if err := job.WriteInternal(document.ManifestFile, data); err != nil {
		b.Fatal(err)
	}
	store := reqstore.Open(job)
	for c, qs := range quotes {
		for _, q := range qs {
			_, err := store.Save(requirement.Record{Title: "Keep the control", Text: q, Type: "obligation", Category: "compliance",
				Priority: "high", Frameworks: []string{}, Confidence: 0.9, Rationale: "must",
				Citations: []requirement.Citation{{Document: "big.pdf", Chunk: man.Chunks[c].ID, Quote: q}}})
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	if _, err := store.Finalize("", nil); err != nil {
		b.Fatal(err)
	}
	return job
}

// BenchmarkDecide takes a decision on a job of 900 requirements as
// creator review does: the log line, the record and validation.md, the
// output files once decisions pause.
func BenchmarkDecide(b *testing.B) {
	job := largeJob(b)
	svc := New(Config{JobID: job.ID, Store: reqstore.Open(job), Files: job, Now: time.Now, OutputDelay: time.Second, Reviewer: "alice"})
	b.Cleanup(func() { svc.Flush() })
	i := 0
	for b.Loop() {
		i++
		id := fmt.Sprintf("REQ-%03d", i%900+1)
		if _, _, err := svc.Decide(id, Decision{Decision: requirement.Rejected, Note: fmt.Sprint("reason ", i)}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkList lists the 900 requirements of a job with their reviews.
func BenchmarkList(b *testing.B) {
	job := largeJob(b)
	svc := New(Config{JobID: job.ID, Store: reqstore.Open(job), Files: job, Now: time.Now, Reviewer: "alice"})
	for b.Loop() {
		if l, err := svc.List(); err != nil || len(l.Requirements) != 900 {
			b.Fatal(err, len(l.Requirements))
		}
	}
}

// BenchmarkDetail shows one requirement of 900 with its source passage.
func BenchmarkDetail(b *testing.B) {
	job := largeJob(b)
	svc := New(Config{JobID: job.ID, Store: reqstore.Open(job), Files: job, Now: time.Now, Reviewer: "alice"})
	for b.Loop() {
		if d, err := svc.Detail("REQ-450"); err != nil || len(d.Sources) != 1 || d.Sources[0].Problem != "" {
			b.Fatal(err, d.Sources)
		}
	}
}

// BenchmarkDecideWritingOutputs takes a decision on a job of 900
// requirements and writes every output file again after it, as the review
// did before it waited for a pause.
func BenchmarkDecideWritingOutputs(b *testing.B) {
	job := largeJob(b)
	svc := New(Config{JobID: job.ID, Store: reqstore.Open(job), Files: job, Now: time.Now, Reviewer: "alice"})
	i := 0
	for b.Loop() {
		i++
		if _, _, err := svc.Decide(fmt.Sprintf("REQ-%03d", i%900+1), Decision{Decision: requirement.Accepted}); err != nil {
			b.Fatal(err)
		}
	}
}

// Benchmark1000Decisions takes 1,000 decisions on a job of 900
// requirements (accept, reject, edit in turn) and then writes the output
// files, as a review session of that many decisions does: the target is
// 10 s an op (go test -bench 1000Decisions -benchtime 1x).
func Benchmark1000Decisions(b *testing.B) {
	job := largeJob(b)
	svc := New(Config{JobID: job.ID, Store: reqstore.Open(job), Files: job, Now: time.Now, OutputDelay: time.Second, Reviewer: "alice"})
	for b.Loop() {
		for i := range 1000 {
			d := Decision{Decision: requirement.Accepted}
			switch i % 3 {
			case 1:
				d = Decision{Decision: requirement.Rejected, Note: fmt.Sprint("reason ", i)}
			case 2:
				d = Decision{Decision: requirement.Edited, Changes: map[string]string{"title": fmt.Sprint("Keep control ", i)}}
			}
			if _, _, err := svc.Decide(fmt.Sprintf("REQ-%03d", i%900+1), d); err != nil {
				b.Fatal(err)
			}
		}
		if err := svc.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	if recs := outputRecords(b, job); requirement.TallyOf(recs).Reviewed != 900 {
		b.Fatalf("the output shows %v", requirement.TallyOf(recs))
	}
}
