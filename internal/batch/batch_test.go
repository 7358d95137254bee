package batch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"creator/internal/agent"
	"creator/internal/document"
	"creator/internal/jobrun"
	"creator/internal/llm"
	"creator/workspace"
)

func TestStem(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"policy.pdf":                    "policy",
		"Richtlinie für Ärzte.pdf":      "Richtlinie-f-r--rzte",
		"ärger.txt":                     "_rger",
		".pdf":                          "doc",
		"v1.2_final-draft.docx":         "v1.2_final-draft",
		strings.Repeat("x", 60) + ".md": strings.Repeat("x", MaxStem),
	}
	for name, want := range cases {
		if got := Stem(name); got != want {
			t.Errorf("Stem(%q) = %q, want %q", name, got, want)
		}
		id := Stem(name) + "-0123abcd"
		if err := workspace.ValidateID(id); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
}

func TestJobIDFollowsTheBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a", "policy.txt"), filepath.Join(dir, "b", "policy.txt")
	os.MkdirAll(filepath.Dir(a), 0o755)
	os.MkdirAll(filepath.Dir(b), 0o755)
	os.WriteFile(a, []byte("Records must be kept.\n"), 0o644)
	os.WriteFile(b, []byte("Records must be kept.\n"), 0o644)
	ia, _ := JobID(a)
	ib, _ := JobID(b)
	if ia != ib || !strings.HasPrefix(ia, "policy-") || len(ia) != len("policy-")+8 {
		t.Fatalf("ids %q and %q", ia, ib)
	}
	os.WriteFile(b, []byte("Records must be kept for ten years.\n"), 0o644)
	if ib, _ = JobID(b); ib == ia {
		t.Fatalf("a changed document kept its id %q", ia)
	}
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"a.pdf", "b.TXT", "c.csv", "sub/d.md", "sub/drafts/e.docx", ".hidden/f.txt", "ws/job_x/input/g.txt", "old.doc"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
	}
	rel := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			r, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	got, err := Discover([]string{dir, filepath.Join(dir, "a.pdf"), filepath.Join(dir, "c.csv")}, nil, nil, filepath.Join(dir, "ws"))
	if want := []string{"a.pdf", "b.TXT", "sub/d.md", "sub/drafts/e.docx", "c.csv"}; err != nil || !slices.Equal(rel(got), want) {
		t.Fatalf("Discover = %v, %v; want %v", rel(got), err, want)
	}
	got, _ = Discover([]string{dir}, []string{"*.md", "*.docx", "*.pdf"}, []string{"sub/drafts/*"}, filepath.Join(dir, "ws"))
	if want := []string{"a.pdf", "sub/d.md"}; !slices.Equal(rel(got), want) {
		t.Fatalf("with globs: %v, want %v", rel(got), want)
	}
	if _, err := Discover([]string{filepath.Join(dir, "nope")}, nil, nil); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("a missing path: %v", err)
	}
}

// fakeRunner completes every job after a pause, counting how many run at
// once; a job of a document named stop* stops at a budget, and one of a
// document named cut* waits for its context and is interrupted.
type fakeRunner struct {
	mu            sync.Mutex
	running, peak int
	// overlap, when set, holds every job until that many have run at
	// once (for at most a minute), so that a batch that runs them side
	// by side shows it however its goroutines are scheduled; a pause of
	// its own could end before the next job starts on a busy machine.
	overlap int
	met     chan struct{} // closed when overlap jobs first ran at once
	// cut, when set, is called as a cut* job starts to wait: Ctrl-C
	// while that job runs, wherever the batch is by then.
	cut func()
}

func (f *fakeRunner) Start(ctx context.Context, id, path string, _ *document.Cache, rep jobrun.Reporter) (jobrun.Outcome, error) {
	f.mu.Lock()
	f.running++
	if f.overlap > 0 && f.running == f.overlap && f.peak < f.overlap {
		close(f.met)
	}
	f.peak = max(f.peak, f.running)
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.running--; f.mu.Unlock() }()
	rep.ModelCalled(agent.ModelCall{Usage: llm.Usage{PromptTokens: 100, CompletionTokens: 10}})
	switch base := filepath.Base(path); {
	case strings.HasPrefix(base, "cut"):
		if f.cut != nil {
			f.cut()
		}
		<-ctx.Done()
		return jobrun.Outcome{Status: workspace.StatusInterrupted, Exit: jobrun.ExitInterrupted, Resume: "creator resume --job " + id}, nil
	case strings.HasPrefix(base, "stop"):
		return jobrun.Outcome{Status: workspace.StatusStopped, Exit: jobrun.ExitIncomplete, Agent: agent.Outcome{Reason: "step limit"}, Resume: "creator resume --job " + id + " --max-steps 200"}, nil
	}
	if f.overlap > 0 {
		select {
		case <-f.met:
		case <-time.After(time.Minute):
		}
	} else {
		time.Sleep(20 * time.Millisecond)
	}
	return jobrun.Outcome{Status: workspace.StatusCompleted}, nil
}

func (f *fakeRunner) Check(path string) (*document.Cache, error) {
	return jobrun.CheckDocuments([]string{path}, document.Options{})
}

func (f *fakeRunner) Resume(ctx context.Context, id string, rep jobrun.Reporter) (jobrun.Outcome, error) {
	return f.Start(ctx, id, id, nil, rep)
}

func docs(t *testing.T, names ...string) []string {
	dir := t.TempDir()
	var out []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		os.WriteFile(p, []byte("Records must be kept.\n"+n), 0o644)
		out = append(out, p)
	}
	return out
}

// TestJobsAtOnce: never more than Jobs documents run at once, and each
// runs.
func TestJobsAtOnce(t *testing.T) {
	t.Parallel()
	r := &fakeRunner{overlap: 2, met: make(chan struct{})}
	b, _ := New(Options{Root: t.TempDir(), Documents: docs(t, "a.txt", "b.txt", "c.txt", "d.txt", "e.txt"), Jobs: 2, Runner: r})
	s := b.Run(context.Background())
	if r.peak != 2 || s.Count(Completed) != 5 || s.Exit() != jobrun.ExitOK {
		t.Fatalf("peak %d, %d completed, exit %d", r.peak, s.Count(Completed), s.Exit())
	}
}

// TestExitCodes: 1 for a refused document even when another stopped; 3
// for a stop alone; 130 after Ctrl-C; the budget stops the batch with 3.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	run := func(o Options, ctx context.Context) Summary {
		o.Root = t.TempDir()
		if o.Runner == nil {
			o.Runner = &fakeRunner{}
		}
		b, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		return b.Run(ctx)
	}
	bad := docs(t, "a.txt", "stop.txt", "bad.pdf") // bad.pdf is not a PDF
	if s := run(Options{Documents: bad}, context.Background()); s.Exit() != jobrun.ExitFailure || s.Count(Refused) != 1 || s.Count(Stopped) != 1 {
		t.Errorf("refused and stopped: exit %d, %+v", s.Exit(), s.Documents)
	} else if code, msg := s.Ending("creator batch x"); code != jobrun.ExitFailure || !strings.HasPrefix(msg, "1 document of 3 failed (see above); 1 document not finished; continue the batch with: creator batch x") {
		t.Errorf("refused and stopped: ending %d %q", code, msg)
	}
	s := run(Options{Documents: docs(t, "a.txt", "stop.txt")}, context.Background())
	if s.Exit() != jobrun.ExitIncomplete || !strings.Contains(Continue(s, "creator batch x"), "--max-steps 200") {
		t.Errorf("stopped: exit %d, %q", s.Exit(), Continue(s, "creator batch x"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s = run(Options{Documents: docs(t, "cut.txt", "a.txt", "b.txt"), Jobs: 1, Runner: &fakeRunner{cut: cancel}}, ctx)
	if s.Exit() != jobrun.ExitInterrupted || s.Count(Interrupted) != 1 || s.Count(Pending) != 2 {
		t.Errorf("Ctrl-C: exit %d, %+v", s.Exit(), s.Documents)
	} else if code, msg := s.Ending("creator batch x"); code != jobrun.ExitInterrupted || !strings.HasPrefix(msg, "interrupted; 3 documents not finished") {
		t.Errorf("Ctrl-C: ending %d %q", code, msg)
	}
	s = run(Options{Documents: docs(t, "cut.txt", "a.txt", "b.txt"), Jobs: 1, MaxTokens: 50}, context.Background())
	if s.Exit() != jobrun.ExitIncomplete || s.Documents[0].State != Stopped || s.Count(Pending) != 2 || s.Budget == "" {
		t.Errorf("budget: exit %d, %+v", s.Exit(), s.Documents)
	}
}

func TestTableFitsTheWidth(t *testing.T) {
	t.Parallel()
	var entries []Entry
	for i := range 20 {
		e := Entry{Path: strings.Repeat("long-name-", 8) + ".pdf", State: Pending}
		if i < 3 {
			e.State = Running
		}
		entries = append(entries, e)
	}
	lines := Table(entries, 60)
	if len(lines) != 1+3+1 || !strings.Contains(lines[4], "17 more documents: 17 pending") {
		t.Fatalf("table:\n%s", strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		if n := len([]rune(l)); n >= 60 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
}

// A document that cannot be used is refused without ever being shown
// running: its states are pending, then refused.
func TestRefusedIsNeverRunning(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	states := map[string][]State{}
	b, err := New(Options{Root: t.TempDir(), Runner: &fakeRunner{}, Documents: docs(t, "a.txt", "bad.pdf"),
		Changed: func(_ int, e Entry) {
			mu.Lock()
			states[filepath.Base(e.Path)] = append(states[filepath.Base(e.Path)], e.State)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	b.Run(context.Background())
	if got := states["bad.pdf"]; !slices.Equal(got, []State{Refused}) {
		t.Errorf("bad.pdf went through %v, want only refused", got)
	}
	if got := states["a.txt"]; len(got) == 0 || got[0] != Running {
		t.Errorf("a.txt went through %v", got)
	}
}

// CommandLine quotes only the words a shell would read otherwise, and
// those so that the shell gives them back as they are.
func TestCommandLine(t *testing.T) {
	got := CommandLine("creator", "batch", "--include", "*.pdf", "--model", "gpt-4o", "my docs/", "it's.md", "a,b=c:d@e%f+g")
	want := `creator batch --include '*.pdf' --model gpt-4o 'my docs/' 'it'\''s.md' a,b=c:d@e%f+g`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
