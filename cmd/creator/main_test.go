package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"creator/internal/fakellm"
	"creator/internal/iostreams"
	"creator/planner"
	"creator/templates"
	"creator/workspace"
)

var update = flag.Bool("update", false, "rewrite golden files")

// mainEnv makes the test binary act as the creator command, for tests that
// run it as a separate process.
const mainEnv = "CREATOR_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		os.Exit(mainRun())
	}
	testscript.Main(m, map[string]func(){
		"creator": func() { os.Exit(mainRun()) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script. Each script
// gets a workspace root ($WORK/ws) and a fake model server that plays a
// small job slowly, and holds the call holdmodel names until its client
// gives up, so that a script interrupts the job at that call however busy
// the machine; want.json is that job's output.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			script := fakellm.Script(fakellm.SmallJob(testDoc, testQuote)...)
			hold := new(atomic.Int64)
			srv := fakellm.New(func(r fakellm.Request) fakellm.Reply {
				reply := script(r)
				reply.Delay = 150 * time.Millisecond
				reply.Hang = int64(r.N) == hold.Load()
				return reply
			})
			env.Defer(srv.Close)
			env.Values["server"] = srv
			env.Values["hold"] = hold
			env.Setenv(workspace.RootEnv, filepath.Join(env.WorkDir, "ws"))
			env.Setenv("CREATOR_BASE_URL", srv.URL())
			env.Setenv("CREATOR_MODEL", "fake-model")
			env.Setenv("OPENAI_API_KEY", testKey)
			return os.WriteFile(filepath.Join(env.WorkDir, "want.json"), []byte(fakellm.SmallJobRequirements(testDoc, testQuote)), 0o644)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// holdmodel N: the fake model does not answer its N-th call;
			// it waits until the client gives up.
			"holdmodel": func(ts *testscript.TestScript, neg bool, args []string) {
				n, err := strconv.Atoi(args[0])
				ts.Check(err)
				ts.Value("hold").(*atomic.Int64).Store(int64(n))
			},
			// modelcalls N: wait until the fake model has been called N
			// times (for at most a minute, which only ends a script that
			// would otherwise hang).
			"modelcalls": func(ts *testscript.TestScript, neg bool, args []string) {
				n, err := strconv.Atoi(args[0])
				ts.Check(err)
				srv := ts.Value("server").(*fakellm.Server)
				for deadline := time.Now().Add(time.Minute); len(srv.Requests()) < n; time.Sleep(5 * time.Millisecond) {
					if time.Now().After(deadline) {
						ts.Fatalf("the model was called %d times, not %d", len(srv.Requests()), n)
					}
				}
			},
			// protocolok: every request the fake model got was protocol-valid.
			"protocolok": func(ts *testscript.TestScript, neg bool, args []string) {
				for _, v := range ts.Value("server").(*fakellm.Server).Violations() {
					ts.Fatalf("protocol violation: %s", v)
				}
			},
		},
	})
}

// modelEnv is what would make a test talk to a model, or change a run's
// figures, from the developer's environment.
var modelEnv = []string{"CREATOR_MODEL", "CREATOR_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "CREATOR_MAX_STEPS",
	"CREATOR_TOKENIZER", "CREATOR_PRICE_IN", "CREATOR_PRICE_OUT", "CREATOR_REQUEST_TIMEOUT", "CREATOR_RETRY_FOR", "CREATOR_SEND_REASONING", "CREATOR_PARALLEL", "CREATOR_MAX_TEXT", workspace.RootEnv}

// testFactory is what a command takes from the process, for a test: the
// streams, an environment of env alone (the developer's own is never
// seen), the clock now (nil: time.Now), retries after a millisecond and
// no pause between redraws of the progress line. Waits between attempts
// at the model server pass at once: the retry window counts them, so a
// server that keeps failing is given up on at the end of --retry-for
// without the test waiting for it.
func testFactory(streams *iostreams.IOStreams, env map[string]string, now func() time.Time) *factory {
	if now == nil {
		now = time.Now
	}
	return &factory{streams: streams, getenv: func(k string) string { return env[k] }, now: now,
		retryBaseDelay: time.Millisecond, redrawEvery: time.Nanosecond,
		retrySleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}
}

// cli runs one command line in-process, with an empty environment, and
// returns its exit code and output.
func cli(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cliWith(t, nil, nil, args...)
}

// cliWith is cli with an environment and a clock.
func cliWith(t testing.TB, env map[string]string, now func() time.Time, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = execute(context.Background(), args, testFactory(&iostreams.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, env, now))
	return code, out.String(), errOut.String()
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"version"}, exitOK, ""},
		{[]string{"--help"}, exitOK, ""},
		{[]string{"bogus"}, exitUsage, `unknown command "bogus"`},
		{[]string{"status", "--bogus"}, exitUsage, "unknown flag: --bogus"},
		{[]string{"version", "extra"}, exitUsage, "unknown command \"extra\""},
		{[]string{"run"}, exitUsage, "give the document(s) to process"},
		{[]string{"run", "--max-steps", "many", "doc.pdf"}, exitUsage, "invalid argument \"many\""},
		{[]string{"resume"}, exitUsage, "--job is required"},
		{[]string{"export", "--job", "x", "--workspace", ws}, exitFailure, "no job 'x' in " + ws},
		{[]string{"export", "--format", "docx", "--job", "x"}, exitUsage, "unknown format \"docx\""},
		{[]string{"extract", "doc.pdf"}, exitFailure, "doc.pdf does not exist"},
		{[]string{"extract"}, exitUsage, "accepts 1 arg(s)"},
		{[]string{"status", "--job", "../x"}, exitUsage, "invalid job id"},
		{[]string{"status", "--job", "missing", "--workspace", ws}, exitFailure, "no job 'missing' in " + ws},
		{[]string{"list", "--workspace", ws}, exitOK, "no jobs in " + ws},
	}
	for _, c := range cases {
		code, _, stderr := cli(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.stderr) {
			t.Errorf("creator %s: exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), code, stderr, c.code, c.stderr)
		}
	}
}

func TestInterruptedExitCode(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var errOut bytes.Buffer
	code := report(ctx, &iostreams.IOStreams{ErrOut: &errOut}, context.Canceled)
	if code != exitInterrupted || !strings.Contains(errOut.String(), "interrupted") {
		t.Fatalf("canceled run: exit %d, %q", code, errOut.String())
	}
	if code := exitCode(context.Background(), &exitError{code: exitIncomplete, err: context.DeadlineExceeded}); code != exitIncomplete {
		t.Fatalf("explicit exit code lost: %d", code)
	}
}

// fixture builds a workspace with three jobs in different states.
func fixture(t *testing.T) (root string, locked *workspace.Job) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "ws")
	doc := filepath.Join(t.TempDir(), "policy.txt")
	os.WriteFile(doc, []byte("Records must be kept for ten years.\n"), 0o644)
	base := time.Date(2026, 11, 21, 5, 0, 0, 0, time.UTC)
	mk := func(id string, offset time.Duration) *workspace.Job {
		clock := base.Add(offset)
		now := func() time.Time { clock = clock.Add(time.Second); return clock }
		j, err := workspace.Create(root, workspace.CreateOptions{ID: id, Inputs: []string{doc}, Instructions: templates.Instructions, Model: "builtin", Now: now})
		if err != nil {
			t.Fatal(err)
		}
		p := planner.New(j, now)
		p.Write([]string{"Read instructions.md", "Extract the text", "Save the requirements"})
		p.Complete(1, "read")
		p.Start(2)
		return j
	}
	done := mk("done", 0)
	p := planner.New(done, func() time.Time { return base.Add(time.Minute) })
	p.Complete(2, "")
	p.Complete(3, "")
	os.MkdirAll(filepath.Join(done.Dir, "requirements", "req_001"), 0o755)
	os.WriteFile(filepath.Join(done.Dir, "requirements", "req_001", "final.json"), []byte("{}"), 0o644)
	setInfo(t, done, workspace.StatusCompleted, 12, 5000, 700)
	// A priced model, compactions, a budget and events.
	cost := 0.0123
	done.UpdateInfo(func(i *workspace.Info) {
		i.Model = "gpt-4.1-mini"
		i.Settings = workspace.Settings{MaxSteps: 500, MaxCost: 2}
		i.Usage.CachedTokens, i.Usage.CostUSD, i.Usage.Compactions = 3000, &cost, 2
	})
	os.WriteFile(filepath.Join(done.Dir, ".agent", "events.jsonl"), []byte(
		`{"type":"llm_call","time":"2026-11-21T05:01:30Z","step":12,"model":"gpt-4.1-mini","prompt_tokens":500,"prompt_tokens_counted":498,"cached_tokens":300,"completion_tokens":70,"latency_ms":900,"finish_reason":"tool_calls","attempts":1,"tool_calls":1,"cost_usd":0.0001}`+"\n"+
			`{"type":"job_finished","time":"2026-11-21T05:02:00Z","step":12,"status":"completed","exit_code":0,"steps":12,"total_prompt_tokens":5000,"total_completion_tokens":700,"total_cached_tokens":3000,"total_cost_usd":0.0123}`+"\n"), 0o644)

	killed := mk("killed", time.Hour)
	setInfo(t, killed, workspace.StatusRunning, 4, 2000, 100) // recorded running, but no process holds it

	busy := mk("busy", 2*time.Hour)
	setInfo(t, busy, workspace.StatusRunning, 2, 900, 50)
	for _, j := range []*workspace.Job{done, killed, busy} {
		j.Close()
	}
	// Another handle holds the lock, as a running process would.
	locked, err := workspace.Open(root, "busy")
	if err != nil {
		t.Fatal(err)
	}
	if err := locked.Lock(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { locked.Close() })
	return root, locked
}

func setInfo(t *testing.T, j *workspace.Job, status workspace.Status, steps int, in, out int64) {
	t.Helper()
	if _, err := j.UpdateInfo(func(i *workspace.Info) {
		i.Status = status
		i.Usage = workspace.Usage{Steps: steps, PromptTokens: in, CompletionTokens: out}
	}); err != nil {
		t.Fatal(err)
	}
}

func TestStatusJSONGolden(t *testing.T) {
	t.Parallel()
	root, _ := fixture(t)
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"status_done.json", []string{"status", "--job", "done", "--json"}},
		{"status_killed.json", []string{"status", "--job", "killed", "--json"}},
		{"list.json", []string{"list", "--json"}},
	} {
		code, stdout, stderr := cli(t, append(c.args, "--workspace", root)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		got := normalize(stdout, root)
		path := filepath.Join("testdata", "golden", c.golden)
		if *update {
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(got), 0o644)
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run the test with -update to create it)", err)
		}
		if got != string(want) {
			t.Errorf("%v output differs from %s:\n%s", c.args, path, got)
		}
	}
}

// normalize replaces what differs between runs: the folder and the pid.
func normalize(s, root string) string {
	s = strings.ReplaceAll(s, root, "$ROOT")
	return regexp.MustCompile(`"pid": \d+`).ReplaceAllString(s, `"pid": "$$PID"`)
}

func TestStatusStates(t *testing.T) {
	t.Parallel()
	root, _ := fixture(t)
	at := func() time.Time { return time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC) }

	_, out, _ := cliWith(t, nil, at, "status", "--job", "killed", "--workspace", root)
	for _, want := range []string{
		`(?m)^State +interrupted$`,
		`(?m)^Input +policy\.txt \(36 bytes\)$`,
		`(?m)^Tokens +2,000 prompt \+ 100 completion$`,
		`(?m)^Cost +\$0\.000$`, // the built-in model
		`(?m)^Last activity +2026-11-21 \d\d:00 \(1h59m ago\)$`,
		`(?m)^Plan +1 of 3 tasks completed$`,
		`  \[x\] 1\. Read instructions\.md\n  \[>\] 2\. Extract the text\n  \[ \] 3\. Save the requirements\n`,
		`(?m)^Continue with: creator resume --job killed$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("status of an interrupted job lacks %s:\n%s", want, out)
		}
	}
	_, out, _ = cliWith(t, nil, at, "status", "--job", "busy", "--workspace", root)
	if !regexp.MustCompile(`(?m)^State +running \(pid \d+\)$`).MatchString(out) || strings.Contains(out, "Continue with") {
		t.Errorf("status of a running job:\n%s", out)
	}
	_, out, _ = cliWith(t, nil, at, "list", "--workspace", root)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !regexp.MustCompile(`^ID +STATE +INPUT +TASKS +REQS +COVERED +TOKENS +COST +UPDATED$`).MatchString(lines[0]) ||
		!regexp.MustCompile(`^done +completed +policy\.txt +3/3 +1 +- +5,700 +\$0\.012 +2026-11-21`).MatchString(lines[1]) ||
		!strings.Contains(lines[2], "killed  interrupted") || !strings.Contains(lines[3], "busy    running") {
		t.Errorf("list:\n%s", out)
	}
	// status without --job is the list.
	_, out2, _ := cliWith(t, nil, at, "status", "--workspace", root)
	if out2 != out {
		t.Errorf("status without --job differs from list:\n%s", out2)
	}
}

func TestBrokenJobIsShown(t *testing.T) {
	t.Parallel()
	root, _ := fixture(t)
	os.WriteFile(filepath.Join(root, "job_killed", ".agent", "job.json"), []byte("{"), 0o644)
	code, out, _ := cli(t, "list", "--json", "--workspace", root)
	if code != 0 || !strings.Contains(out, `"state": "broken"`) || !strings.Contains(out, "not valid JSON") {
		t.Fatalf("broken job: exit %d\n%s", code, out)
	}
}

// Every command a user can call explains itself with a description and
// examples.
func TestEveryCommandHasHelpAndExamples(t *testing.T) {
	t.Parallel()
	root := newRootCmd(testFactory(&iostreams.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, nil, nil))
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if c.Short == "" || c.Example == "" {
			t.Errorf("creator %s: Short %q, Example %q", c.Name(), c.Short, c.Example)
		}
	}
}

// -o into a device writes into it and leaves it a device (run as root, an
// atomic replace would put a regular file at /dev/null).
func TestOutputIntoADevice(t *testing.T) {
	t.Parallel()
	code, _, stderr := cli(t, "extract", sampleDoc, "-o", os.DevNull)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a device: %v, %v", os.DevNull, fi.Mode(), err)
	}
}

// An unknown command is named as such, also with flags after it.
func TestUnknownCommandWithFlags(t *testing.T) {
	t.Parallel()
	code, _, stderr := cli(t, "foo", "--job", "x")
	if code != exitUsage || !strings.Contains(stderr, `unknown command "foo"`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// envCount is a positive count from the test's environment, else def:
// how hard a stress test or a benchmark works.
func envCount(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
