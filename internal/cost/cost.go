// Package cost turns token counts into money: prices per million tokens,
// given on the command line or taken from a small table of common OpenAI
// models.
package cost

import (
	"sort"
	"strings"

	"creator/internal/llm"
)

// Price is what a model costs in US dollars per million tokens. Cached is
// the price of prompt tokens the server reports as served from its cache;
// zero means they cost as much as other prompt tokens.
type Price struct {
	In, Out, Cached float64
}

// Of returns the cost of one call.
func (p Price) Of(u llm.Usage) float64 {
	cached := min(max(u.CachedTokens, 0), u.PromptTokens)
	cachedPrice := p.Cached
	if cachedPrice == 0 {
		cachedPrice = p.In
	}
	return (float64(u.PromptTokens-cached)*p.In + float64(cached)*cachedPrice + float64(u.CompletionTokens)*p.Out) / 1e6
}

// table holds OpenAI's published standard prices (2025) per million tokens.
// Flags override it; models it does not know have no price.
var table = map[string]Price{
	"gpt-5":        {In: 1.25, Out: 10, Cached: 0.125},
	"gpt-5-mini":   {In: 0.25, Out: 2, Cached: 0.025},
	"gpt-5-nano":   {In: 0.05, Out: 0.40, Cached: 0.005},
	"gpt-4.1":      {In: 2, Out: 8, Cached: 0.50},
	"gpt-4.1-mini": {In: 0.40, Out: 1.60, Cached: 0.10},
	"gpt-4.1-nano": {In: 0.10, Out: 0.40, Cached: 0.025},
	"gpt-4o":       {In: 2.50, Out: 10, Cached: 1.25},
	"gpt-4o-mini":  {In: 0.15, Out: 0.60, Cached: 0.075},
	"o3":           {In: 2, Out: 8, Cached: 0.50},
	"o4-mini":      {In: 1.10, Out: 4.40, Cached: 0.275},
}

// Lookup finds a model's price in the table: by its name, without a
// provider prefix ("openai/gpt-4.1") and without a date or other suffix
// ("gpt-4.1-2025-04-14" is gpt-4.1, but gpt-4.1-mini is its own entry).
func Lookup(model string) (Price, bool) {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if p, ok := table[name]; ok {
		return p, true
	}
	// The longest known name the model's name extends with a dated suffix.
	var best string
	for k := range table {
		if rest, ok := strings.CutPrefix(name, k+"-"); ok && dated(rest) && len(k) > len(best) {
			best = k
		}
	}
	if best == "" {
		return Price{}, false
	}
	return table[best], true
}

// dated reports whether a name suffix is a release date or snapshot tag:
// it starts with a digit (2025-04-14, 0613).
func dated(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

// Models lists the models of the table, for help texts.
func Models() []string {
	names := make([]string, 0, len(table))
	for k := range table {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// For is the price of a model and whether it is known: the given prices
// per million tokens when either is set, nothing for a model that runs
// here (free), else the table's.
func For(model string, in, out float64, free bool) (Price, bool) {
	switch {
	case in > 0 || out > 0:
		return Price{In: in, Out: out}, true
	case free:
		return Price{}, true
	}
	return Lookup(model)
}
