package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"creator/internal/badfiles"
	"creator/internal/batch"
	"creator/internal/iostreams"
	"creator/internal/transcript"
	"creator/workspace"
)

// batchDocs writes small documents for a batch into a fresh folder: two
// that the built-in model completes, in a sub-folder too, and a file the
// walk must leave alone.
func batchDocs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "records.txt"), []byte("1 Records\n\nRecords must be kept for ten years. The archive should be checked every quarter.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "access.md"), []byte("# Access\n\nThe operator shall log every access. Backups must be encrypted.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.csv"), []byte("not,a,document\n"), 0o644)
	return dir
}

// addTruncatedPDF adds the hostile corpus's truncated PDF to dir.
func addTruncatedPDF(t *testing.T, dir string) {
	t.Helper()
	for _, f := range badfiles.Files() {
		if f.Name == "truncated.pdf" {
			os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644)
			return
		}
	}
	t.Fatal("no truncated.pdf in the hostile corpus")
}

// readBatch reads batch.json at the workspace root, by path.
func readBatch(t *testing.T, ws string) map[string]batch.Entry {
	t.Helper()
	var s struct {
		Documents []batch.Entry `json:"documents"`
	}
	data, err := os.ReadFile(filepath.Join(ws, batch.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("batch.json: %v\n%s", err, data)
	}
	out := map[string]batch.Entry{}
	for _, e := range s.Documents {
		out[filepath.Base(e.Path)] = e
	}
	return out
}

func jobStatus(t *testing.T, ws, id string) workspace.Status {
	t.Helper()
	var info workspace.Info
	data, err := os.ReadFile(filepath.Join(ws, "job_"+id, ".agent", "job.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(data, &info)
	return info.Status
}

// TestBatchBadFileChangedFileAndRerun: a truncated PDF is refused with its
// reason and no job while the other documents complete (exit 1); a second
// batch skips the finished jobs; a changed document becomes a new job and
// the old one is kept; without the bad file the batch exits 0.
func TestBatchBadFileChangedFileAndRerun(t *testing.T) {
	t.Parallel()
	docs, ws := batchDocs(t), filepath.Join(t.TempDir(), "ws")
	addTruncatedPDF(t, docs)
	code, stdout, stderr := cli(t, "batch", "--workspace", ws, docs)
	if code != exitFailure {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	got := readBatch(t, ws)
	if len(got) != 3 {
		t.Fatalf("batch.json lists %d documents, want 3 (the .csv left out): %v", len(got), got)
	}
	bad := got["truncated.pdf"]
	if bad.State != batch.Refused || !strings.Contains(bad.Error, "not a readable PDF") || !strings.Contains(stderr, "not a readable PDF") {
		t.Fatalf("truncated.pdf: %+v\n%s", bad, stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "job_"+bad.Job)); err == nil {
		t.Errorf("a job folder was made for the refused document")
	}
	rec := got["records.txt"]
	for _, name := range []string{"records.txt", "access.md"} {
		e := got[name]
		if e.State != batch.Completed || e.Requirements == 0 || e.ChunksTotal == 0 || e.ChunksDone != e.ChunksTotal || e.Requests == 0 {
			t.Errorf("%s: %+v", name, e)
		}
		if !strings.HasPrefix(e.Job, strings.TrimSuffix(name, filepath.Ext(name))+"-") || len(e.Job) != len(name)-len(filepath.Ext(name))+9 {
			t.Errorf("%s: job id %q", name, e.Job)
		}
		if !strings.Contains(stdout, filepath.Join(ws, "job_"+e.Job, "output", "requirements.json")) {
			t.Errorf("stdout does not name %s's requirements.json:\n%s", name, stdout)
		}
	}
	if md, _ := os.ReadFile(filepath.Join(ws, batch.MarkdownFile)); !bytes.Contains(md, []byte(rec.Job)) || !bytes.Contains(md, []byte("| refused |")) {
		t.Errorf("batch.md does not list the jobs:\n%s", md)
	}

	// Again: nothing runs, the bad file is refused again.
	code, _, stderr = cli(t, "batch", "--workspace", ws, docs)
	if code != exitFailure || strings.Contains(stderr, "records.txt: running") || !strings.Contains(stderr, "completed before") {
		t.Fatalf("second batch: exit %d\n%s", code, stderr)
	}

	// A changed document is a new job; the old one stays.
	os.WriteFile(filepath.Join(docs, "records.txt"), []byte("1 Records\n\nRecords must be kept for twelve years.\n"), 0o644)
	code, _, stderr = cli(t, "batch", "--workspace", ws, "--exclude", "*.pdf", docs)
	if code != exitOK {
		t.Fatalf("batch without the bad file: exit %d\n%s", code, stderr)
	}
	changed := readBatch(t, ws)["records.txt"]
	if changed.Job == rec.Job || changed.State != batch.Completed || len(readBatch(t, ws)) != 2 {
		t.Fatalf("changed document: %+v (old job %s)", changed, rec.Job)
	}
	if jobStatus(t, ws, rec.Job) != workspace.StatusCompleted {
		t.Errorf("the old job %s was not kept", rec.Job)
	}
	if !strings.Contains(stderr, "records.txt: running (job "+changed.Job+")") || strings.Contains(stderr, "access.md: running") {
		t.Errorf("only the changed document should run:\n%s", stderr)
	}
}

// TestBatchCtrlCThenRerunContinues: Ctrl-C while the first jobs run stops
// every job resumably and exits 130 after writing batch.json; the same
// batch again resumes the interrupted jobs, runs the ones not started and
// exits 0.
func TestBatchCtrlCThenRerunContinues(t *testing.T) {
	t.Parallel()
	docs, ws := batchDocs(t), filepath.Join(t.TempDir(), "ws")
	os.WriteFile(filepath.Join(docs, "third.txt"), []byte("Retention\n\nInvoices shall be archived for eight years.\n"), 0o644)
	// Ctrl-C once the first document's job has had a few answers.
	id, err := batch.JobID(filepath.Join(docs, "records.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(time.Millisecond) {
			if data, _ := os.ReadFile(filepath.Join(ws, "job_"+id, transcript.File)); bytes.Count(data, []byte("\n")) >= 4 {
				break
			}
		}
		cancel()
	}()
	var out, errOut bytes.Buffer
	code := execute(ctx, []string{"batch", "--workspace", ws, "--jobs", "2", docs},
		testFactory(&iostreams.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, nil, nil))
	stderr := errOut.String()
	if code != exitInterrupted || !strings.Contains(stderr, "continue the batch with: creator batch ") {
		t.Fatalf("Ctrl-C: exit %d, want 130\n%s", code, stderr)
	}
	first := readBatch(t, ws)
	interrupted := 0
	for name, e := range first {
		switch e.State {
		case batch.Interrupted:
			interrupted++
			if s := jobStatus(t, ws, e.Job); s != workspace.StatusInterrupted {
				t.Errorf("%s: job status %s, want interrupted", name, s)
			}
		case batch.Pending:
		case batch.Completed:
			// A job running beside the first may finish before the
			// Ctrl-C; the rerun skips it.
			if name == "records.txt" {
				t.Errorf("%s completed before the Ctrl-C it was to get", name)
			}
		default:
			t.Errorf("%s after Ctrl-C: %+v", name, e)
		}
	}
	if e := first["records.txt"]; e.State != batch.Interrupted || e.Requests == 0 {
		t.Errorf("records.txt was not interrupted after its first requests: %+v", e)
	}
	if interrupted == 0 || len(first) != 3 {
		t.Fatalf("after Ctrl-C: %+v", first)
	}

	code, _, stderr = cli(t, "batch", "--workspace", ws, "--jobs", "2", docs)
	if code != exitOK {
		t.Fatalf("rerun: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, ", resumed)") {
		t.Errorf("no job was resumed:\n%s", stderr)
	}
	for name, e := range readBatch(t, ws) {
		if e.State != batch.Completed || e.Job != first[name].Job || e.Requests < first[name].Requests {
			t.Errorf("%s after the rerun: %+v (job before: %s)", name, e, first[name].Job)
		}
	}
}

// TestBatchBudgetAndUsage: the batch's token budget stops it resumably
// (exit 3: the running job stopped, the others not started), and the
// command line's mistakes are usage errors (exit 2; each of them in
// app.TestNewBatch).
func TestBatchBudgetAndUsage(t *testing.T) {
	t.Parallel()
	docs, ws := batchDocs(t), filepath.Join(t.TempDir(), "ws")
	code, _, stderr := cli(t, "batch", "--workspace", ws, "--jobs", "1", "--batch-max-tokens", "1000", docs)
	if code != exitIncomplete || !strings.Contains(stderr, "--batch-max-tokens 1000") {
		t.Fatalf("batch budget: exit %d, want 3\n%s", code, stderr)
	}
	got := readBatch(t, ws)
	if e := got["records.txt"]; e.State != batch.Stopped || !strings.Contains(e.Error, "batch-max-tokens") {
		t.Errorf("the running job: %+v", e)
	}
	if e := got["access.md"]; e.State != batch.Pending || !strings.Contains(e.Error, "not started") {
		t.Errorf("the job after it: %+v", e)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"batch"}, "give the documents or folders"},
		{[]string{"batch", "--jobs", "0", docs}, "--jobs"}, // the others: app.TestNewBatch
	}
	for _, c := range cases {
		code, _, stderr := cli(t, append(c.args[:1:1], append([]string{"--workspace", ws}, c.args[1:]...)...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("creator %s: exit %d, %q; want 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
}

// TestBatchTableOnATerminal: on a terminal the batch keeps a table that
// fits the width, the jobs' own progress lines stay off the screen, the
// refused document's reason follows the table, and --json prints on
// stdout the object batch.json holds.
func TestBatchTableOnATerminal(t *testing.T) {
	t.Parallel()
	docs, ws := batchDocs(t), filepath.Join(t.TempDir(), "ws")
	addTruncatedPDF(t, docs)
	code, stdout, stderr := runWithStreams(t, 70, "batch", "--workspace", ws, "--json", docs)
	if code != exitFailure {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "DOCUMENT") || !strings.Contains(stderr, "\x1b[") || strings.Contains(stderr, "step ") ||
		strings.Contains(stderr, ": running (job") || !strings.Contains(stderr, "truncated.pdf: refused: ") {
		t.Errorf("stderr:\n%q", stderr)
	}
	for _, l := range strings.Split(regexp.MustCompile("\x1b\\[[0-9]*[A-Za-z]|\r").ReplaceAllString(stderr, ""), "\n") {
		if strings.HasPrefix(l, "DOCUMENT") || strings.Contains(l, "  completed  ") {
			if n := len([]rune(l)); n >= 70 {
				t.Errorf("a table line of %d columns: %q", n, l)
			}
		}
	}
	file, _ := os.ReadFile(filepath.Join(ws, batch.JSONFile))
	if strings.TrimSpace(stdout) != strings.TrimSpace(string(file)) {
		t.Errorf("--json and batch.json differ:\n%s\n%s", stdout, file)
	}
}
