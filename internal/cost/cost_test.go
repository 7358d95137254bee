package cost

import (
	"math"
	"testing"

	"creator/internal/llm"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	for model, want := range map[string]float64{
		"gpt-4.1":                 2,
		"GPT-4.1-2025-04-14":      2,
		"openai/gpt-4.1-mini":     0.40,
		"gpt-4.1-mini-2025-04-14": 0.40,
		"gpt-4o-mini":             0.15,
		"o4-mini":                 1.10,
	} {
		p, ok := Lookup(model)
		if !ok || p.In != want {
			t.Errorf("%s: %+v %v, want input price %v", model, p, ok, want)
		}
	}
	for _, model := range []string{"gpt-oss-120b", "llama-3.1-70b", "gpt-4.1-turbo-preview", "", "builtin"} {
		if p, ok := Lookup(model); ok {
			t.Errorf("%s has a price %+v", model, p)
		}
	}
}

func TestOf(t *testing.T) {
	t.Parallel()
	p := Price{In: 2, Out: 8, Cached: 0.5}
	got := p.Of(llm.Usage{PromptTokens: 1_000_000, CachedTokens: 400_000, CompletionTokens: 100_000})
	if want := 0.6*2 + 0.4*0.5 + 0.1*8; math.Abs(got-want) > 1e-9 {
		t.Errorf("cost %v, want %v", got, want)
	}
	// Without a cached price, cached tokens cost as much as the others.
	if got := (Price{In: 1, Out: 1}).Of(llm.Usage{PromptTokens: 500_000, CachedTokens: 500_000}); math.Abs(got-0.5) > 1e-9 {
		t.Errorf("cost %v", got)
	}
	// A server that reports more cached than prompt tokens is not trusted beyond the prompt.
	if got := (Price{In: 1, Cached: 0.1}).Of(llm.Usage{PromptTokens: 10, CachedTokens: 50}); math.Abs(got-1e-6) > 1e-12 {
		t.Errorf("cost %v", got)
	}
}
