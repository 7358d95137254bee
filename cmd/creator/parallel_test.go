package main

import (
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"creator/internal/fakellm"
	"creator/internal/settings"
	"creator/templates"
)

// A storm of rate limits while sub-agents work: the server answers 30 %
// of requests 11 to 40 (GoBD's main agent hands its 25 chunks to
// sub-agents at the tenth) with HTTP 429, half with Retry-After, and holds
// each answer 20 ms with room for more requests than the job may send. With --parallel N for N = 1, 4, 8 the job completes with the
// output of a clean run, and the server never has more than N requests in
// flight. The waits between attempts pass at once (the test factory's).
func TestRateLimitStormUnderParallel(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("whole jobs")
	}
	doc := corpusPath(t, "GoBD.pdf")
	_, want := readRequirements(t, runBuiltin(t, doc, "ref"))
	const stormFrom, stormTo = 11, 40
	for _, n := range []int{1, 4, 8} {
		t.Run("parallel "+strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			var root string
			model := builtinOverHTTP(&root)
			limited, stats := fakellm.FaultsOf(0.3, uint64(n), []string{"429 with Retry-After", "429"}, model)
			srv := fakellm.NewWithLatency(func(r fakellm.Request) fakellm.Reply {
				if r.N >= stormFrom && r.N <= stormTo {
					return limited(r)
				}
				return model(r)
			}, fakellm.Latency{Slots: 2 * settings.MaxParallel, Base: 20 * time.Millisecond})
			e := newJobEnvOn(t, srv)
			root = e.root
			code, _, stderr := cli(t, e.args("run", "--job", "storm", "--parallel", strconv.Itoa(n), "--request-timeout", "10s", doc)...)
			load := srv.Load()
			t.Logf("exit %d; %d requests, %d answered with 429 (%v); peak in flight %d", code, len(srv.Requests()), stats.Total(), stats.Counts, load.PeakInFlight)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, tail(stderr, 2000))
			}
			if stats.Counts["429"] == 0 || stats.Counts["429 with Retry-After"] == 0 {
				t.Errorf("the storm was not one: %v", stats.Counts)
			}
			if got := e.read("storm", "output/requirements.json"); got != string(want) {
				t.Error("the output differs from a clean run's")
			}
			if load.PeakInFlight > n {
				t.Errorf("%d requests in flight at once, with --parallel %d", load.PeakInFlight, n)
			}
			// The bound is not met by chance: the sub-agents did send
			// requests side by side.
			if n > 1 && load.PeakInFlight < 2 {
				t.Errorf("never more than %d request in flight with --parallel %d", load.PeakInFlight, n)
			}
		})
	}
}

// Ctrl-C while eight sub-agents wait for their answers stops every one of
// them at once: the process exits 130 within 2 s (the server would hold
// their answers for a minute), and the job resumes to the output of an
// uninterrupted run.
func TestInterruptDuringFanOut(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs creator as a separate process")
	}
	doc := corpusPath(t, "GoBD.pdf")
	_, want := readRequirements(t, runBuiltin(t, doc, "ref"))
	var root string
	model := builtinOverHTTP(&root)
	var slow atomic.Bool
	slow.Store(true)
	held := make(chan struct{}, 64)
	e := newJobEnv(t, func(r fakellm.Request) fakellm.Reply {
		reply := model(r)
		if r.System == templates.SubagentPrompt && slow.Load() {
			reply.Delay = time.Minute // a slow server: until the client gives up
			held <- struct{}{}
		}
		return reply
	})
	root = e.root
	cmd, stderr := startCreator(t, e.args("run", "--job", "int", "--parallel", "8", "--request-timeout", "5m", doc)...)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for range 8 {
		select {
		case <-held:
		case err := <-exited:
			t.Fatalf("the job ended before its sub-agents were held: %v\n%s", err, stderr)
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			t.Fatalf("eight sub-agents never waited for their answers\n%s", stderr)
		}
	}
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the job did not stop within 10 s of Ctrl-C\n%s", stderr)
	}
	took := time.Since(sent)
	t.Logf("stopped %v after Ctrl-C", took.Round(time.Millisecond))
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted || !strings.Contains(stderr.String(), "continue with: creator resume --job int") {
		t.Fatalf("exit %d after Ctrl-C:\n%s", code, stderr)
	}
	if took > 2*time.Second {
		t.Errorf("the sub-agents took %v to stop after Ctrl-C (at most 2 s)", took)
	}

	slow.Store(false)
	if code, _, errOut := e.resume("int", "--request-timeout", "10s"); code != 0 {
		t.Fatalf("resume: exit %d:\n%s", code, tail(errOut, 2000))
	}
	if got := e.read("int", "output/requirements.json"); got != string(want) {
		t.Error("the resumed job's output differs from an uninterrupted run's")
	}
}
