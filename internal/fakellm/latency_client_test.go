package fakellm

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"creator/internal/llm"
)

// The product's client, used by parallel callers against a latency-modelled
// server: no more than Slots requests are ever held, and the cached tokens
// reach the client's usage.
func TestLatencyWithClient(t *testing.T) {
	g := newGate()
	s := NewWithLatency(done, Latency{Slots: 3, Base: 5 * time.Millisecond, Sleep: g.sleep})
	defer s.Close()
	client := llm.NewClient(llm.ClientConfig{BaseURL: s.URL(), Model: "m", RetryFor: -1})
	system := strings.Repeat("You extract requirements. ", 40)
	var wg sync.WaitGroup
	var mu sync.Mutex
	cached := 0
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Complete(context.Background(), llm.Request{System: system,
				Messages: []llm.Message{{Role: llm.RoleUser, Content: fmt.Sprintf("Read chunk %d.", i)}}})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			cached += resp.Usage.CachedTokens
			mu.Unlock()
		}()
	}
	until(t, s, "3 held and 9 waiting", func(l Load) bool { return l.InFlight == 3 && l.Waiting == 9 })
	close(g.open)
	wg.Wait()
	load := s.Load()
	if load.PeakInFlight != 3 || load.PeakWaiting != 9 || load.Served != 12 {
		t.Errorf("load = %+v, want 12 served, 3 at most at once", load)
	}
	// Every request but the first shares the system prompt.
	if cached != load.CachedTokens || cached < 11*len(system)/4-11*cacheBlock/4 {
		t.Errorf("client saw %d cached tokens, server %d, system prompt %d tokens", cached, load.CachedTokens, len(system)/4)
	}
	if v := s.Violations(); len(v) > 0 {
		t.Error(v)
	}
}
