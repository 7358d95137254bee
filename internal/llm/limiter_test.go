package llm_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"creator/internal/llm"
)

// acquired waits for a place or fails the test.
func acquired(t *testing.T, l *llm.Limiter) func(int) {
	t.Helper()
	release, err := l.Acquire(context.Background())
	if err != nil {
		t.Error(err)
		return func(int) {}
	}
	return release
}

// waitFor polls until cond holds, for at most a minute: the goroutine
// cond waits for may be slow to run on a loaded machine, and the minute
// only ends a test that would otherwise hang.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func TestLimiterNeverMoreThanLimit(t *testing.T) {
	t.Parallel()
	l := llm.NewLimiter(3)
	var in, peak atomic.Int32
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				release := acquired(t, l)
				n := in.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(10 * time.Microsecond)
				in.Add(-1)
				release(200)
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > 3 || l.Stats().PeakHolders > 3 {
		t.Fatalf("peak %d, stats %+v, want at most 3", p, l.Stats())
	}
	if s := l.Stats(); s.Holders != 0 || s.Limit != 3 {
		t.Fatalf("stats after = %+v", s)
	}
}

// A burst of simultaneous 429s halves the limit once; a 503 from a request
// started after that halves it again; it never goes below 1.
func TestLimiterHalvesOncePerBurst(t *testing.T) {
	t.Parallel()
	l := llm.NewLimiter(8)
	var burst []func(int)
	for range 8 {
		burst = append(burst, acquired(t, l))
	}
	for _, release := range burst {
		release(429)
	}
	if s := l.Stats(); s.Limit != 4 || s.Decreases != 1 {
		t.Fatalf("after a burst of 429s: %+v, want limit 4 after one decrease", s)
	}
	acquired(t, l)(503)
	if s := l.Stats(); s.Limit != 2 || s.Decreases != 2 {
		t.Fatalf("after a later 503: %+v, want limit 2", s)
	}
	acquired(t, l)(429)
	acquired(t, l)(429)
	if s := l.Stats(); s.Limit != 1 || s.Decreases != 3 {
		t.Fatalf("after two more 429s: %+v, want limit 1 (not below)", s)
	}
	// Other failures change nothing.
	acquired(t, l)(500)
	acquired(t, l)(0)
	if s := l.Stats(); s.Limit != 1 {
		t.Fatalf("after a 500 and no answer: %+v", s)
	}
}

// After limit successes in a row the limit grows by one, back to the max.
func TestLimiterGrowsBackToMax(t *testing.T) {
	t.Parallel()
	l := llm.NewLimiter(4)
	acquired(t, l)(429)
	acquired(t, l)(429)
	if got := l.Stats().Limit; got != 1 {
		t.Fatalf("limit = %d, want 1", got)
	}
	want := []int{2, 2, 3, 3, 3, 4, 4, 4, 4, 4}
	for i, w := range want {
		acquired(t, l)(200)
		if got := l.Stats().Limit; got != w {
			t.Fatalf("after %d successes limit = %d, want %d", i+1, got, w)
		}
	}
}

// A shrunk limit holds back new requests until enough places are free.
func TestLimiterShrinkHoldsBack(t *testing.T) {
	t.Parallel()
	l := llm.NewLimiter(4)
	var held []func(int)
	for range 4 {
		held = append(held, acquired(t, l))
	}
	held[0](429) // limit 2, holders 3
	got := make(chan struct{})
	go func() { acquired(t, l)(200); close(got) }()
	waitFor(t, "a waiter", func() bool { return l.Stats().Waiting == 1 })
	held[1](200) // holders 2: still full
	select {
	case <-got:
		t.Fatal("a place was given beyond the limit")
	case <-time.After(20 * time.Millisecond):
	}
	held[2](200)
	<-got
	held[3](200)
	if s := l.Stats(); s.PeakHolders > 4 || s.Holders != 0 {
		t.Fatalf("stats = %+v", s)
	}
}

func TestLimiterFIFO(t *testing.T) {
	t.Parallel()
	l := llm.NewLimiter(1)
	first := acquired(t, l)
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release := acquired(t, l)
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			release(200)
		}()
		waitFor(t, "the next waiter", func() bool { return l.Stats().Waiting == i+1 })
	}
	first(200)
	wg.Wait()
	for i, n := range order {
		if n != i {
			t.Fatalf("served in order %v, want arrival order", order)
		}
	}
}

func TestLimiterCancelledWaiterLeaves(t *testing.T) {
	t.Parallel()
	l := llm.NewLimiter(1)
	first := acquired(t, l)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := l.Acquire(ctx)
		errc <- err
	}()
	waitFor(t, "a waiter", func() bool { return l.Stats().Waiting == 1 })
	second := make(chan func(int), 1)
	go func() { second <- acquired(t, l) }()
	waitFor(t, "two waiters", func() bool { return l.Stats().Waiting == 2 })
	cancel()
	if err := <-errc; err != context.Canceled {
		t.Fatalf("cancelled Acquire = %v", err)
	}
	if s := l.Stats(); s.Waiting != 1 || s.Holders != 1 {
		t.Fatalf("after cancel: %+v, want 1 waiting and 1 holder", s)
	}
	first(200)
	(<-second)(200)
	if s := l.Stats(); s.Holders != 0 || s.Waiting != 0 {
		t.Fatalf("at the end: %+v", s)
	}
	// Release counts once.
	r := acquired(t, l)
	r(200)
	r(200)
	if s := l.Stats(); s.Holders != 0 {
		t.Fatalf("double release: %+v", s)
	}
}

func TestNilLimiterLetsThrough(t *testing.T) {
	t.Parallel()
	var l *llm.Limiter
	release, err := l.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	release(429)
	if s := l.Stats(); s != (llm.LimiterStats{}) {
		t.Fatalf("stats = %+v", s)
	}
}
