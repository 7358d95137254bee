package remote

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"creator/internal/s3test"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
)

// still is a job nobody writes to while it is checkpointed.
type still struct{}

func (still) Quiesce(fn func() error) error { return fn() }

func write(t *testing.T, dir, rel, content string, mode fs.FileMode) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, dir, rel, content string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, rel), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
}

// tree is a folder's files and their content, the excluded ones left out.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := walkFiles(dir, func(rel string, fi fs.FileInfo) error {
		data, err := os.ReadFile(filepath.Join(dir, rel))
		out[rel+" "+fi.Mode().Perm().String()] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, want, got string) {
	t.Helper()
	a, b := tree(t, want), tree(t, got)
	if len(a) != len(b) {
		t.Fatalf("%d files, want %d:\n%v\n%v", len(b), len(a), keys(b), keys(a))
	}
	for k, v := range a {
		if b[k] != v {
			t.Errorf("%s differs: %q, want %q", k, b[k], v)
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// jobFolder makes a small job folder under a cache root.
func jobFolder(t *testing.T) (root, dir string) {
	root = t.TempDir()
	dir = filepath.Join(root, "job_j")
	write(t, dir, "plan.json", `{"tasks":[]}`, 0o644)
	write(t, dir, "input/doc.md", "Backups must be encrypted.\n", 0o444)
	write(t, dir, ".agent/transcript.jsonl", `{"n":1}`+"\n", 0o644)
	write(t, dir, ".agent/lock", "4242", 0o644)
	write(t, dir, ".agent/index/store/seg1", "index bytes", 0o644)
	write(t, dir, "requirements/req_001/final.json", `{"id":"REQ-001"}`, 0o644)
	write(t, dir, "requirements/req_002/final.json", `{"id":"REQ-001"}`, 0o644) // the same bytes
	if err := os.MkdirAll(filepath.Join(dir, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root, dir
}

// packBytes is the size of every pack of the job in the bucket.
func packBytes(t *testing.T, b *blob.Bucket) (n int64, packs int) {
	t.Helper()
	it := b.List(&blob.ListOptions{Prefix: "jobs/j/packs/"})
	for {
		o, err := it.Next(context.Background())
		if err != nil {
			return n, packs
		}
		n += o.Size
		packs++
	}
}

// A checkpoint pulled elsewhere gives the same folder (files, modes,
// empty folders), without the machine's own files; unchanged bytes are
// never sent twice, a grown log only by what it grew.
func TestCheckpointAndPull(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, s, dir, m := checkpointedJob(t)
	first, packs := packBytes(t, b)
	if packs != 1 || first != int64(len(`{"tasks":[]}`+"Backups must be encrypted.\n"+`{"n":1}`+"\n"+`{"id":"REQ-001"}`)) {
		t.Errorf("first pack: %d bytes in %d packs", first, packs)
	}
	// Nothing changed: nothing sent.
	if err := m.Checkpoint(ctx, still{}); err != nil || m.Generation() != 1 {
		t.Fatalf("an idle checkpoint: generation %d, %v", m.Generation(), err)
	}
	appendTo(t, dir, ".agent/transcript.jsonl", `{"n":2}`+"\n")
	write(t, dir, "notes/a.md", "a note", 0o644)
	if err := m.Checkpoint(ctx, still{}); err != nil || m.Generation() != 2 {
		t.Fatalf("second checkpoint: generation %d, %v", m.Generation(), err)
	}
	if n, packs := packBytes(t, b); n-first != int64(len(`{"n":2}`+"\n"+"a note")) || packs != 2 {
		t.Errorf("second pack: %d bytes, want the appended line and the note only", n-first)
	}

	other := filepath.Join(t.TempDir(), "job_j")
	found, err := s.MirrorOf("j", other, nil).Pull(ctx)
	if err != nil || !found {
		t.Fatalf("pull: %v, %v", found, err)
	}
	sameTree(t, dir, other)
	if fi, err := os.Stat(filepath.Join(other, "notes")); err != nil || !fi.IsDir() {
		t.Errorf("the notes folder: %v", err)
	}
	for _, rel := range []string{".agent/lock", ".agent/index/store/seg1"} {
		if _, err := os.Stat(filepath.Join(other, rel)); err == nil {
			t.Errorf("%s was carried to another machine", rel)
		}
	}
}

// A folder behind the newest checkpoint is brought to it, files the
// checkpoint has not removed; a folder this machine went on with after
// its last checkpoint, which nobody checkpointed since, is kept and sent
// with the next one.
func TestPullBehindAndAhead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := New(memblob.OpenBucket(nil), "mem://")
	_, a := jobFolder(t)
	if err := s.MirrorOf("j", a, nil).Checkpoint(ctx, still{}); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(t.TempDir(), "job_j")
	mb := s.MirrorOf("j", b, nil)
	if _, err := mb.Pull(ctx); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(b, "requirements/req_002/final.json"))
	appendTo(t, b, ".agent/transcript.jsonl", `{"n":2}`+"\n")
	if err := mb.Checkpoint(ctx, still{}); err != nil {
		t.Fatal(err)
	}
	// Machine a went on after its checkpoint too, but b checkpointed
	// since: a's folder is brought to b's.
	write(t, a, "notes/stale.md", "work b never saw", 0o644)
	if _, err := s.MirrorOf("j", a, nil).Pull(ctx); err != nil {
		t.Fatal(err)
	}
	sameTree(t, b, a)

	// Now a goes on, and is the newest: a new process on a keeps it.
	write(t, a, "notes/ahead.md", "done after the last checkpoint", 0o644)
	ma := s.MirrorOf("j", a, nil)
	if found, err := ma.Pull(ctx); err != nil || !found {
		t.Fatal(found, err)
	}
	if _, err := os.Stat(filepath.Join(a, "notes/ahead.md")); err != nil {
		t.Fatalf("the work after the last checkpoint was dropped: %v", err)
	}
	if err := ma.Checkpoint(ctx, still{}); err != nil || ma.Generation() != 3 {
		t.Fatalf("checkpoint of the kept work: %d, %v", ma.Generation(), err)
	}
}

// A process whose job another took over can never overwrite the newer
// checkpoint: its own is refused, and the newest stays the other's.
func TestSupersededCheckpointIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := New(memblob.OpenBucket(nil), "mem://")
	_, a := jobFolder(t)
	ma := s.MirrorOf("j", a, nil)
	if err := ma.Checkpoint(ctx, still{}); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(t.TempDir(), "job_j")
	mb := s.MirrorOf("j", b, nil)
	if _, err := mb.Pull(ctx); err != nil {
		t.Fatal(err)
	}
	write(t, b, "notes/b.md", "b's work", 0o644)
	if err := mb.Checkpoint(ctx, still{}); err != nil {
		t.Fatal(err)
	}
	write(t, a, "notes/a.md", "a's late work", 0o644)
	if err := ma.Checkpoint(ctx, still{}); !errors.Is(err, ErrSuperseded) {
		t.Fatalf("a's late checkpoint: %v, want ErrSuperseded", err)
	}
	newest, _, err := s.Newest(ctx, "j")
	if err != nil || newest.Writer != mb.writer || newest.Generation != 2 {
		t.Errorf("newest: generation %d by %s, %v", newest.Generation, newest.Writer, err)
	}
}

// A checkpoint cut off before its manifest leaves the previous one in
// force, and the next checkpoint goes on from it.
func TestCutOffCheckpointLeavesThePrevious(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, s, dir, m := checkpointedJob(t)
	want := filepath.Join(t.TempDir(), "job_j")
	if _, err := s.MirrorOf("j", want, nil).Pull(ctx); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "plan.json", `{"tasks":["cut"]}`, 0o644)
	// Cut off while sending: the context ends.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := m.Checkpoint(cancelled, still{}); err == nil {
		t.Fatal("a cancelled checkpoint succeeded")
	}
	// Cut off after the pack, before the manifest.
	changes, _, _, err := m.snapshot(still{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.sendPack(ctx, "2-cut", changes, map[string]*tracked{}); err != nil {
		t.Fatal(err)
	}
	got := filepath.Join(t.TempDir(), "job_j")
	if _, err := s.MirrorOf("j", got, nil).Pull(ctx); err != nil {
		t.Fatal(err)
	}
	sameTree(t, want, got)
	if err := m.Checkpoint(ctx, still{}); err != nil || m.Generation() != 2 {
		t.Fatalf("the next checkpoint: %d, %v", m.Generation(), err)
	}
}

// A pack whose bytes are not what the manifest's hashes say is refused,
// and the folder keeps its files.
func TestPullChecksHashes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, s, _, _ := checkpointedJob(t)
	it := b.List(&blob.ListOptions{Prefix: "jobs/j/packs/"})
	o, err := it.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := b.ReadAll(ctx, o.Key)
	data[0] ^= 0xff
	if err := b.WriteAll(ctx, o.Key, data, nil); err != nil {
		t.Fatal(err)
	}
	// A folder behind the checkpoint: a file it lacks, one it holds
	// otherwise.
	other := filepath.Join(t.TempDir(), "job_j")
	write(t, other, "notes/mine.md", "mine\n", 0o644)
	write(t, other, "plan.json", "old", 0o644)
	if _, err := s.MirrorOf("j", other, nil).Pull(ctx); err == nil || !strings.Contains(err.Error(), "does not match its checkpoint") {
		t.Errorf("a damaged pack: %v", err)
	}
	for name, want := range map[string]string{"notes/mine.md": "mine\n", "plan.json": "old"} {
		if data, err := os.ReadFile(filepath.Join(other, name)); err != nil || string(data) != want {
			t.Errorf("%s after a refused pull: %q, %v; want it as it was", name, data, err)
		}
	}
}

// A bucket without the job has no checkpoint to pull; the jobs of a bucket
// are listed by id.
func TestNoCheckpointAndJobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := New(memblob.OpenBucket(nil), "mem://")
	if found, err := s.MirrorOf("none", filepath.Join(t.TempDir(), "job_none"), nil).Pull(ctx); found || err != nil {
		t.Errorf("pull of no job: %v, %v", found, err)
	}
	_, dir := jobFolder(t)
	if err := s.MirrorOf("j", dir, nil).Checkpoint(ctx, still{}); err != nil {
		t.Fatal(err)
	}
	if ids, err := s.Jobs(ctx); err != nil || len(ids) != 1 || ids[0] != "j" {
		t.Errorf("jobs: %v, %v", ids, err)
	}
	// Deleted, the job has no object left.
	if err := s.Delete(ctx, "j"); err != nil {
		t.Fatal(err)
	}
	if ids, err := s.Jobs(ctx); err != nil || len(ids) != 0 {
		t.Errorf("jobs after the delete: %v, %v", ids, err)
	}
}

// Two processes that go on from the same checkpoint race to write the
// next: one wins, the other is refused, and the winner's checkpoint is
// whole.
func TestRacingCheckpoints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := s3test.Start(t, "reqs", 0)
	s, err := Open(ctx, srv.URL("ws"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, a := jobFolder(t)
	if err := s.MirrorOf("j", a, nil).Checkpoint(ctx, still{}); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 5; round++ {
		var mirrors []*Mirror
		for i := 0; i < 2; i++ {
			dir := filepath.Join(t.TempDir(), "job_j")
			m := s.MirrorOf("j", dir, nil)
			if _, err := m.Pull(ctx); err != nil {
				t.Fatal(err)
			}
			write(t, dir, "notes/who.md", strings.Repeat("x", i+1), 0o644)
			mirrors = append(mirrors, m)
		}
		errs := make(chan error, 2)
		for _, m := range mirrors {
			go func() { errs <- m.Checkpoint(ctx, still{}) }()
		}
		won, refused := 0, 0
		for range mirrors {
			switch err := <-errs; {
			case err == nil:
				won++
			case errors.Is(err, ErrSuperseded):
				refused++
			default:
				t.Fatal(err)
			}
		}
		if won != 1 || refused != 1 {
			t.Fatalf("round %d: %d won, %d refused", round, won, refused)
		}
		check := filepath.Join(t.TempDir(), "job_j")
		if _, err := s.MirrorOf("j", check, nil).Pull(ctx); err != nil {
			t.Fatalf("round %d: the newest checkpoint cannot be read: %v", round, err)
		}
	}
}

// A folder through file:// holds checkpoints as a bucket does, under the
// URL's path, and refuses a superseded one.
func TestFileBucket(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bucketDir := t.TempDir()
	s, err := Open(ctx, "file://"+bucketDir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, dir := jobFolder(t)
	m := s.MirrorOf("j", dir, nil)
	if err := m.Checkpoint(ctx, still{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(bucketDir, "jobs", "j", "manifests")); err != nil {
		t.Fatalf("no manifests in the folder: %v", err)
	}
	other := filepath.Join(t.TempDir(), "job_j")
	mo := s.MirrorOf("j", other, nil)
	if _, err := mo.Pull(ctx); err != nil {
		t.Fatal(err)
	}
	sameTree(t, dir, other)
	write(t, other, "notes/o.md", "o", 0o644)
	if err := mo.Checkpoint(ctx, still{}); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "notes/late.md", "late", 0o644)
	if err := m.Checkpoint(ctx, still{}); !errors.Is(err, ErrSuperseded) {
		t.Errorf("a superseded checkpoint on file://: %v", err)
	}
	if _, err := Open(ctx, "ftp://host/x"); err == nil {
		t.Error("an ftp:// workspace was taken")
	}
}

// checkpointedJob checkpoints a job folder "j" (jobFolder's) to a bucket
// in memory, and returns the bucket, its store, the folder and its mirror.
func checkpointedJob(t *testing.T) (*blob.Bucket, *Store, string, *Mirror) {
	t.Helper()
	b := memblob.OpenBucket(nil)
	s := New(b, "mem://")
	_, dir := jobFolder(t)
	m := s.MirrorOf("j", dir, nil)
	if err := m.Checkpoint(context.Background(), still{}); err != nil {
		t.Fatal(err)
	}
	return b, s, dir, m
}

// A file whose name is as long as a file system allows (the workspace
// takes 255 bytes) is pulled too: its temporary name is kept short.
func TestPullLongFileName(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	s := New(b, "mem://")
	_, dir := jobFolder(t)
	long := "notes/" + strings.Repeat("n", 240) + ".md"
	write(t, dir, long, "a note\n", 0o644)
	if err := s.MirrorOf("j", dir, nil).Checkpoint(ctx, still{}); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "job_j")
	if _, err := s.MirrorOf("j", elsewhere, nil).Pull(ctx); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(elsewhere, long)); err != nil || string(data) != "a note\n" {
		t.Errorf("%q, %v", data, err)
	}
}
