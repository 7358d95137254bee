package progress

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"creator/internal/agent"
	"creator/internal/humanize"
	"creator/internal/llm"
)

func TestLineFitsANarrowTerminal(t *testing.T) {
	t.Parallel()
	p := New(Options{Width: func() int { return 40 }})
	p.started, p.step, p.done, p.total = time.Now(), 12, 2, 7
	p.task, p.reqs = "3. Find the candidates in chunks 1 to 10", 1
	line := humanize.Clip(p.line(), p.columns()-1)
	if utf8.RuneCountInString(line) != 39 || !strings.HasPrefix(line, "step 12 · 2/7 tasks · 1 requirement · ") || !strings.HasSuffix(line, "…") {
		t.Errorf("line %q", line)
	}
	p.priced, p.totals.CostUSD, p.totals.PromptTokens = true, 1.234, 1500000
	if line := p.line(); !strings.Contains(line, "1,500,000 tokens ($1.23)") {
		t.Errorf("line %q", line)
	}
}

// A failed attempt the client tries again is said once, with the
// server's words and the next attempt's time: a line of its own in a log
// and with --verbose, on the live line until the server answers.
func TestServerRetried(t *testing.T) {
	t.Parallel()
	var log strings.Builder
	p := New(Options{Out: &log})
	p.ServerRetried(llm.Retry{Attempt: 2, Status: 502, Message: "Provider returned error", Wait: 4 * time.Second, Next: time.Date(2026, 11, 28, 12, 0, 4, 0, time.Local)})
	if got := log.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, `attempt 2): HTTP 502 "Provider returned error"; trying again at 12:00:04 (in 4s)`) {
		t.Errorf("log: %q", got)
	}
	live := New(Options{Out: &strings.Builder{}, Live: true})
	live.started = time.Now()
	live.ServerRetried(llm.Retry{Attempt: 1, Wait: time.Second, Next: time.Now().Add(time.Second)})
	if line := live.line(); !strings.Contains(line, "waiting for the server: no answer; trying again at") {
		t.Errorf("live line %q", line)
	}
	live.ModelCalled(agent.ModelCall{})
	if line := live.line(); strings.Contains(line, "waiting") {
		t.Errorf("still waiting after an answer: %q", line)
	}
	quiet := New(Options{Out: &log, Quiet: true})
	log.Reset()
	quiet.ServerRetried(llm.Retry{Attempt: 1})
	if log.Len() != 0 {
		t.Errorf("quiet printed %q", log.String())
	}
}
