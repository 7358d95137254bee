package main

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"creator/internal/fakellm"
	"creator/internal/pgtest"
)

// BenchmarkQueueWorkers measures documents per minute with 1, 2 and 4
// creator worker processes (--concurrency 1 each) on one queue, against
// the built-in model served over HTTP by a latency-modelled server with
// 32 slots (50 ms + 0.02 ms per prompt token, times
// CREATOR_BENCH_LATENCY_SCALE): the same documents each time, in a fresh
// database and workspace. It fails unless 4 workers reach 3 times the
// throughput of one. CREATOR_BENCH_QUEUE_DOCS sets the number of
// documents (default 16).
//
// A smoke run (CREATOR_BENCH_SMOKE=1, as CI's) takes 4 documents and a
// fiftieth of the latency, and does not hold the speed-up: with 4
// documents and processes that start in about the time a document takes,
// and on a machine shared with other work, it says little.
func BenchmarkQueueWorkers(b *testing.B) {
	defaultDocs := 16
	if benchSmoke() {
		defaultDocs = 4
	}
	n := envCount("CREATOR_BENCH_QUEUE_DOCS", defaultDocs)
	scale := benchLatencyScale(b)
	lat := fakellm.Latency{Slots: 32, Base: time.Duration(50 * scale * float64(time.Millisecond)),
		PerPromptToken: time.Duration(0.02 * scale * float64(time.Millisecond))}
	srv := pgtest.Start(b)
	docs := queueDocs(b, n)
	var perMinute = map[int]float64{}
	for b.Loop() {
		fmt.Printf("%d documents, the built-in model over HTTP: 32 slots, %v + %v per prompt token\n", n, lat.Base, lat.PerPromptToken)
		fmt.Printf("%-8s %10s %10s %12s %10s\n", "workers", "wall", "requests", "docs/minute", "speed-up")
		for _, w := range []int{1, 2, 4} {
			db := srv.NewDatabase(b).URL(srv.Password)
			root := filepath.Join(b.TempDir(), "ws")
			model := fakellm.NewWithLatency(builtinOverHTTP(&root), lat)
			if code, _, stderr := cli(b, "migrate", "--database", db); code != exitOK {
				b.Fatalf("migrate: %s", stderr)
			}
			if code, _, stderr := cli(b, "enqueue", "--database", db, "--model", "fake-model", "--base-url", model.URL(), "--max-steps", "5000", docs); code != exitOK {
				b.Fatalf("enqueue: %s", stderr)
			}
			start := time.Now()
			var procs []*workerProc
			for range w {
				procs = append(procs, startWorker(b, "--database", db, "--workspace", root, "--concurrency", "1", "--slice", "10m"))
			}
			jobs := waitQueue(b, db, 30*time.Minute, finished)
			wall := time.Since(start)
			for _, p := range procs {
				p.stop(b)
			}
			model.Close()
			for _, j := range jobs {
				if j.State != "completed" {
					b.Fatalf("job %s: %s %s", j.Job, j.State, j.LastError)
				}
			}
			perMinute[w] = float64(n) / wall.Minutes()
			fmt.Printf("%-8d %9.1fs %10d %12.1f %9.2f×\n", w, wall.Seconds(), model.Load().Served, perMinute[w], perMinute[w]/perMinute[1])
		}
	}
	if perMinute[4] < 3*perMinute[1] && !benchSmoke() {
		b.Errorf("4 workers: %.1f documents per minute, not 3 times one worker's %.1f", perMinute[4], perMinute[1])
	}
}
