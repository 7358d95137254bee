package progress

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"creator/internal/humanize"
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
