package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"creator/internal/corpustest"
	"creator/internal/s3test"
	"creator/internal/settings"
	"creator/workspace"
)

// runBuiltin runs the built-in model on doc as job id under w to the end
// and returns its output and how long it took.
func runBuiltin(tb testing.TB, w Workspace, id, doc string) ([]byte, time.Duration) {
	tb.Helper()
	start := time.Now()
	jobs := Jobs{Workspace: w, Settings: settings.Defaults(func(string) string { return "" })}
	r, extracted, err := jobs.New(context.Background(), id, []string{doc})
	if err != nil {
		tb.Fatal(err)
	}
	out, err := jobs.Run(context.Background(), r, extracted, nil)
	r.Job.Close()
	if err != nil || out.Status != workspace.StatusCompleted {
		tb.Fatalf("%s: %s, %v", id, out.Status, err)
	}
	elapsed := time.Since(start)
	data, err := os.ReadFile(filepath.Join(w.Root, "job_"+id, "output", "requirements.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return data, elapsed
}

// The built-in job on NIST SP 800-63B with its workspace on a bucket
// sends at most 1,000 requests to the store and gives the output of the
// same job on local disk.
func TestObjectStoreRequests(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs a whole corpus job twice")
	}
	doc := corpustest.Path(t, "NIST.SP.800-63b.pdf")
	want, _ := runBuiltin(t, Workspace{Root: t.TempDir(), Env: testEnv(nil)}, "b", doc)
	srv := s3test.Start(t, "reqs", 0)
	got, _ := runBuiltin(t, machine(t, srv.URL("ws")), "b", doc)
	if !bytes.Equal(got, want) {
		t.Error("the output on the bucket differs from the local run's")
	}
	if n := srv.Total(); n > 1000 || n == 0 {
		t.Errorf("%d requests to the store (%v), want at most 1,000", n, srv.Requests())
	}
	t.Logf("requests to the store: %d %v", srv.Total(), srv.Requests())
}

// BenchmarkObjectStore runs the built-in job on NIST SP 800-63B on local
// disk and on a bucket whose every request takes
// $CREATOR_BENCH_LATENCY_MS (default 20) milliseconds more, and reports
// both times, their ratio and the requests (make bench-objectstore). A
// smoke run (CREATOR_BENCH_SMOKE=1, as CI's: make bench-smoke) takes GoBD,
// half the text.
func BenchmarkObjectStore(b *testing.B) {
	name := "NIST.SP.800-63b.pdf"
	if os.Getenv("CREATOR_BENCH_SMOKE") == "1" {
		name = "GoBD.pdf"
	}
	doc := corpustest.Path(b, name)
	latency := 20 * time.Millisecond
	if ms, err := strconv.Atoi(os.Getenv("CREATOR_BENCH_LATENCY_MS")); err == nil {
		latency = time.Duration(ms) * time.Millisecond
	}
	var local, bucket time.Duration
	requests := 0
	for i := 0; i < b.N; i++ {
		_, l := runBuiltin(b, Workspace{Root: b.TempDir(), Env: testEnv(nil)}, "b", doc)
		srv := s3test.Start(b, "reqs", latency)
		cache := b.TempDir()
		w, err := OpenWorkspace(context.Background(), srv.URL("ws"), testEnv(map[string]string{CacheEnv: cache}))
		if err != nil {
			b.Fatal(err)
		}
		_, r := runBuiltin(b, w, "b", doc)
		w.Close()
		local, bucket, requests = local+l, bucket+r, requests+srv.Total()
	}
	n := float64(b.N)
	b.ReportMetric(local.Seconds()/n, "s-local")
	b.ReportMetric(bucket.Seconds()/n, "s-bucket")
	b.ReportMetric(bucket.Seconds()/local.Seconds(), "ratio")
	b.ReportMetric(float64(requests)/n, "requests")
}
