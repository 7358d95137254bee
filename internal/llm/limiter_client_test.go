package llm_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"creator/internal/fakellm"
	"creator/internal/llm"
)

// A 429 storm (30 % of the requests, then none) against clients sharing a
// Limiter of 4: every call completes, the server never holds more than 4
// requests, the limit drops during the storm and is back to 4 at the end.
func TestLimiterClientRateLimitStorm(t *testing.T) {
	t.Parallel()
	const storm = 120 // the first requests, 30 % of them refused
	var refused atomic.Int32
	handler := func(r fakellm.Request) fakellm.Reply {
		if r.N <= storm && r.N%10 < 3 {
			refused.Add(1)
			return fakellm.Reply{Status: 429, Header: map[string]string{"Retry-After": "1"},
				Body: `{"error":{"message":"rate limited","type":"rate_limit"}}`}
		}
		return fakellm.Reply{Content: "done"}
	}
	srv := fakellm.NewWithLatency(handler, fakellm.Latency{Slots: 16, Base: 5 * time.Millisecond})
	defer srv.Close()
	limiter := llm.NewLimiter(4)
	var minLimit atomic.Int32
	minLimit.Store(4)
	// Retry waits are instant; each notes the lowest limit seen.
	noWait := func(ctx context.Context, _ time.Duration) error {
		l := int32(limiter.Stats().Limit)
		for m := minLimit.Load(); l < m && !minLimit.CompareAndSwap(m, l); m = minLimit.Load() {
		}
		return ctx.Err()
	}
	client := llm.NewClient(llm.ClientConfig{BaseURL: srv.URL(), Model: "m", Sleep: noWait, Limiter: limiter})
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 12 {
				resp, err := client.Complete(context.Background(), llm.Request{
					Messages: []llm.Message{{Role: llm.RoleUser, Content: fmt.Sprintf("chunk %d.%d", g, i)}}})
				if err != nil {
					t.Error(err)
					return
				}
				if resp.Content != "done" {
					t.Errorf("content = %q", resp.Content)
				}
			}
		}()
	}
	wg.Wait()
	load, stats := srv.Load(), limiter.Stats()
	if load.Served != 16*12 || load.PeakInFlight > 4 || stats.PeakHolders > 4 {
		t.Errorf("load = %+v, limiter = %+v: want %d served, at most 4 at once", load, stats, 16*12)
	}
	if refused.Load() == 0 || stats.Decreases == 0 || minLimit.Load() >= 4 {
		t.Errorf("%d refused, limiter = %+v, lowest limit seen %d: the limit should have dropped", refused.Load(), stats, minLimit.Load())
	}
	if stats.Limit != 4 || stats.Holders != 0 || stats.Waiting != 0 {
		t.Errorf("limiter at the end = %+v, want limit 4 and nobody holding", stats)
	}
	if v := srv.Violations(); len(v) > 0 {
		t.Error(v)
	}
}

// The wait before a retry holds no place: with a limit of 1, another
// request can be sent while the refused one waits.
func TestLimiterRetryWaitHoldsNoPlace(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(script(fakellm.Reply{Status: 503, Body: `{"error":{"message":"busy"}}`}, fakellm.Reply{Content: "done"}))
	defer srv.Close()
	limiter := llm.NewLimiter(1)
	var held []int
	wait := func(ctx context.Context, _ time.Duration) error {
		held = append(held, limiter.Stats().Holders)
		return ctx.Err()
	}
	client := llm.NewClient(llm.ClientConfig{BaseURL: srv.URL(), Model: "m", Sleep: wait, Limiter: limiter})
	resp, err := client.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Attempts != 2 || len(held) != 1 || held[0] != 0 {
		t.Fatalf("attempts %d, places held during the waits %v: want 2 attempts, none held while waiting", resp.Attempts, held)
	}
	if s := limiter.Stats(); s.Holders != 0 || s.Decreases != 0 || s.Limit != 1 {
		t.Fatalf("limiter = %+v", s)
	}
}
