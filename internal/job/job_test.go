package job_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"creator/internal/coverage"
	"creator/internal/job"
	"creator/internal/llm"
	"creator/internal/requirement"
	"creator/internal/tokens"
	"creator/internal/transcript"
	"creator/tools"
	"creator/workspace"
)

// sections is how many numbered sections the test document has; each
// states one duty.
const sections = 16

// duty is the sentence of section i that states its requirement.
func duty(i int) string {
	return fmt.Sprintf("Records of class %d must be kept for %d years.", i, i+1)
}

// newJob makes a job on a document of sections, split into chunks of a
// few sections each, and closes it when t ends.
func newJob(t *testing.T) *job.Job {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= sections; i++ {
		fmt.Fprintf(&b, "%d. Class %d\n\n%s\n%s\n\n", i, i,
			strings.Repeat(fmt.Sprintf("This paragraph explains the background of class %d for the reader. ", i), 3), duty(i))
	}
	doc := filepath.Join(dir, "policy.txt")
	if err := os.WriteFile(doc, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := job.Create(filepath.Join(dir, "ws"), workspace.CreateOptions{ID: "j", Inputs: []string{doc}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	docs, err := tools.DocumentFilesOf(j.Workspace())
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tools.NewRegistry(tools.DocumentTools(docs, tokens.Default())...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Call(context.Background(), "chunk_document", json.RawMessage(`{"path":"input/policy.txt","max_tokens":200}`)); err != nil {
		t.Fatal(err)
	}
	if man, err := j.Manifest(); err != nil || len(man.Chunks) < 4 {
		t.Fatalf("%d chunks, %v; the tests want several", len(man.Chunks), err)
	}
	return j
}

// chunkOf is the chunk (id and file) that holds text.
func chunkOf(t *testing.T, j *job.Job, text string) (id, file string) {
	t.Helper()
	man, err := j.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range man.Chunks {
		data, err := os.ReadFile(filepath.Join(j.Dir, filepath.FromSlash(c.File)))
		if err == nil && strings.Contains(string(data), text) {
			return c.ID, c.File
		}
	}
	t.Fatalf("no chunk holds %q", text)
	return "", ""
}

// chunkFiles are the files of the job's chunks, in order.
func chunkFiles(t *testing.T, j *job.Job) []string {
	t.Helper()
	man, err := j.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, c := range man.Chunks {
		files = append(files, c.File)
	}
	return files
}

// lines is what read_file returns of a chunk file from line first, n
// lines at most (all when n is 0).
func lines(t *testing.T, j *job.Job, file string, first, n int) tools.FileLines {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(j.Dir, filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	last := len(all)
	if n > 0 {
		last = min(last, first-1+n)
	}
	return tools.FileLines{Path: file, First: first, Lines: all[first-1 : last], Total: len(all)}
}

// requirementOf is the requirement of section i, citing its chunk.
func requirementOf(t *testing.T, j *job.Job, i int) requirement.Record {
	t.Helper()
	chunk, _ := chunkOf(t, j, duty(i))
	return requirement.Record{
		Title: fmt.Sprintf("Keep class %d records", i), Text: fmt.Sprintf("The company must keep records of class %d for %d years.", i, i+1),
		Type: "obligation", Category: "compliance", Priority: "high", Confidence: 0.9, Rationale: "'must' sets a retention duty",
		Citations: []requirement.Citation{{Document: "policy.txt", Chunk: chunk, Quote: duty(i)}},
	}
}

// Each operation of the domain, and the state it leaves.
func TestOperations(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	files := chunkFiles(t, j)
	first := files[0]
	firstID, _ := chunkOf(t, j, duty(1))

	// Save a requirement: its file and id.
	saved, err := j.Requirements().Save(requirementOf(t, j, 1))
	if err != nil || saved.ID != "REQ-001" || saved.File != "requirements/req_001/final.json" || saved.Duplicate {
		t.Fatalf("save: %+v, %v", saved.Ref, err)
	}
	if _, err := os.Stat(filepath.Join(j.Dir, "requirements", "req_001", "final.json")); err != nil {
		t.Fatal(err)
	}
	// The same requirement again: its id, nothing written.
	again, err := j.Requirements().Save(requirementOf(t, j, 1))
	if err != nil || again.ID != "REQ-001" || !again.Duplicate {
		t.Fatalf("duplicate: %+v, %v", again, err)
	}
	if names, _ := j.Workspace().Names("requirements"); !reflect.DeepEqual(names, []string{"req_001"}) {
		t.Errorf("requirements/ holds %v after a duplicate", names)
	}

	// Lines read of a chunk are noted; lines of other files are not.
	head := lines(t, j, first, 1, 2)
	if changed, err := j.NoteRead(head); !changed || err != nil {
		t.Fatalf("noting a chunk read: %v, %v", changed, err)
	}
	if changed, _ := j.NoteRead(head); changed {
		t.Error("the same lines again changed the ledger")
	}
	if changed, _ := j.NoteRead(tools.FileLines{Path: "notes/x.md", First: 1, Lines: []string{"x"}, Total: 1}); changed {
		t.Error("a note read changed the ledger")
	}
	if e := j.Ledger()[first]; e.FullyRead() || !reflect.DeepEqual(e.Read, []coverage.Span{{First: 1, Last: 2}}) {
		t.Errorf("ledger entry %+v", e)
	}

	// Declaring empty a chunk not read in full is refused, and says why.
	_, err = j.DeclareEmpty(firstID, "table of contents only")
	if !errors.Is(err, job.ErrNotRead) || !strings.Contains(err.Error(), firstID+" is not read in full yet (lines 3-") {
		t.Errorf("declare before reading: %v", err)
	}
	if _, err := j.DeclareEmpty("chunk_999", "table of contents only"); !errors.Is(err, job.ErrNoChunk) || !strings.Contains(err.Error(), `chunk "chunk_999" does not exist; the chunks are chunk_001 to`) {
		t.Errorf("declare a chunk that does not exist: %v", err)
	}
	// Read in full, it can be declared, by any name of the chunk.
	if _, err := j.NoteRead(lines(t, j, first, 3, 0)); err != nil {
		t.Fatal(err)
	}
	d, err := j.DeclareEmpty(strings.TrimPrefix(firstID, "chunk_"), "table of contents only")
	if err != nil || d != (tools.DeclaredEmpty{Chunk: firstID, File: first, Reason: "table of contents only"}) {
		t.Fatalf("declare: %+v, %v", d, err)
	}

	// The coverage: the first chunk read, cited and declared empty; the
	// others not read.
	r, err := j.Coverage()
	if err != nil {
		t.Fatal(err)
	}
	if r.Chunks != len(files) || r.Read != 1 || r.Cited != 1 || r.DeclaredEmpty != 1 || r.Uncovered != len(files)-1 || len(r.Unchunked) != 0 {
		t.Errorf("coverage %+v", r)
	}
	if len(r.Gaps) == 0 || r.Gaps[0].Read || r.Gaps[0].ID != "chunk_002" {
		t.Errorf("gaps %+v", r.Gaps)
	}
	// Every chunk read in full and declared empty: all covered.
	for _, f := range files[1:] {
		if _, err := j.NoteRead(lines(t, j, f, 1, 0)); err != nil {
			t.Fatal(err)
		}
		if _, err := j.DeclareEmpty(f, "background of the classes only"); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := j.Coverage(); err != nil || r.Uncovered != 0 || r.Covered() != len(files) || !r.Meets(1) {
		t.Errorf("coverage %+v, %v", r, err)
	}

	// The ledger is on disk: a job opened again has the same.
	reopened, err := job.Open(filepath.Dir(j.Dir), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	if !reflect.DeepEqual(reopened.Ledger(), j.Ledger()) {
		t.Errorf("reopened ledger %v, want %v", reopened.Ledger(), j.Ledger())
	}
}

// journaled is a job that also journals each read and declaration as the
// agent's loop does, so a rebuild can replay them.
type journaled struct {
	t *testing.T
	*job.Job
}

func (j journaled) result(tool string, data any, err error) {
	j.t.Helper()
	m := llm.Message{Role: llm.RoleTool, ToolName: tool, Data: llm.MessageData{Value: llm.ValueOf(data), Failed: err != nil}}
	if err := j.Append(transcript.Record{Type: transcript.TypeMessage, Message: &m}); err != nil {
		j.t.Fatal(err)
	}
}

func (j journaled) read(l tools.FileLines) {
	_, err := j.NoteRead(l)
	j.result("read_file", l, err)
}

func (j journaled) declare(chunk, reason string) {
	d, err := j.DeclareEmpty(chunk, reason)
	j.result("declare_chunk_empty", d, err)
}

// The ledger rebuilt from the transcript is the one kept as the calls
// went: reads in parts, out of order, again, of other files; declarations
// refused and accepted.
func TestRebuildFromTheTranscriptEqualsTheLiveLedger(t *testing.T) {
	t.Parallel()
	j := journaled{t, newJob(t)}
	files := chunkFiles(t, j.Job)
	j.read(lines(t, j.Job, files[1], 3, 0))
	j.declare(files[1], "background of the classes only") // refused: lines 1-2 unread
	j.read(lines(t, j.Job, files[1], 1, 2))
	j.declare(files[1], "background of the classes only")
	j.read(lines(t, j.Job, files[0], 1, 0))
	j.read(lines(t, j.Job, files[0], 1, 0))
	j.read(tools.FileLines{Path: "notes/plan.md", First: 1, Lines: []string{"x"}, Total: 1})
	j.read(lines(t, j.Job, files[2], 1, 1))
	j.declare("chunk_999", "does not exist at all")
	live := j.Ledger()
	if len(live) != 3 || live[files[1]].Empty == "" || live[files[0]].Empty != "" {
		t.Fatalf("live ledger %+v", live)
	}
	liveCov, err := j.Coverage()
	if err != nil {
		t.Fatal(err)
	}

	// A run resuming the job after a kill that lost the ledger file.
	if err := os.Remove(filepath.Join(j.Dir, filepath.FromSlash(coverage.File))); err != nil {
		t.Fatal(err)
	}
	resumed, err := job.Open(filepath.Dir(j.Dir), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Close()
	recs, err := resumed.Transcript()
	if err != nil {
		t.Fatal(err)
	}
	// Readers see the same before the rebuild, from the transcript.
	if r, err := resumed.View().Coverage(); err != nil || !reflect.DeepEqual(r, liveCov) {
		t.Errorf("view's coverage without a ledger %+v, %v; want %+v", r, err, liveCov)
	}
	if err := resumed.RebuildCoverage(transcript.Messages(recs)); err != nil {
		t.Fatal(err)
	}
	if got := resumed.Ledger(); !reflect.DeepEqual(got, live) {
		t.Errorf("rebuilt ledger %+v, want %+v", got, live)
	}
	if r, err := resumed.Coverage(); err != nil || !reflect.DeepEqual(r, liveCov) {
		t.Errorf("rebuilt coverage %+v, %v; want %+v", r, err, liveCov)
	}
}

// state is what the concurrent and the serial savers are compared by.
type state struct {
	requirements []string // text and quote, sorted
	ledger       map[string]coverage.Entry
	coverage     coverage.Report
}

// work is the job's operations of saver i: save the requirement of its
// section, read and declare empty a chunk, save a duplicate.
func work(t *testing.T, j *job.Job, files []string, i int) error {
	if _, err := j.Requirements().Save(requirementOf(t, j, i)); err != nil {
		return err
	}
	f := files[i%len(files)]
	if _, err := j.NoteRead(lines(t, j, f, 1, 0)); err != nil {
		return err
	}
	if _, err := j.DeclareEmpty(f, "background of the classes only"); err != nil {
		return err
	}
	if s, err := j.Requirements().Save(requirementOf(t, j, 1+(i+1)%sections)); err != nil {
		return err
	} else if s.ID == "" {
		return fmt.Errorf("no id for a save")
	}
	return nil
}

func stateOf(t *testing.T, j *job.Job) (state, []string) {
	t.Helper()
	saved, err := j.Requirements().List()
	if err != nil {
		t.Fatal(err)
	}
	var st state
	var ids []string
	for _, e := range saved {
		if e.Err != nil {
			t.Fatalf("%s: %v", e.File, e.Err)
		}
		ids = append(ids, e.Record.ID)
		st.requirements = append(st.requirements, e.Record.Text+" | "+e.Record.Citations[0].Quote)
	}
	sort.Strings(st.requirements)
	st.ledger = j.Ledger()
	if st.coverage, err = j.Coverage(); err != nil {
		t.Fatal(err)
	}
	return st, ids
}

// Sixteen savers at once on one job — saving requirements, saving them
// again, reading and declaring chunks — leave the state one saver after
// another leaves, but for which requirement got which id: every id is
// given once and the ids are REQ-001 to REQ-016.
func TestConcurrentSaversEqualSerialOnes(t *testing.T) {
	t.Parallel()
	serial := newJob(t)
	files := chunkFiles(t, serial)
	for i := 1; i <= sections; i++ {
		if err := work(t, serial, files, i); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := stateOf(t, serial)

	concurrent := newJob(t)
	if got := chunkFiles(t, concurrent); !reflect.DeepEqual(got, files) {
		t.Fatalf("chunks %v, want %v", got, files)
	}
	var wg sync.WaitGroup
	errs := make(chan error, sections)
	for i := 1; i <= sections; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := work(t, concurrent, files, i); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got, ids := stateOf(t, concurrent)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("concurrent savers left\n%+v\nserial ones\n%+v", got, want)
	}
	sort.Strings(ids)
	for n, id := range ids {
		if w := fmt.Sprintf("REQ-%03d", n+1); id != w {
			t.Fatalf("ids %v, want REQ-001 to REQ-%03d each once", ids, sections)
		}
	}
	if len(ids) != sections {
		t.Errorf("%d requirements, want %d", len(ids), sections)
	}
	// The ledger file is the ledger kept in memory.
	reopened, err := job.Open(filepath.Dir(concurrent.Dir), concurrent.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	if !reflect.DeepEqual(reopened.Ledger(), got.ledger) {
		t.Errorf("ledger on disk %+v, in memory %+v", reopened.Ledger(), got.ledger)
	}
}

// A save cut off after its final.json was renamed into place, before
// the process learned of it, or before the file was written at all,
// leaves a folder a reopened job works on: the requirement on disk is
// saved and cited, saving it again gives its id, and the next id follows.
func TestSaveInterruptedLeavesAConsistentFolder(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	root := filepath.Dir(j.Dir)
	if _, err := j.Requirements().Save(requirementOf(t, j, 1)); err != nil {
		t.Fatal(err)
	}
	// Another process saves requirement 2 and dies right after the
	// rename: what is on disk is all of its save there is.
	dying, err := job.Open(root, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := dying.Requirements().Save(requirementOf(t, dying, 2)); err != nil || s.ID != "REQ-002" {
		t.Fatalf("%+v, %v", s.Ref, err)
	}
	// And one dies before writing final.json of requirement 3, leaving
	// its folder empty.
	if err := os.MkdirAll(filepath.Join(j.Dir, "requirements", "req_003"), 0o755); err != nil {
		t.Fatal(err)
	}

	reopened, err := job.Open(root, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	if s, err := reopened.Requirements().Save(requirementOf(t, reopened, 2)); err != nil || !s.Duplicate || s.ID != "REQ-002" {
		t.Errorf("saving requirement 2 again: %+v, %v", s, err)
	}
	if s, err := reopened.Requirements().Save(requirementOf(t, reopened, 3)); err != nil || s.Duplicate || s.ID != "REQ-003" {
		t.Errorf("saving requirement 3: %+v, %v", s.Ref, err)
	}
	if s, err := reopened.Requirements().Save(requirementOf(t, reopened, 4)); err != nil || s.ID != "REQ-004" {
		t.Errorf("saving requirement 4: %+v, %v", s.Ref, err)
	}
	cited, err := reopened.Cited()
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 4; i++ {
		if c, _ := chunkOf(t, reopened, duty(i)); !cited[c] {
			t.Errorf("%s of requirement %d is not cited", c, i)
		}
	}
	if _, err := reopened.Requirements().Finalize("", nil); err != nil {
		t.Errorf("finalize: %v", err)
	}
}
