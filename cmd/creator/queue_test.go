package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"creator/internal/app"
	"creator/internal/batch"
	"creator/internal/pgtest"
	"creator/internal/queue"
	"creator/internal/s3test"
)

// queueDocs writes n small, different documents (variants of the sample
// policy) to a folder and returns it.
func queueDocs(t testing.TB, n int) string {
	t.Helper()
	sample, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sample", "retention-policy.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "docs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		text := strings.ReplaceAll(string(sample), "FIN-07", fmt.Sprintf("FIN-%02d", i+1))
		text = strings.ReplaceAll(text, "ten years", fmt.Sprintf("%d years", 8+i))
		// Twice as long: a job outlasts a short time slice.
		text += "\n\n## Annex\n\n" + strings.ReplaceAll(text, "# Records", "# Annex: Records")
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("policy %02d.md", i+1)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// queueReference runs each document of dir with creator run (job id as
// batch gives it) and publishes it to db: what the queue must produce.
func queueReference(t *testing.T, dir, url string) (root string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "ref")
	docs, err := batch.Discover([]string{dir}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, doc := range docs {
		id, err := batch.JobID(doc)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if code, _, stderr := cli(t, "run", "--workspace", root, "--job", id, "--model", "builtin", "--quiet", doc); code != exitOK {
				t.Errorf("run %s: exit %d\n%s", id, code, stderr)
				return
			}
			if code, _, stderr := cli(t, "publish", "--workspace", root, "--job", id, "--database", url); code != exitOK {
				t.Errorf("publish %s: exit %d\n%s", id, code, stderr)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return root
}

// cacheRows are requirement_cache's rows as JSON, all columns but the
// time of publication, in key order.
func cacheRows(t *testing.T, url string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT (to_jsonb(r) - 'published_at')::text FROM requirement_cache r ORDER BY job_id, requirement_id`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameOutputs checks that every job under ref has the same output/ files,
// byte for byte, under root.
func sameOutputs(t *testing.T, ref, root string) {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(ref, "job_*", "output"))
	if len(dirs) == 0 {
		t.Fatal("no reference outputs")
	}
	compared := 0
	for _, d := range dirs {
		err := filepath.Walk(d, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(ref, p)
			want, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			got, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s differs from creator run's (%v)", rel, err)
			}
			compared++
			return nil
		})
		if err != nil {
			t.Fatalf("reading the reference outputs: %v", err)
		}
	}
	if compared < len(dirs) {
		t.Fatalf("%d files compared for %d reference outputs", compared, len(dirs))
	}
}

// workerProc is a creator worker running as a separate process.
type workerProc struct {
	cmd    *exec.Cmd
	out    *bytes.Buffer
	exited chan error
}

func startWorker(t testing.TB, args ...string) *workerProc {
	t.Helper()
	return startWorkerEnv(t, nil, args...)
}

// startWorkerEnv starts a worker with env added to the test's environment.
func startWorkerEnv(t testing.TB, env []string, args ...string) *workerProc {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	w := &workerProc{cmd: exec.Command(exe, append([]string{"worker"}, args...)...), out: new(bytes.Buffer), exited: make(chan error, 1)}
	w.cmd.Env = append(append(cleanEnv(), mainEnv+"=1"), env...)
	w.cmd.Stdout, w.cmd.Stderr = w.out, w.out
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { w.exited <- w.cmd.Wait() }()
	return w
}

// stop sends SIGTERM and fails unless the worker exits with 0 within 10 s.
func (w *workerProc) stop(t testing.TB) {
	t.Helper()
	start := time.Now()
	w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-w.exited:
		if err != nil {
			t.Errorf("worker after SIGTERM: %v\n%s", err, w.out)
		}
		t.Logf("worker stopped %v after SIGTERM", time.Since(start).Round(time.Millisecond))
	case <-time.After(10 * time.Second):
		w.cmd.Process.Kill()
		t.Errorf("worker did not exit within 10 s of SIGTERM\n%s", w.out)
	}
}

func (w *workerProc) kill() {
	w.cmd.Process.Signal(syscall.SIGKILL)
	<-w.exited
}

// waitQueue polls the queue until done says so, or fails after limit.
func waitQueue(t testing.TB, url string, limit time.Duration, done func([]queue.Entry) bool) []queue.Entry {
	t.Helper()
	ctx := context.Background()
	pool, _, err := queue.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	deadline := time.Now().Add(limit)
	for {
		jobs, err := queue.List(ctx, pool)
		if err != nil {
			t.Fatal(err)
		}
		if done(jobs) {
			return jobs
		}
		if time.Now().After(deadline) {
			t.Fatalf("the queue did not get there within %s: %+v", limit, jobs)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func finished(jobs []queue.Entry) bool {
	for _, j := range jobs {
		if j.State != "completed" && j.State != "cancelled" && j.State != "discarded" {
			return false
		}
	}
	return len(jobs) > 0
}

// The queue's path on one machine: enqueue refuses an unmigrated
// database; migrate is idempotent; enqueue stores each document once,
// with batch's job id; a worker stopped with SIGTERM in the middle of a
// job exits within 10 s and hands the job back; a worker completes every
// job, in time slices, with creator run's output and publish's rows; a
// document that cannot be used is cancelled at once with its reason.
func TestQueueOneWorker(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs creator workers as separate processes")
	}
	srv := pgtest.Start(t)
	db, refDB := srv.URL(srv.Password), srv.NewDatabase(t).URL(srv.Password)
	docs := queueDocs(t, 3)
	ref := queueReference(t, docs, refDB)
	bad, err := filepath.Abs(filepath.Join("..", "..", "testdata", "bad", "encrypted.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "ws")

	code, _, stderr := cli(t, "enqueue", "--database", db, docs)
	if code != exitFailure || !strings.Contains(stderr, "not migrated") || !strings.Contains(stderr, "creator migrate") {
		t.Fatalf("enqueue before migrate: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := cli(t, "migrate", "--database", db); code != exitOK || !strings.Contains(stderr, "migrated postgres://creator@") || !strings.Contains(stderr, "of requirement_cache") {
		t.Fatalf("migrate: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := cli(t, "migrate", "--database", db); code != exitOK || !strings.Contains(stderr, "is up to date") {
		t.Fatalf("migrate again: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := cli(t, "enqueue", "--database", db, docs, bad)
	if code != exitOK || strings.Count(stdout, "\tqueued\t") != 4 {
		t.Fatalf("enqueue: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		f := strings.Split(line, "\t")
		if id, _ := batch.JobID(f[2]); id != f[0] {
			t.Errorf("enqueue gave %s the job id %s, batch gives %s", f[2], f[0], id)
		}
	}
	code, stdout, stderr = cli(t, "enqueue", "--database", db, docs, bad)
	if code != exitOK || strings.Count(stdout, "\talready queued\t") != 4 || !strings.Contains(stderr, "0 documents queued") {
		t.Fatalf("enqueue again: exit %d\n%s%s", code, stdout, stderr)
	}

	args := []string{"--database", db, "--workspace", root, "--slice", "700ms", "--retry-backoff", "200ms"}
	w := startWorker(t, args...)
	waitQueue(t, db, time.Minute, func(jobs []queue.Entry) bool {
		return slices.ContainsFunc(jobs, func(e queue.Entry) bool { return e.State == "running" && e.Document != "encrypted.pdf" })
	})
	time.Sleep(200 * time.Millisecond)
	w.stop(t)
	for _, e := range waitQueue(t, db, 5*time.Second, func([]queue.Entry) bool { return true }) {
		if e.State == "running" {
			t.Errorf("job %s still running after its worker stopped", e.Job)
		}
	}
	w = startWorker(t, args...)
	jobs := waitQueue(t, db, 2*time.Minute, finished)
	w.stop(t)
	if t.Failed() {
		t.FailNow()
	}
	sliced := 0
	for _, e := range jobs {
		switch {
		case e.Document == "encrypted.pdf":
			if e.State != "cancelled" || e.Attempts != 1 || !strings.Contains(e.LastError, "encrypted") {
				t.Errorf("the encrypted document: %+v", e)
			}
		case e.State != "completed":
			t.Errorf("job %s: %s, %s", e.Job, e.State, e.LastError)
		}
		sliced += e.Slices
	}
	if sliced == 0 {
		t.Errorf("no job was continued after a time slice: %+v", jobs)
	}
	if want, got := cacheRows(t, refDB), cacheRows(t, db); !slices.Equal(want, got) {
		t.Errorf("requirement_cache: %d rows, creator run + publish give %d (or their content differs)", len(got), len(want))
	}
	sameOutputs(t, ref, root)

	code, stdout, _ = cli(t, "queue", "--database", db)
	if code != exitOK || !strings.Contains(stdout, "JOB") || !strings.Contains(stdout, "completed") || !strings.Contains(stdout, "cancelled") {
		t.Errorf("queue: exit %d\n%s", code, stdout)
	}
	t.Logf("worker's log:\n%s", w.out)
}

// Three workers, killed with SIGKILL at random moments and restarted:
// every document completes, requirement_cache holds exactly the rows of
// creator run + publish, and each job's output is byte-identical to
// creator run's. CI: 12 documents, 5 kills; make stress: 30 and 10
// (CREATOR_STRESS_QUEUE_DOCS, CREATOR_STRESS_QUEUE_KILLS).
func TestQueueKilledWorkers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs creator workers as separate processes")
	}
	root := filepath.Join(t.TempDir(), "ws")
	killWorkers(t, envCount("CREATOR_STRESS_QUEUE_KILLS", 5), root, func() []string { return nil }, func() string { return root })
}

// The same with the workspace on an S3 bucket and no shared folder: each
// worker started has a cache of its own, empty, as a new machine has;
// the jobs go on from their checkpoints.
func TestQueueKilledWorkersOnABucket(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs creator workers as separate processes")
	}
	bucket := s3test.Start(t, "reqs", 0).URL("ws")
	caches := t.TempDir()
	n := 0
	newCache := func() []string {
		n++
		return []string{app.CacheEnv + "=" + filepath.Join(caches, strconv.Itoa(n))}
	}
	killWorkers(t, envCount("CREATOR_STRESS_QUEUE_KILLS", 10), bucket, newCache, func() string {
		// A machine that ran nothing reads every job from the bucket.
		env := map[string]string{app.CacheEnv: filepath.Join(caches, "reader")}
		w, err := app.OpenWorkspace(context.Background(), bucket, app.Env{Getenv: func(k string) string { return env[k] }, Now: time.Now})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if _, err := w.List(context.Background()); err != nil {
			t.Fatal(err)
		}
		return w.Root
	})
}

// killWorkers queues the documents, runs three workers on the workspace
// ws (each started with env()), kills one at random moments kills times
// and starts another, then checks that every job completed once with the
// rows and output/ files of creator run + publish on local disk (the job
// folders under outputs()).
func killWorkers(t *testing.T, kills int, ws string, env func() []string, outputs func() string) {
	n := envCount("CREATOR_STRESS_QUEUE_DOCS", 12)
	rng := stressRNG(t)
	srv := pgtest.Start(t)
	db, refDB := srv.URL(srv.Password), srv.NewDatabase(t).URL(srv.Password)
	docs := queueDocs(t, n)
	ref := queueReference(t, docs, refDB)
	if code, _, stderr := cli(t, "migrate", "--database", db); code != exitOK {
		t.Fatalf("migrate: exit %d\n%s", code, stderr)
	}
	if code, stdout, stderr := cli(t, "enqueue", "--database", db, docs); code != exitOK {
		t.Fatalf("enqueue: exit %d\n%s%s", code, stdout, stderr)
	}
	args := []string{"--database", db, "--workspace", ws, "--slice", "700ms", "--retry-backoff", "200ms"}
	workers := []*workerProc{startWorkerEnv(t, env(), args...), startWorkerEnv(t, env(), args...), startWorkerEnv(t, env(), args...)}
	var logs strings.Builder
	start := time.Now()
	for done := 0; done < kills; done++ {
		time.Sleep(time.Duration(300+rng.IntN(1200)) * time.Millisecond)
		i := rng.IntN(len(workers))
		workers[i].kill()
		logs.WriteString(workers[i].out.String())
		workers[i] = startWorkerEnv(t, env(), args...)
	}
	t.Logf("%d kills in %v", kills, time.Since(start).Round(time.Millisecond))
	jobs := waitQueue(t, db, 4*time.Minute, finished)
	elapsed := time.Since(start)
	for _, w := range workers {
		w.stop(t)
		logs.WriteString(w.out.String())
	}
	attempts := 0
	for _, e := range jobs {
		if e.State != "completed" {
			t.Errorf("job %s: %s, %s", e.Job, e.State, e.LastError)
		}
		attempts += e.Attempts
	}
	if attempts == len(jobs) {
		t.Errorf("no kill caught a job in the middle of an attempt (%d attempts for %d jobs)", attempts, len(jobs))
	}
	want, got := cacheRows(t, refDB), cacheRows(t, db)
	if !slices.Equal(want, got) {
		t.Errorf("requirement_cache: %d rows, creator run + publish give %d (or their content differs)", len(got), len(want))
	}
	sameOutputs(t, ref, outputs())
	msg := fmt.Sprintf("%d kills of 3 workers over %d documents (%d attempts cut short): %d completed in %v, %d requirement_cache rows, as creator run + publish give: %v",
		kills, n, attempts-len(jobs), len(jobs), elapsed.Round(time.Second), len(got), slices.Equal(want, got))
	t.Log(msg)
	if os.Getenv("CREATOR_STRESS_QUEUE_KILLS") != "" {
		fmt.Println(msg)
	}
	if t.Failed() {
		t.Logf("workers' logs:\n%s", logs.String())
	}
}
