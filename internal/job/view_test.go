package job

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"creator/internal/coverage"
	"creator/internal/document"
	"creator/internal/llm"
	"creator/internal/telemetry"
	"creator/internal/transcript"
	"creator/tools"
	"creator/workspace"
)

// newReadJob makes a job with three chunks of policy.txt, one saved
// requirement citing chunk_001, and a transcript in which chunk_001 and
// chunk_002 were read in full and chunk_002 declared empty; it has no
// coverage ledger yet.
func newReadJob(t *testing.T) *Job {
	t.Helper()
	dir := t.TempDir()
	doc := filepath.Join(dir, "policy.txt")
	if err := os.WriteFile(doc, []byte("Records must be kept for ten years.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := Create(filepath.Join(dir, "ws"), workspace.CreateOptions{ID: "v", Inputs: []string{doc}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	var man document.Manifest
	for i, id := range []string{"chunk_001", "chunk_002", "chunk_003"} {
		man.Chunks = append(man.Chunks, document.ManifestChunk{ID: id, File: "chunks/" + id + ".md", Document: "policy.txt",
			Source: "input/policy.txt", StartLine: 10*i + 1, EndLine: 10*i + 10})
	}
	data, _ := json.Marshal(man)
	write := func(rel string, data []byte) {
		t.Helper()
		if err := j.ws.WriteInternal(rel, data); err != nil {
			t.Fatal(err)
		}
	}
	write(document.ManifestFile, data)
	write("requirements/req_001/final.json", []byte(`{"id":"REQ-001","citations":[{"chunk":"chunk_001"}]}`))
	result := func(tool string, v any) {
		t.Helper()
		m := llm.Message{Role: llm.RoleTool, ToolName: tool, Data: llm.MessageData{Value: llm.ValueOf(v)}}
		if err := j.Append(transcript.Record{Type: transcript.TypeMessage, Message: &m}); err != nil {
			t.Fatal(err)
		}
	}
	lines := []string{"one", "two", "three"}
	result("read_file", tools.FileLines{Path: "chunks/chunk_001.md", First: 1, Lines: lines, Total: 3})
	result("read_file", tools.FileLines{Path: "chunks/chunk_002.md", First: 1, Lines: lines, Total: 3})
	result("declare_chunk_empty", tools.DeclaredEmpty{Chunk: "chunk_002", File: "chunks/chunk_002.md", Reason: "a table of contents only"})
	result("read_file", tools.FileLines{Path: "chunks/chunk_003.md", First: 1, Lines: lines[:1], Total: 3})
	return j
}

// Without a ledger the View measures what the transcript says was read and
// declared empty; once the writer has written the ledger from the same
// conversation, the writer's Coverage and a new View's are the same.
func TestViewCoverageWithoutALedgerIsTheTranscripts(t *testing.T) {
	t.Parallel()
	j := newReadJob(t)
	if _, ok := coverage.Load(j.ws.Internal); ok {
		t.Fatal("the job has a ledger already")
	}
	replayed, err := j.View().Coverage()
	if err != nil {
		t.Fatal(err)
	}
	want := coverage.Report{Chunks: 3, Read: 2, Cited: 1, DeclaredEmpty: 1, Uncovered: 1}
	if got := (coverage.Report{Chunks: replayed.Chunks, Read: replayed.Read, Cited: replayed.Cited,
		DeclaredEmpty: replayed.DeclaredEmpty, Uncovered: replayed.Uncovered}); !reflect.DeepEqual(got, want) {
		t.Fatalf("coverage from the transcript = %+v, want %+v", got, want)
	}
	if _, ok := coverage.Load(j.ws.Internal); ok {
		t.Fatal("measuring the coverage wrote a ledger")
	}

	// A view opened before the ledger is written, as status may open one
	// of a job that another process runs.
	early, err := OpenView(filepath.Dir(j.Dir), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer early.Close()
	recs, err := j.Transcript()
	if err != nil {
		t.Fatal(err)
	}
	if err := j.RebuildCoverage(transcript.Messages(recs)); err != nil {
		t.Fatal(err)
	}
	if _, ok := coverage.Load(j.ws.Internal); !ok {
		t.Fatal("RebuildCoverage wrote no ledger")
	}
	written, err := j.Coverage()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(written, replayed) {
		t.Errorf("the writer's coverage %+v, the View's from the transcript %+v", written, replayed)
	}
	v, err := OpenView(filepath.Dir(j.Dir), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	fromLedger, err := v.Coverage()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromLedger, written) {
		t.Errorf("a View's coverage from the ledger %+v, the writer's %+v", fromLedger, written)
	}

	// The writer notes more reads; the views opened before see them.
	if _, err := j.NoteRead(tools.FileLines{Path: "chunks/chunk_003.md", First: 2, Lines: []string{"two", "three"}, Total: 3}); err != nil {
		t.Fatal(err)
	}
	written, err = j.Coverage()
	if err != nil {
		t.Fatal(err)
	}
	if written.Read != 3 {
		t.Fatalf("after reading chunk_003 to its end, the writer's coverage is %+v", written)
	}
	for name, v := range map[string]*View{"opened before the ledger": early, "opened with the ledger": v} {
		if got, err := v.Coverage(); err != nil || !reflect.DeepEqual(got, written) {
			t.Errorf("a View %s measures %+v, %v; the writer %+v", name, got, err, written)
		}
	}
}

// The last event is the last complete line of the events file: a line
// cut off by a process killed while writing it is passed over, and so is
// it by the last publication.
func TestViewLastEventPassesOverACutLine(t *testing.T) {
	t.Parallel()
	j := newReadJob(t)
	v := j.View()
	if _, ok := v.LastEvent(); ok {
		t.Error("a job without events has a last event")
	}
	if _, ok := v.LastPublication(); ok {
		t.Error("a job without events has a publication")
	}
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	pub := telemetry.Publication{Database: "postgres://db/x", Schema: "public", Requirements: 1, Inserted: 1}
	if err := j.RecordPublication(at, pub); err != nil {
		t.Fatal(err)
	}
	appendEvents := func(s string) {
		t.Helper()
		if err := j.ws.AppendInternal(telemetry.File, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	appendEvents(`{"type":"tool_call","time":"2026-11-25T11:00:00Z","step":4,"tool":"save_requirement"}` + "\n")
	e, ok := v.LastEvent()
	if !ok || e.Type != telemetry.TypeToolCall || e.Tool != "save_requirement" {
		t.Fatalf("last event = %+v, %v", e, ok)
	}
	appendEvents(`{"type":"tool_call","time":"2026-11-25T11:00:05Z","step":5,"to`)
	if e, ok := v.LastEvent(); !ok || e.Step != 4 {
		t.Errorf("with a cut last line, last event = %+v, %v; want step 4", e, ok)
	}
	p, ok := v.LastPublication()
	if !ok || !p.Time.Equal(at) || p.Publication != pub {
		t.Errorf("last publication = %+v, %v; want %+v at %v", p, ok, pub, at)
	}
}

// lockHolderEnv makes TestViewLockHolder the process that runs a job: it
// takes the job's lock and keeps it until its stdin closes.
const lockHolderEnv = "JOB_TEST_LOCK_HOLDER"

func TestViewLockHolder(t *testing.T) {
	dir := os.Getenv(lockHolderEnv)
	if dir == "" {
		t.Skip("the second process of TestViewReadsAJobAnotherProcessRuns")
	}
	j, err := Open(filepath.Dir(dir), "v")
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Lock(); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked\n")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	j.Close()
}

// A View reads a job that another process runs, holding its lock, without
// waiting for the lock and without changing a file of the job.
func TestViewReadsAJobAnotherProcessRuns(t *testing.T) {
	t.Parallel()
	j := newReadJob(t)
	root := filepath.Dir(j.Dir)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestViewLockHolder$")
	cmd.Env = append(os.Environ(), lockHolderEnv+"="+j.Dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("the holder said %q, %v", line, err)
	}
	before := folderSums(t, j.Dir)

	start := time.Now()
	v, err := OpenView(root, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if pid, held := v.Holder(); !held || pid != cmd.Process.Pid {
		t.Errorf("Holder = %d, %v; want %d, true", pid, held, cmd.Process.Pid)
	}
	if _, err := v.Info(); err != nil {
		t.Error(err)
	}
	saved, err := v.Saved()
	if err != nil || len(saved) != 1 {
		t.Errorf("Saved = %d requirements, %v", len(saved), err)
	}
	if n := v.CountSavedOf(saved, err); n != 1 {
		t.Errorf("CountSavedOf = %d", n)
	}
	if r, err := v.Coverage(); err != nil || r.Chunks != 3 {
		t.Errorf("Coverage = %+v, %v", r, err)
	}
	if recs, err := v.Transcript(); err != nil || len(recs) != 4 {
		t.Errorf("Transcript = %d records, %v", len(recs), err)
	}
	v.Plan()
	v.LastEvent()
	v.LastPublication()
	if err := v.Close(); err != nil {
		t.Error(err)
	}
	// A reader that asked for the lock would be refused at once (the
	// holder is named) and fail above, or wait for it until the holder
	// exits, after this. The bound only has to tell such a wait from a
	// busy machine's slowness.
	if took := time.Since(start); took > time.Minute {
		t.Errorf("reading the job took %v", took)
	}
	if after := folderSums(t, j.Dir); !reflect.DeepEqual(after, before) {
		t.Errorf("reading the job changed its folder:\nbefore %v\nafter  %v", before, after)
	}
	if pid, held := j.Holder(); !held || pid != cmd.Process.Pid {
		t.Errorf("after the View, Holder = %d, %v; want %d, true", pid, held, cmd.Process.Pid)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the holder: %v", err)
	}
}

// folderSums are the files under dir with a hash of each.
func folderSums(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	sums := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sums[rel] = sha256.Sum256(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}
