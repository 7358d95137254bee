package fakellm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func done(Request) Reply { return Reply{Content: "ok", CompletionTokens: 5} }

// chat sends one chat request with a system prompt and a user message and
// returns the reply's body.
func chat(ctx context.Context, s *Server, system, user string) ([]byte, error) {
	body, _ := json.Marshal(map[string]any{"model": "m", "messages": []map[string]string{
		{"role": "system", "content": system}, {"role": "user", "content": user}}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("status %d: %s", resp.StatusCode, data)
	}
	return data, err
}

// chatAll sends n requests at once and waits for their answers.
func chatAll(t *testing.T, s *Server, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := chat(context.Background(), s, "system", fmt.Sprintf("request %d", i))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// until polls the server's load until ok holds, for at most a minute,
// which only ends a test that would otherwise hang: requests may be slow
// to arrive on a loaded machine.
func until(t *testing.T, s *Server, what string, ok func(Load) bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !ok(s.Load()) {
		if time.Now().After(deadline) {
			t.Fatalf("never %s: %+v", what, s.Load())
		}
		time.Sleep(time.Millisecond)
	}
}

// gate is a Sleep that holds every request until open is closed, and
// records the holds asked for, in order.
type gate struct {
	open chan struct{}
	mu   sync.Mutex
	held []time.Duration
}

func newGate() *gate { return &gate{open: make(chan struct{})} }

func (g *gate) sleep(ctx context.Context, d time.Duration) error {
	g.mu.Lock()
	g.held = append(g.held, d)
	g.mu.Unlock()
	select {
	case <-g.open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func TestLatencySlotsLimitRequestsInFlight(t *testing.T) {
	const base = 20 * time.Millisecond
	s := NewWithLatency(done, Latency{Slots: 2, Base: base})
	defer s.Close()
	start := time.Now()
	chatAll(t, s, 8)
	elapsed := time.Since(start)
	load := s.Load()
	if load.PeakInFlight != 2 || load.Served != 8 || load.InFlight != 0 || load.Waiting != 0 {
		t.Errorf("load = %+v, want 8 served, at most 2 at once", load)
	}
	if load.PeakWaiting < 1 {
		t.Errorf("no request waited: %+v", load)
	}
	// Eight requests in two slots take four holds one after another.
	if elapsed < 4*base {
		t.Errorf("8 requests in 2 slots of %v took %v", base, elapsed)
	}
	if v := s.Violations(); len(v) > 0 {
		t.Error(v)
	}
}

func TestLatencySlotsOverlap(t *testing.T) {
	g := newGate()
	s := NewWithLatency(done, Latency{Slots: 8, Base: 20 * time.Millisecond, Sleep: g.sleep})
	defer s.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); chatAll(t, s, 8) }()
	until(t, s, "8 in flight", func(l Load) bool { return l.InFlight == 8 })
	close(g.open)
	wg.Wait()
	if load := s.Load(); load.PeakInFlight != 8 || load.PeakWaiting != 0 || load.Served != 8 {
		t.Errorf("load = %+v, want all 8 served at once", load)
	}
}

func TestLatencyHoldsForPromptAndCompletion(t *testing.T) {
	g := newGate()
	close(g.open)
	s := NewWithLatency(done, Latency{Slots: 1, Base: time.Second, PerPromptToken: time.Millisecond, PerCompletionToken: time.Microsecond, Sleep: g.sleep})
	defer s.Close()
	if _, err := chat(context.Background(), s, "system", strings.Repeat("x", 400)); err != nil {
		t.Fatal(err)
	}
	tokens := s.Load().PromptTokens
	want := time.Second + time.Duration(tokens)*time.Millisecond + 5*time.Microsecond
	if tokens < 100 || len(g.held) != 1 || g.held[0] != want {
		t.Errorf("held %v for %d prompt tokens, want %v", g.held, tokens, want)
	}
}

func TestLatencyQueueIsFIFO(t *testing.T) {
	g := newGate()
	s := NewWithLatency(done, Latency{Slots: 1, PerPromptToken: time.Millisecond, Sleep: g.sleep})
	defer s.Close()
	// Prompts of different lengths are held for different times, which
	// tells the order they were served in.
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := chat(context.Background(), s, "system", strings.Repeat("x", 400*(i+1))); err != nil {
				t.Error(err)
			}
		}()
		until(t, s, "queued", func(l Load) bool { return l.InFlight+l.Waiting == i+1 })
	}
	close(g.open)
	wg.Wait()
	if len(g.held) != 4 {
		t.Fatalf("held %v", g.held)
	}
	for i := 1; i < 4; i++ {
		if g.held[i] <= g.held[i-1] {
			t.Errorf("served out of arrival order: holds %v", g.held)
		}
	}
}

func TestLatencyCancelFreesSlot(t *testing.T) {
	g := newGate()
	s := NewWithLatency(done, Latency{Slots: 1, Sleep: g.sleep})
	defer s.Close()
	send := func(ctx context.Context) chan error {
		errc := make(chan error, 1)
		go func() { _, err := chat(ctx, s, "system", "user"); errc <- err }()
		return errc
	}

	ctxA, cancelA := context.WithCancel(context.Background())
	defer cancelA()
	a := send(ctxA)
	until(t, s, "A held", func(l Load) bool { return l.InFlight == 1 })
	ctxB, cancelB := context.WithCancel(context.Background())
	defer cancelB()
	b := send(ctxB)
	until(t, s, "B waiting", func(l Load) bool { return l.Waiting == 1 })

	// B gives up while waiting: it held nothing, so A keeps the only slot.
	cancelB()
	<-b
	until(t, s, "B gone", func(l Load) bool { return l.Cancelled == 1 })
	if l := s.Load(); l.InFlight != 1 || l.Waiting != 0 {
		t.Fatalf("after a waiting request gave up: %+v", l)
	}

	// C waits; A gives up while held, and its slot goes to C at once.
	c := send(context.Background())
	until(t, s, "C waiting", func(l Load) bool { return l.Waiting == 1 })
	cancelA()
	<-a
	until(t, s, "C held", func(l Load) bool { return l.Cancelled == 2 && l.Waiting == 0 })
	if l := s.Load(); l.InFlight != 1 {
		t.Fatalf("after a held request gave up: %+v", l)
	}
	close(g.open)
	if err := <-c; err != nil {
		t.Fatal(err)
	}
	if l := s.Load(); l.Served != 1 || l.Cancelled != 2 || l.InFlight != 0 || l.PeakInFlight != 1 {
		t.Errorf("load = %+v", l)
	}
}

func TestLatencyFaultsTakeNoSlot(t *testing.T) {
	g := newGate()
	s := NewWithLatency(func(Request) Reply { return Reply{Status: 503, Body: `{"error":{"message":"overloaded"}}`} },
		Latency{Slots: 1, Sleep: g.sleep})
	defer s.Close()
	if _, err := chat(context.Background(), s, "system", "user"); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("err = %v, want the 503", err)
	}
	if l := s.Load(); l.PeakInFlight != 0 || l.Served != 0 || len(g.held) != 0 {
		t.Errorf("a refusal was held: %+v", l)
	}
}

func httpPost(url string, body []byte) (io.ReadCloser, error) {
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	return resp.Body, nil
}
