package agent

import (
	"sync"

	"creator/internal/llm"
	"creator/internal/transcript"
)

// Meter counts the model calls of all of a job's agents together — the
// main agent and its sub-agents — so that the job's budgets (Limits) and
// figures are the job's, whichever agent made the call. It is safe for
// concurrent use.
type Meter struct {
	mu sync.Mutex
	t  Totals
}

// NewMeter starts counting from the job's totals so far.
func NewMeter(start Totals) *Meter { return &Meter{t: start} }

// Totals are the job's figures so far.
func (m *Meter) Totals() Totals {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.t
}

// add counts one model call and returns the totals with it.
func (m *Meter) add(u llm.Usage, cost float64) Totals {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.t.Steps++
	m.t.PromptTokens += int64(u.PromptTokens)
	m.t.CompletionTokens += int64(u.CompletionTokens)
	m.t.CachedTokens += int64(u.CachedTokens)
	m.t.CostUSD += cost
	return m.t
}

// OwnTotals are the figures of this agent's own calls, without the other
// agents a Meter counts.
func (a *Agent) OwnTotals() Totals { return a.totals }

// StepTotals sums the step records of a transcript: the calls an agent
// made and what they used. A sub-agent's transcript, whose attempts each
// number their steps from one, is counted by its records, not its step
// numbers.
func StepTotals(recs []transcript.Record) Totals {
	var t Totals
	for _, r := range recs {
		if r.Type != transcript.TypeStep {
			continue
		}
		t.Steps++
		if r.Usage != nil {
			t.PromptTokens += int64(r.Usage.PromptTokens)
			t.CompletionTokens += int64(r.Usage.CompletionTokens)
			t.CachedTokens += int64(r.Usage.CachedTokens)
		}
		t.CostUSD += r.CostUSD
	}
	return t
}

// Plus is the sum of two totals.
func (t Totals) Plus(o Totals) Totals {
	return Totals{Steps: t.Steps + o.Steps, PromptTokens: t.PromptTokens + o.PromptTokens, CompletionTokens: t.CompletionTokens + o.CompletionTokens,
		CachedTokens: t.CachedTokens + o.CachedTokens, CostUSD: t.CostUSD + o.CostUSD}
}
