package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"creator/internal/iostreams"
)

// runWithStreams runs a command line with stderr as a terminal of the given
// width (0: not a terminal).
func runWithStreams(t *testing.T, width int, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut syncBuffer
	streams := &iostreams.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	if width > 0 {
		streams.ErrTTY = true
		streams.ErrWidth = func() int { return width }
	}
	code := execute(context.Background(), args, testFactory(streams, nil, nil))
	return code, out.String(), errOut.String()
}

func TestProgressLineOnATerminal(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, smallJob())
	args := e.args("run", "--job", "tty", "--quiet=false", e.doc)
	code, stdout, stderr := runWithStreams(t, 100, args...)
	if code != 0 || !strings.HasSuffix(stdout, "output/requirements.json\n") {
		t.Fatalf("exit %d: %q\n%q", code, stdout, stderr)
	}
	// Every redraw starts at the line's beginning and clears it; no drawn
	// line is wider than the terminal.
	draws := strings.Split(stderr, "\r\x1b[K")
	if len(draws) < 5 {
		t.Fatalf("%d redraws:\n%q", len(draws), stderr)
	}
	lineRE := regexp.MustCompile(`^step \d+ · (\d+/\d+ tasks · )?(\d+/\d+ chunks covered · )?\d+ requirements? · [\d,]+ tokens · \d+s( · task \d+\. .*)?$`)
	sawTask, sawCoverage := false, false
	for _, d := range draws[1:] {
		line, _, _ := strings.Cut(d, "\n") // a printed line may follow a clear
		if line == "" || strings.HasPrefix(line, "creator:") {
			continue
		}
		if n := utf8.RuneCountInString(line); n > 99 {
			t.Errorf("a %d-character line on a 100-column terminal: %q", n, line)
		}
		if !lineRE.MatchString(line) {
			t.Errorf("progress line %q", line)
		}
		sawTask = sawTask || strings.Contains(line, "· task ")
		sawCoverage = sawCoverage || strings.Contains(line, "· 1/1 chunks covered ·")
	}
	if !sawCoverage {
		t.Errorf("the line never showed the chunk covered:\n%q", stderr)
	}
	if !sawTask || !strings.Contains(stderr, "· 3/3 tasks ·") {
		t.Errorf("the line never showed the current task or the tasks done:\n%q", stderr)
	}
	// The line is cleared before the closing message, which stands alone.
	if !regexp.MustCompile(`\r\x1b\[Kcreator: job 'tty' completed in 5 steps \([\d,]+ tokens\)\n$`).MatchString(stderr) {
		t.Errorf("end of stderr: %q", stderr[max(0, len(stderr)-200):])
	}
	// No plain task lines: the live line shows the task.
	if strings.Contains(stderr, "] task 1 started") {
		t.Errorf("plain task lines on a terminal:\n%q", stderr)
	}
}

func TestProgressWithoutATerminal(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, smallJob())
	code, _, stderr := runWithStreams(t, 0, e.args("run", "--job", "log", "--quiet=false", e.doc)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.ContainsAny(stderr, "\r\x1b") {
		t.Errorf("terminal control characters in a log:\n%q", stderr)
	}
	for _, want := range []string{
		"creator: job 'log' started with model fake-model on policy.txt",
		"] task 1 started: Read the instructions",
		"] task 3 completed: Write the output",
		"creator: job 'log' completed in 5 steps",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 8 { // start, 3 × started, 3 × completed, end
		t.Errorf("%d lines:\n%s", len(lines), stderr)
	}
	// --quiet prints nothing but errors.
	_, _, stderr = runWithStreams(t, 80, e.args("run", "--job", "q", e.doc)...)
	if stderr != "" {
		t.Errorf("--quiet printed %q", stderr)
	}
}

// syncBuffer is a buffer the progress ticker and the command may share.
type syncBuffer struct {
	mu chanMutex
	b  bytes.Buffer
}

type chanMutex struct{ ch chan struct{} }

func (m *chanMutex) lock() {
	if m.ch == nil {
		m.ch = make(chan struct{}, 1)
	}
	m.ch <- struct{}{}
}
func (m *chanMutex) unlock() { <-m.ch }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.lock()
	defer s.mu.unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.lock()
	defer s.mu.unlock()
	return s.b.String()
}

// The line counts the requirements as the agent saves them.
func TestProgressLineCountsSavedRequirements(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "ws")
	code, _, stderr := runWithStreams(t, 200, "run", "--workspace", root, "--job", "n", "../../testdata/sample/retention-policy.pdf")
	if code != 0 {
		t.Fatalf("exit %d: %q", code, stderr)
	}
	draws := strings.Split(stderr, "\r\x1b[K")
	last := ""
	for _, d := range draws {
		if strings.HasPrefix(d, "step ") {
			last = d
		}
	}
	recs, _ := readRequirements(t, filepath.Join(root, "job_n"))
	if want := fmt.Sprintf("· %d requirements ·", len(recs)); !strings.Contains(last, want) {
		t.Errorf("last line %q lacks %q", last, want)
	}
}
