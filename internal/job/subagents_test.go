package job_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"creator/internal/coverage"
	"creator/internal/job"
	"creator/internal/llm"
	"creator/internal/transcript"
	"creator/tools"
)

// stageChunk runs what a sub-agent does for the chunk of section i: the
// assignment, its first message in its transcript, the save of the
// section's duty (or the declaration of the chunk when empty is given),
// then Finish.
func stageChunk(t *testing.T, j *job.Job, i int, empty string) job.ChunkOutcome {
	t.Helper()
	chunk, _ := chunkOf(t, j, duty(i))
	a, err := j.AssignChunk(chunk, "note")
	if err != nil {
		t.Fatal(err)
	}
	st, journal, err := j.StartChunk(a)
	if err != nil {
		t.Fatal(err)
	}
	first := llm.Message{Role: llm.RoleUser, Content: a.Content(), Data: llm.MessageData{Kind: tools.KindChunkAssignment, Value: llm.ValueOf(a)}}
	if err := journal.Append(transcript.Record{Type: transcript.TypeMessage, Message: &first}); err != nil {
		t.Fatal(err)
	}
	if empty != "" {
		if _, err := st.DeclareEmpty(chunk, empty); err != nil {
			t.Fatal(err)
		}
	} else {
		saved, err := st.Save(requirementOf(t, j, i))
		if err != nil || !saved.Staged || saved.File != "" || !strings.HasPrefix(saved.ID, chunk+"#") {
			t.Fatalf("staged save: %+v, %v", saved, err)
		}
		again, err := st.Save(requirementOf(t, j, i))
		if err != nil || !again.Duplicate || again.ID != saved.ID {
			t.Fatalf("the same save again: %+v, %v", again, err)
		}
	}
	o, err := st.Finish(1)
	if err != nil || o.State != job.ChunkStaged {
		t.Fatalf("finish: %+v, %v", o, err)
	}
	return o
}

// Sub-agents that finish in any order give the ids of the document's
// order once their chunks are committed in it, and nothing is written
// before the commit.
func TestStagedChunksGetTheDocumentsIDs(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	order := []int{9, 3, 12, 1, 6}
	var wg sync.WaitGroup
	for _, i := range order {
		wg.Go(func() { stageChunk(t, j, i, "") })
	}
	wg.Wait()
	if saved, err := j.Requirements().List(); err != nil || len(saved) != 0 {
		t.Fatalf("staged saves were written: %d, %v", len(saved), err)
	}
	for n, i := range []int{1, 3, 6, 9, 12} {
		chunk, _ := chunkOf(t, j, duty(i))
		o, err := j.CommitChunk(chunk)
		want := requirementID(n + 1)
		if err != nil || o.State != job.ChunkCommitted || len(o.IDs) != 1 || o.IDs[0] != want {
			t.Fatalf("commit of section %d: %+v, %v; want %s", i, o, err, want)
		}
	}
	rep, err := j.Coverage()
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range order {
		chunk, _ := chunkOf(t, j, duty(i))
		if gap(rep, chunk) {
			t.Errorf("%s is not covered after its commit: %s", chunk, rep.Missing(5))
		}
	}
}

func requirementID(n int) string { return fmt.Sprintf("REQ-%03d", n) }

// gap reports whether a coverage report names chunk uncovered.
func gap(r coverage.Report, chunk string) bool {
	for _, g := range r.Gaps {
		if g.ID == chunk {
			return true
		}
	}
	return false
}

// writeOutcome writes a chunk's outcome file as a kill may leave it.
func writeOutcome(t *testing.T, j *job.Job, o job.ChunkOutcome) {
	t.Helper()
	data, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(j.Dir, ".agent", "subagents", o.Chunk+".outcome.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A commit cut off after some of its saves is finished by FinishCommits
// with the same ids; a declaration committed, and the reads the sub-agents
// were given, survive a rebuild of the ledger from the main transcript.
func TestCommitsAndReadsSurviveAKill(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	stageChunk(t, j, 2, "")
	chunk, _ := chunkOf(t, j, duty(2))
	// The kill: the outcome says committing, one save is written.
	if _, err := j.Requirements().Save(requirementOf(t, j, 2)); err != nil {
		t.Fatal(err)
	}
	o, _, _ := j.ChunkOutcome(chunk)
	o.State = job.ChunkCommitting
	writeOutcome(t, j, o)
	if err := j.FinishCommits(); err != nil {
		t.Fatal(err)
	}
	o, _, _ = j.ChunkOutcome(chunk)
	if o.State != job.ChunkCommitted || o.Duplicates != 1 || len(o.IDs) != 0 {
		t.Fatalf("finished commit: %+v", o)
	}
	if saved, _ := j.Requirements().List(); len(saved) != 1 {
		t.Fatalf("%d requirements after the finished commit, want 1", len(saved))
	}

	emptyChunk, _ := chunkOf(t, j, duty(5))
	stageChunk(t, j, 5, "background text of the class only")
	if _, err := j.CommitChunk(emptyChunk); err != nil {
		t.Fatal(err)
	}
	if err := j.RebuildCoverage(nil); err != nil {
		t.Fatal(err)
	}
	rep, err := j.Coverage()
	if err != nil {
		t.Fatal(err)
	}
	if gap(rep, chunk) || gap(rep, emptyChunk) {
		t.Fatalf("the sub-agents' chunks are not covered after a rebuild: %s", rep.Missing(5))
	}
}

// A sub-agent declares its own chunk only, and one that accounts for no
// chunk fails with its saves discarded.
func TestStagingRefusesOtherChunksAndFailsUnaccounted(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	chunk, _ := chunkOf(t, j, duty(4))
	other, _ := chunkOf(t, j, duty(14))
	a, err := j.AssignChunk(chunk, "")
	if err != nil {
		t.Fatal(err)
	}
	if a.Index < 1 || a.Of < a.Index || a.Text.Total != len(a.Text.Lines) {
		t.Fatalf("assignment: index %d of %d, %d of %d lines", a.Index, a.Of, len(a.Text.Lines), a.Text.Total)
	}
	st, _, err := j.StartChunk(a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DeclareEmpty(other, "not mine to declare at all"); err == nil || !strings.Contains(err.Error(), "not yours") {
		t.Fatalf("declaring another chunk: %v", err)
	}
	// A save that cites another chunk does not account for this one.
	if _, err := st.Save(requirementOf(t, j, 14)); err != nil {
		t.Fatal(err)
	}
	o, err := st.Finish(3)
	if err != nil || o.State != job.ChunkFailed || len(o.Records) != 0 || o.Error == "" {
		t.Fatalf("unaccounted chunk: %+v, %v", o, err)
	}
	if _, err := j.CommitChunk(chunk); err == nil {
		t.Fatal("a failed chunk was committed")
	}
	// The next attempt is numbered and marked in the transcript.
	if _, _, err := j.StartChunk(a); err != nil {
		t.Fatal(err)
	}
	o, _, _ = j.ChunkOutcome(chunk)
	subs, err := j.SubagentTranscripts()
	if err != nil || o.Attempt != 2 || len(subs[chunk]) == 0 || subs[chunk][0].Type != transcript.TypeResume {
		t.Fatalf("second attempt: %+v, %v, %+v", o, err, subs[chunk])
	}
}
