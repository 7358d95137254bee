package fakellm

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

type usage struct {
	PromptTokens int `json:"prompt_tokens"`
	Details      struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// chatUsage sends a request to a latency-modelled server and returns the
// usage its reply reports.
func chatUsage(t *testing.T, s *Server, system, user string) usage {
	t.Helper()
	data, err := chat(context.Background(), s, system, user)
	if err != nil {
		t.Fatal(err)
	}
	var reply struct{ Usage usage }
	if err := json.Unmarshal(data, &reply); err != nil {
		t.Fatal(err)
	}
	return reply.Usage
}

func TestLatencyPrefixCache(t *testing.T) {
	const block = cacheBlock / 4 // tokens of a cache block
	half := strings.Repeat("a", 2000)
	cases := []struct {
		name             string
		first, second    [2]string // system, user
		minRate, maxRate float64   // share of the second prompt cached
	}{
		{"same prompt", [2]string{"system", half + half}, [2]string{"system", half + half}, 0.98, 1},
		{"first half shared", [2]string{"system", half + strings.Repeat("b", 2000)}, [2]string{"system", half + strings.Repeat("c", 2000)}, 0.45, 0.55},
		{"unrelated", [2]string{"alpha", half}, [2]string{"beta", half}, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewWithLatency(done, Latency{Slots: 1})
			defer s.Close()
			first := chatUsage(t, s, c.first[0], c.first[1])
			if first.Details.CachedTokens != 0 {
				t.Errorf("first request had %d cached tokens", first.Details.CachedTokens)
			}
			second := chatUsage(t, s, c.second[0], c.second[1])
			rate := float64(second.Details.CachedTokens) / float64(second.PromptTokens)
			if rate < c.minRate || rate > c.maxRate || second.Details.CachedTokens%block != 0 {
				t.Errorf("second request: %d of %d prompt tokens cached, want a share in [%v, %v] in whole blocks",
					second.Details.CachedTokens, second.PromptTokens, c.minRate, c.maxRate)
			}
			load := s.Load()
			if load.PromptTokens != first.PromptTokens+second.PromptTokens || load.CachedTokens != second.Details.CachedTokens ||
				load.LargestPrompt != max(first.PromptTokens, second.PromptTokens) {
				t.Errorf("load = %+v, replies' usage %+v and %+v", load, first, second)
			}
			want := float64(load.PromptTokens) - 0.9*float64(load.CachedTokens)
			if got := load.EffectivePromptTokens(); math.Abs(got-want) > 1e-9 {
				t.Errorf("effective prompt tokens = %v, want %v", got, want)
			}
		})
	}
}

func TestPrefixCacheLongestOfAnyEarlier(t *testing.T) {
	c := prefixCache{seen: map[[16]byte]struct{}{}}
	a := bytes.Repeat([]byte("0123456789abcdef"), 64) // 16 blocks
	b := bytes.Repeat([]byte("fedcba9876543210"), 64)
	if n := c.add(a); n != 0 {
		t.Errorf("first prompt shares %d bytes", n)
	}
	if n := c.add(b); n != 0 {
		t.Errorf("unrelated prompt shares %d bytes", n)
	}
	// Not the last prompt but an earlier one: a's first 5 blocks, and a
	// part of a block that is not shared.
	d := append(append([]byte{}, a[:5*cacheBlock+10]...), []byte("different tail, longer than a block of the cache.............")...)
	if n := c.add(d); n != 5*cacheBlock {
		t.Errorf("shares %d bytes, want %d", n, 5*cacheBlock)
	}
	if n := c.add(a[:100]); n != cacheBlock {
		t.Errorf("a prompt's own start shares %d bytes, want %d", n, cacheBlock)
	}
	if n := c.add(a); n != len(a) {
		t.Errorf("a prompt sent again shares %d bytes, want %d", n, len(a))
	}
}

func TestPromptTextPutsToolsBeforeConversation(t *testing.T) {
	s := NewWithLatency(done, Latency{})
	defer s.Close()
	body := func(user string) []byte {
		data, _ := json.Marshal(map[string]any{"model": "m",
			"messages": []map[string]string{{"role": "system", "content": "sys"}, {"role": "user", "content": user}},
			"tools": []map[string]any{{"type": "function", "function": map[string]any{
				"name": "read", "description": strings.Repeat("reads a file. ", 40),
				"parameters": map[string]any{"type": "object"}}}}})
		return data
	}
	for _, user := range []string{"one", "two"} {
		resp, err := httpPost(s.URL()+"/chat/completions", body(user))
		if err != nil {
			t.Fatal(err)
		}
		resp.Close()
	}
	// The system prompt and the tool's long description are shared.
	if l := s.Load(); l.CachedTokens < 100 {
		t.Errorf("the tools were not shared: %+v", l)
	}
}
