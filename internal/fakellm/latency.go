package fakellm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Latency models how fast a server answers, so that tests of parallel
// requests can show a speed-up: at most Slots requests are served at once
// (a batch of a vLLM-like server); a request beyond them waits for a free
// slot, first come first served, and is then held for
//
//	Base + PerPromptToken × prompt tokens + PerCompletionToken × completion tokens
//
// before its answer is written. A request whose client gives up while it
// waits or is held leaves at once, freeing its slot if it had one.
//
// Only answers take a slot: a reply with a Status, a Hang or a Crash is
// sent as without the model (a server refuses before it computes); the
// reply's own Delay is waited before the request queues.
//
// Prompt tokens are the server's own count: the bytes of the prompt as the
// server renders it (see promptText) divided by 4. With a latency model the
// reply's usage reports this count, and as cached tokens the part of it
// shared with an earlier prompt (see Load), whatever the handler said.
type Latency struct {
	Slots              int // requests served at once; 0 is no limit
	Base               time.Duration
	PerPromptToken     time.Duration
	PerCompletionToken time.Duration // of the reply's CompletionTokens
	// Sleep holds a request for d, or until ctx ends, then returning its
	// error. Nil is a real timer; tests can hold requests at will.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Load is what a latency-modelled server has measured so far.
type Load struct {
	Served       int // answered after their hold
	Cancelled    int // given up by their client while waiting or held
	InFlight     int // held in a slot now
	Waiting      int // waiting for a slot now
	PeakInFlight int
	PeakWaiting  int

	// Tokens of the prompts given a slot (counted as the request starts
	// being served): the largest one, the sum, and the sum of the prefixes
	// each shared with an earlier one (see EffectivePromptTokens).
	LargestPrompt int
	PromptTokens  int
	CachedTokens  int
}

// EffectivePromptTokens is PromptTokens with the cached ones counted at
// 10 %, as a prompt cache (vLLM's, OpenAI's) discounts them.
func (l Load) EffectivePromptTokens() float64 {
	return float64(l.PromptTokens-l.CachedTokens) + 0.1*float64(l.CachedTokens)
}

// NewWithLatency starts a server that answers as h decides, at the speed
// lat models.
func NewWithLatency(h Handler, lat Latency) *Server {
	s := &Server{handler: h, latency: &latency{Latency: lat, cache: prefixCache{seen: map[[16]byte]struct{}{}}}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	s.url = s.Server.URL + "/v1"
	return s
}

// Load returns the server's measurements; zero for a server without a
// latency model.
func (s *Server) Load() Load {
	if s.latency == nil {
		return Load{}
	}
	l := s.latency
	l.mu.Lock()
	defer l.mu.Unlock()
	load := l.load
	load.InFlight = l.inFlight
	load.Waiting = len(l.queue)
	return load
}

type latency struct {
	Latency

	mu       sync.Mutex
	inFlight int
	queue    []*waiter
	load     Load
	cache    prefixCache
}

type waiter struct {
	ready   chan struct{}
	granted bool // the slot was handed over; guarded by latency.mu
}

// hold takes a slot for the request, counts its prompt and holds it for
// its time, setting the reply's usage; false if the client gave up.
func (l *latency) hold(ctx context.Context, body *openai.ChatCompletionRequest, reply *Reply) bool {
	if !l.acquire(ctx) {
		return false
	}
	text := promptText(body)
	tokens := len(text) / 4
	l.mu.Lock()
	cached := l.cache.add(text) / 4
	l.load.PromptTokens += tokens
	l.load.CachedTokens += cached
	l.load.LargestPrompt = max(l.load.LargestPrompt, tokens)
	l.mu.Unlock()
	reply.PromptTokens, reply.CachedTokens = tokens, cached

	d := l.Base + time.Duration(tokens)*l.PerPromptToken + time.Duration(reply.CompletionTokens)*l.PerCompletionToken
	sleep := l.Sleep
	if sleep == nil {
		sleep = realSleep
	}
	err := sleep(ctx, d)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.releaseLocked()
	if err != nil {
		l.load.Cancelled++
		return false
	}
	l.load.Served++
	return true
}

// acquire waits for a slot, in arrival order; false if ctx ends first.
func (l *latency) acquire(ctx context.Context) bool {
	l.mu.Lock()
	if (l.Slots <= 0 || l.inFlight < l.Slots) && len(l.queue) == 0 {
		l.inFlight++
		l.load.PeakInFlight = max(l.load.PeakInFlight, l.inFlight)
		l.mu.Unlock()
		return true
	}
	w := &waiter{ready: make(chan struct{})}
	l.queue = append(l.queue, w)
	l.load.PeakWaiting = max(l.load.PeakWaiting, len(l.queue))
	l.mu.Unlock()
	select {
	case <-w.ready:
		return true
	case <-ctx.Done():
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.load.Cancelled++
	if w.granted { // the slot came as the client gave up: pass it on
		l.releaseLocked()
		return false
	}
	for i, q := range l.queue {
		if q == w {
			l.queue = append(l.queue[:i], l.queue[i+1:]...)
			break
		}
	}
	return false
}

// releaseLocked frees a slot: the first waiting request gets it.
func (l *latency) releaseLocked() {
	if len(l.queue) == 0 {
		l.inFlight--
		return
	}
	w := l.queue[0]
	l.queue = l.queue[1:]
	w.granted = true
	close(w.ready)
}

func realSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// promptText is the prompt as the server renders it for the model, the
// text whose bytes / 4 are its tokens and whose prefixes are cached: the
// system messages, the tools (name, description, parameters), then the
// other messages in order (role, tool call id, reasoning, content, tool
// calls). Tools come before the conversation as chat templates (Qwen,
// Hermes, Llama 3.1) put them in the system turn, so a growing
// conversation keeps sharing them.
func promptText(body *openai.ChatCompletionRequest) []byte {
	var b bytes.Buffer
	for _, m := range body.Messages {
		if m.Role == openai.ChatMessageRoleSystem {
			b.WriteString("<system>\n" + m.Content + "\n")
		}
	}
	for _, t := range body.Tools {
		if t.Function == nil {
			continue
		}
		params, _ := json.Marshal(t.Function.Parameters)
		b.WriteString("<tool>\n" + t.Function.Name + "\n" + t.Function.Description + "\n")
		b.Write(params)
		b.WriteString("\n")
	}
	for _, m := range body.Messages {
		if m.Role == openai.ChatMessageRoleSystem {
			continue
		}
		b.WriteString("<" + m.Role + ">\n")
		if m.ToolCallID != "" {
			b.WriteString("[" + m.ToolCallID + "]\n")
		}
		if m.ReasoningContent != "" {
			b.WriteString("<think>" + m.ReasoningContent + "</think>\n")
		}
		b.WriteString(m.Content + "\n")
		for _, tc := range m.ToolCalls {
			b.WriteString("<call " + tc.ID + ">" + tc.Function.Name + " " + tc.Function.Arguments + "\n")
		}
	}
	return b.Bytes()
}

// cacheBlock is the prefix cache's block, in bytes: as real prefix caches
// keep whole blocks of tokens, only whole blocks of a prompt are shared.
const cacheBlock = 64

// prefixCache remembers every block-aligned prefix of the prompts it was
// given, by a hash chained over the blocks (so a prefix costs one hash,
// and a prompt time in its length).
type prefixCache struct {
	seen map[[16]byte]struct{}
}

// add returns the bytes of text's longest block-aligned prefix that an
// earlier text had, and remembers text's prefixes.
func (c *prefixCache) add(text []byte) int {
	var buf [16 + cacheBlock]byte
	var key [16]byte
	shared, matching := 0, true
	for i := 0; i+cacheBlock <= len(text); i += cacheBlock {
		copy(buf[:16], key[:])
		copy(buf[16:], text[i:i+cacheBlock])
		sum := sha256.Sum256(buf[:])
		copy(key[:], sum[:16])
		if matching {
			if _, ok := c.seen[key]; ok {
				shared = i + cacheBlock
				continue
			}
			matching = false
		}
		c.seen[key] = struct{}{}
	}
	return shared
}
