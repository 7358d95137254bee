package app

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"creator/internal/remote"
	"creator/internal/s3test"
	"creator/internal/settings"
	"creator/workspace"
)

// machine is one machine's view of a bucket workspace: its own cache.
func machine(t *testing.T, url string) Workspace {
	t.Helper()
	cache := t.TempDir()
	w, err := OpenWorkspace(context.Background(), url, testEnv(map[string]string{CacheEnv: cache}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// runTo runs job id on the sample under w with at most maxSteps steps.
func runTo(t *testing.T, w Workspace, id string, maxSteps int) Resumed {
	t.Helper()
	s := settings.Defaults(func(string) string { return "" })
	s.MaxSteps = maxSteps
	jobs := Jobs{Workspace: w, Settings: s}
	r, extracted, err := jobs.New(context.Background(), id, []string{sampleMarkdown})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Job.Close()
	if _, err := jobs.Run(context.Background(), r, extracted, nil); err != nil {
		t.Fatal(err)
	}
	return r
}

func readOutput(t *testing.T, root, id string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "job_"+id, "output", "requirements.json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A job on an S3 bucket runs in a cache folder and is checkpointed: a
// machine with an empty cache sees it, resumes it where it stopped and
// completes it with the output of the same job on local disk; the id is
// taken in the bucket for every machine.
func TestJobOnABucket(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t, "reqs", 0)
	url := srv.URL("team/ws")
	ctx := context.Background()

	local := Workspace{Root: t.TempDir(), Env: testEnv(nil)}
	runTo(t, local, "p", 1000)
	want := readOutput(t, local.Root, "p")

	a := machine(t, url)
	runTo(t, a, "p", 3) // stops at its third step
	b := machine(t, url)
	st, err := b.Status(ctx, "p", "")
	if err != nil || st.View.State != string(workspace.StatusStopped) {
		t.Fatalf("status on another machine: %+v, %v", st.View.State, err)
	}
	jobs := Jobs{Workspace: b, Settings: settings.Defaults(func(string) string { return "" })}
	jobs.Settings.MaxSteps = 1000
	jobs.Settings.Give(settings.SetMaxSteps)
	out, err := jobs.Resume(ctx, "p", nil)
	if err != nil || out.Status != workspace.StatusCompleted {
		t.Fatalf("resume on another machine: %s, %v", out.Status, err)
	}
	if got := readOutput(t, b.Root, "p"); !bytes.Equal(got, want) {
		t.Errorf("the output after a resume elsewhere differs from the local run's")
	}
	// A third machine reads the completed job from the bucket alone.
	c := machine(t, url)
	views, err := c.List(ctx)
	if err != nil || len(views) != 1 || views[0].State != string(workspace.StatusCompleted) {
		t.Fatalf("list: %+v, %v", views, err)
	}
	exp, err := c.Export(ctx, ExportOptions{Job: "p", Format: "json"})
	if err != nil || !bytes.Equal(exp.Data, want) {
		t.Errorf("export from the bucket: %v", err)
	}
	// Machine a's cache is behind: it is brought to the newest checkpoint.
	if _, err := a.OpenView(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if got := readOutput(t, a.Root, "p"); !bytes.Equal(got, want) {
		t.Error("machine a's copy was not brought up to date")
	}
	// The id is taken in the bucket.
	if _, _, err := (Jobs{Workspace: c, Settings: jobs.Settings}).New(ctx, "p", []string{sampleMarkdown}); err == nil {
		t.Error("a second job 'p' was made")
	}
	if _, err := c.Pull(ctx, "none", ""); !errors.Is(err, workspace.ErrNoJob) {
		t.Errorf("pull of no job: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "copy")
	if got, err := c.Pull(ctx, "p", dir); err != nil || got != dir {
		t.Fatalf("pull -o: %s, %v", got, err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "output", "requirements.json")); err != nil || !bytes.Equal(got, want) {
		t.Errorf("the pulled copy differs: %v", err)
	}
	t.Logf("requests: %v", srv.Requests())
}

// A run that another process took over since it began stops at its next
// checkpoint, and its work does not reach the bucket.
func TestRunTakenOver(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t, "reqs", 0)
	url := srv.URL("ws")
	ctx := context.Background()
	a := machine(t, url)
	runTo(t, a, "p", 2)

	jobsA := Jobs{Workspace: a, Settings: settings.Defaults(func(string) string { return "" })}
	jobsA.Settings.MaxSteps = 1000
	jobsA.Settings.Give(settings.SetMaxSteps)
	r, done, err := jobsA.Continue(ctx, "p")
	if err != nil || done {
		t.Fatal(done, err)
	}
	defer r.Job.Close()
	// Meanwhile another machine takes the job and checkpoints it.
	b := machine(t, url)
	m, err := b.pull(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(m.Dir, "notes", "b.md"), []byte("b was here"), 0o644); err != nil {
		t.Fatal(err)
	}
	jb, err := b.OpenJob(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Checkpoint(ctx, jb.Workspace()); err != nil {
		t.Fatal(err)
	}
	jb.Close()
	_, err = jobsA.Run(ctx, r, nil, nil)
	if !errors.Is(err, remote.ErrSuperseded) {
		t.Fatalf("the run taken over: %v", err)
	}
	newest, _, err := b.Store.Newest(ctx, "p")
	if err != nil || newest.Writer == "" || newest.Generation != m.Generation() {
		t.Errorf("the newest checkpoint is not b's: %d vs %d, %v", newest.Generation, m.Generation(), err)
	}
}
