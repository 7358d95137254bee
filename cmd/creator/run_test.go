package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"creator/internal/fakellm"
	"creator/internal/jobview"
	"creator/internal/llm"
	"creator/internal/telemetry"
	"creator/internal/transcript"
	"creator/workspace"
)

const (
	testDoc   = "policy.txt"
	testQuote = "Records must be kept for ten years."
	testKey   = "sk-test-4f9d2c7e1b"
)

// jobEnv is a workspace, a document and a fake model server.
type jobEnv struct {
	t    *testing.T
	root string
	doc  string
	srv  *fakellm.Server
}

func newJobEnv(t *testing.T, h fakellm.Handler) *jobEnv {
	t.Helper()
	return newJobEnvOn(t, fakellm.New(h))
}

// newJobEnvOn is newJobEnv with a server of the test's making (one with a
// latency model, say).
func newJobEnvOn(t *testing.T, srv *fakellm.Server) *jobEnv {
	t.Helper()
	dir := t.TempDir()
	doc := filepath.Join(dir, testDoc)
	os.WriteFile(doc, []byte("Retention policy.\n\n"+testQuote+"\n"), 0o644)
	t.Cleanup(func() {
		srv.Close()
		for _, v := range srv.Violations() {
			t.Errorf("protocol violation: %s", v)
		}
	})
	return &jobEnv{t: t, root: filepath.Join(dir, "ws"), doc: doc, srv: srv}
}

func smallJob() fakellm.Handler { return fakellm.Script(fakellm.SmallJob(testDoc, testQuote)...) }

func (e *jobEnv) args(cmd string, extra ...string) []string {
	a := []string{cmd, "--workspace", e.root, "--base-url", e.srv.URL(), "--model", "fake-model", "--api-key", testKey, "--quiet"}
	return append(a, extra...)
}

func (e *jobEnv) run(extra ...string) (int, string, string) {
	return cli(e.t, e.args("run", append(extra, e.doc)...)...)
}

func (e *jobEnv) resume(id string, extra ...string) (int, string, string) {
	return cli(e.t, e.args("resume", append([]string{"--job", id}, extra...)...)...)
}

func (e *jobEnv) jobDir(id string) string { return filepath.Join(e.root, "job_"+id) }

func (e *jobEnv) read(id, rel string) string {
	data, _ := os.ReadFile(filepath.Join(e.jobDir(id), rel))
	return string(data)
}

func (e *jobEnv) info(id string) workspace.Info {
	var info workspace.Info
	json.Unmarshal([]byte(e.read(id, ".agent/job.json")), &info)
	return info
}

// assertNoKey checks that the API key was written nowhere in the job.
func (e *jobEnv) assertNoKey(id string, streams ...string) {
	e.t.Helper()
	filepath.Walk(e.jobDir(id), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			if data, _ := os.ReadFile(p); bytes.Contains(data, []byte(testKey)) {
				e.t.Errorf("the API key is in %s", p)
			}
		}
		return nil
	})
	for _, s := range streams {
		if strings.Contains(s, testKey) {
			e.t.Error("the API key is in the output")
		}
	}
}

func TestRunCompletesSmallJob(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, smallJob())
	code, stdout, stderr := e.run("--job", "small")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.TrimSpace(stdout) != filepath.Join(e.jobDir("small"), "output", "requirements.json") {
		t.Fatalf("stdout = %q", stdout)
	}
	if e.read("small", "output/requirements.json") != fakellm.SmallJobRequirements(testDoc, testQuote) {
		t.Fatal("output/requirements.json is not what the model wrote")
	}
	// What a person expects to find with cat and ls.
	for rel, want := range map[string]string{
		"instructions.md":   "# Instructions",
		"input/policy.txt":  testQuote,
		"notes/document.md": "A short policy",
		"progress.md":       "task 3 completed: Write the output",
		"plan.json":         `"status": "completed"`,
	} {
		if !strings.Contains(e.read("small", rel), want) {
			t.Errorf("%s lacks %q", rel, want)
		}
	}
	info := e.info("small")
	if info.Status != workspace.StatusCompleted || info.Usage.Steps != 5 || info.Model != "fake-model" || info.FinishedAt == nil ||
		info.Settings.BaseURL != e.srv.URL() || info.Settings.MaxSteps != 500 {
		t.Fatalf("job.json = %+v", info)
	}
	reqs := e.srv.Requests()
	if reqs[0].Authorization != "Bearer "+testKey || !strings.HasPrefix(reqs[0].Messages[0].Content, "Job small. Source documents: input/policy.txt (") {
		t.Fatalf("first request: %+v", reqs[0].Messages[0])
	}
	e.assertNoKey("small", stdout, stderr)

	// Resuming a completed job changes nothing.
	code, _, stderr = e.resume("small")
	if code != 0 || !strings.Contains(stderr, "already completed") || len(e.srv.Requests()) != 5 {
		t.Fatalf("resume of a completed job: exit %d, %s", code, stderr)
	}
}

func TestRunStops(t *testing.T) {
	t.Parallel()
	chatter := func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: "Here is my summary."} }
	bad := fakellm.Call("", "write_file", `{"path":"input/x.txt","content":"x"}`)
	failing := fakellm.Script([]llm.ToolCall{bad}, []llm.ToolCall{bad}, []llm.ToolCall{bad})
	cases := []struct {
		name    string
		handler fakellm.Handler
		extra   []string
		code    int
		stderr  string
		status  workspace.Status
	}{
		{"step limit", smallJob(), []string{"--max-steps", "2"}, exitIncomplete, "the step limit of 2 was reached; continue with: creator resume --job j --max-steps 102", workspace.StatusStopped},
		{"token limit", smallJob(), []string{"--max-tokens", "10"}, exitIncomplete, "the token budget of 10 was reached", workspace.StatusStopped},
		{"text only", chatter, nil, exitIncomplete, "answered without calling a tool 4 times in a row", workspace.StatusStopped},
		{"tool failures", failing, nil, exitIncomplete, "the tool write_file failed in 3 answers in a row", workspace.StatusFailed},
		{"server errors", func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Status: 500, Body: "down"} }, nil, exitIncomplete, "over 5m0s; last: HTTP 500: down", workspace.StatusStopped},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newJobEnv(t, c.handler)
			code, _, stderr := e.run(append([]string{"--job", "j"}, c.extra...)...)
			if code != c.code || !strings.Contains(stderr, c.stderr) || !strings.Contains(stderr, "creator resume --job j") {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr, c.code, c.stderr)
			}
			if st := e.info("j").Status; st != c.status {
				t.Fatalf("job.json status = %s, want %s", st, c.status)
			}
			if c.status == workspace.StatusFailed && !strings.Contains(e.read("j", "notes/errors.md"), "write_file failed in 3 answers in a row") {
				t.Fatalf("notes/errors.md = %q", e.read("j", "notes/errors.md"))
			}
		})
	}
}

func TestRetriedServerErrorsStillComplete(t *testing.T) {
	t.Parallel()
	script := smallJob()
	var n int
	e := newJobEnv(t, func(r fakellm.Request) fakellm.Reply {
		n++
		switch n {
		case 2:
			return fakellm.Reply{Status: 429, Header: map[string]string{"Retry-After": "0"}, Body: `{"error":{"message":"rate limited"}}`}
		case 4, 5:
			return fakellm.Reply{Status: 500, Body: `{"error":{"message":"boom"}}`}
		case 7:
			return fakellm.OpenRouterError(502, "Provider returned error")
		}
		return script(r)
	})
	code, _, stderr := e.run("--job", "r", "--quiet=false")
	if code != 0 || e.info("r").Status != workspace.StatusCompleted {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Each failure tried again was said, with the server's words, and
	// recorded in the events.
	for _, want := range []string{`(attempt 1): HTTP 429 "rate limited"`, `(attempt 2): HTTP 500 "boom"`, `HTTP 502 "Provider returned error`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if n := strings.Count(e.read("r", ".agent/events.jsonl"), `"type":"server_retry"`); n != 4 {
		t.Errorf("%d server_retry events, want 4", n)
	}
}

func TestResumeWithHigherLimit(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, smallJob())
	if code, _, stderr := e.run("--job", "lim", "--max-steps", "2"); code != exitIncomplete {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The recorded limit still applies when no flag is given.
	if code, _, stderr := e.resume("lim"); code != exitIncomplete || !strings.Contains(stderr, "step limit of 2") {
		t.Fatalf("resume without a higher limit: exit %d: %s", code, stderr)
	}
	code, _, stderr := e.resume("lim", "--max-steps", "100")
	if code != 0 || e.read("lim", "output/requirements.json") != fakellm.SmallJobRequirements(testDoc, testQuote) {
		t.Fatalf("resume with a higher limit: exit %d: %s", code, stderr)
	}
	if info := e.info("lim"); info.Usage.Steps < 5 || info.Settings.MaxSteps != 100 {
		t.Fatalf("job.json after resume: %+v", info)
	}
}

func TestModelConfiguration(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, smallJob())
	dead := fakellm.New(smallJob())
	deadURL := dead.URL()
	dead.Close()
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"run", "--workspace", e.root, "--base-url", e.srv.URL(), e.doc}, exitUsage, "give --model"},
		{[]string{"run", "--workspace", e.root, "--model", "m", "--base-url", deadURL, "--job", "dead", "--quiet", e.doc}, exitUsage, "cannot be reached"},
		{[]string{"run", "--workspace", e.root, "--model", "m", "--base-url", e.srv.URL(), filepath.Join(e.root, "missing.pdf")}, exitFailure, "does not exist"},
		{[]string{"resume", "--workspace", e.root, "--job", "nope", "--model", "m", "--base-url", e.srv.URL()}, exitFailure, "no job 'nope'"},
	}
	for _, c := range cases {
		code, _, stderr := cli(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.stderr) {
			t.Errorf("creator %s: exit %d, %q; want %d and %q", strings.Join(c.args, " "), code, stderr, c.code, c.stderr)
		}
	}
}

// startCreator runs the creator command as a separate process.
func startCreator(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(cleanEnv(), mainEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stderr
}

// A job killed with SIGKILL at any model call, or stopped with Ctrl-C,
// resumes to the same output as a job that ran through.
func TestKillOrInterruptThenResume(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs creator as a separate process")
	}
	ref := newJobEnv(t, smallJob())
	if code, _, stderr := ref.run("--job", "ref"); code != 0 {
		t.Fatalf("reference run: exit %d: %s", code, stderr)
	}
	want := ref.read("ref", "output/requirements.json")

	for _, c := range []struct {
		name   string
		sig    syscall.Signal
		atCall int
	}{
		{"SIGKILL at call 2", syscall.SIGKILL, 2},
		{"SIGKILL at call 4", syscall.SIGKILL, 4},
		{"SIGKILL at call 5", syscall.SIGKILL, 5},
		{"SIGINT at call 3", syscall.SIGINT, 3},
		{"SIGTERM at call 4", syscall.SIGTERM, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newJobEnv(t, smallJob())
			started := make(chan *os.Process, 1)
			signalled := make(chan struct{})
			e.srv.OnRequest(func(r fakellm.Request) {
				if r.N == c.atCall {
					(<-started).Signal(c.sig)
					close(signalled)
				}
			})
			cmd, stderr := startCreator(t, e.args("run", "--job", "k", e.doc)...)
			started <- cmd.Process
			err := cmd.Wait()
			// The hook signals as call atCall arrives: the job ended
			// before it unless the server has had that many calls, and
			// then the hook ran, or runs on, however slowly.
			if len(e.srv.Requests()) < c.atCall {
				t.Fatalf("the job ended before call %d: %v\n%s", c.atCall, err, stderr)
			}
			select {
			case <-signalled:
			case <-time.After(time.Minute):
				t.Fatalf("call %d arrived, and the job was not signalled within a minute", c.atCall)
			}
			code := cmd.ProcessState.ExitCode()
			switch c.sig {
			case syscall.SIGKILL:
				if code != -1 {
					t.Fatalf("exit %d after SIGKILL", code)
				}
			default:
				if code != exitInterrupted || !strings.Contains(stderr.String(), "continue with: creator resume --job k") {
					t.Fatalf("exit %d after %v: %s", code, c.sig, stderr)
				}
				if st := e.info("k").Status; st != workspace.StatusInterrupted {
					t.Fatalf("status after %v = %s", c.sig, st)
				}
			}
			// status shows an interrupted, resumable job either way.
			_, out, _ := cli(t, "status", "--job", "k", "--workspace", e.root, "--json")
			if !strings.Contains(out, `"state": "interrupted"`) || !strings.Contains(out, `"resume_hint": "creator resume --job k"`) {
				t.Fatalf("status after the stop:\n%s", out)
			}
			code, _, errOut := e.resume("k")
			if code != 0 {
				t.Fatalf("resume: exit %d: %s", code, errOut)
			}
			if got := e.read("k", "output/requirements.json"); got != want {
				t.Fatalf("output after resume differs:\n%s\nwant\n%s", got, want)
			}
			e.assertNoKey("k", stderr.String(), errOut)
		})
	}
}

func TestSecondRunOnALockedJobIsRefused(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, fakellm.Script(fakellm.SmallJob(testDoc, testQuote)...))
	held := make(chan struct{})
	release := make(chan struct{})
	e.srv.OnRequest(func(r fakellm.Request) {
		if r.N == 2 {
			close(held)
			<-release
		}
	})
	cmd, stderr := startCreator(t, e.args("run", "--job", "busy", e.doc)...)
	<-held
	code, _, errOut := e.resume("busy")
	close(release)
	cmd.Wait()
	if code != exitFailure || !strings.Contains(errOut, "job 'busy' is in use by another creator process (pid ") {
		t.Fatalf("second process: exit %d: %s", code, errOut)
	}
	if cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("first process: exit %d: %s", cmd.ProcessState.ExitCode(), stderr)
	}
}

func TestContextFlags(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, smallJob())
	// Figures that cannot work are refused before a job is made
	// (settings.TestCheck, app.TestNew): exit 2.
	if code, _, stderr := cli(t, e.args("run", "--summarize-at", "10", "--job", "bad", e.doc)...); code != exitUsage || !strings.Contains(stderr, "--summarize-at must be at least 500") {
		t.Errorf("run --summarize-at 10: exit %d, %q", code, stderr)
	}
	// The figures are recorded with the job and shown with --verbose.
	code, _, stderr := cli(t, append(e.args("run", "--job", "ctx", "--max-steps", "2", "--tokenizer", "cl100k_base", "--keep-tool-results", "3",
		"--summarize-at", "20000", "--context-window", "32000", e.doc), "--quiet=false", "--verbose")...)
	if code != exitIncomplete || !strings.Contains(stderr, "context window 32,000 tokens; clearing from 10,000, summary at 20,000, 3 tool results kept, results over 8,000 tokens saved to .agent/results/; counted with cl100k_base") {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "counted) + ") {
		t.Errorf("verbose step lines lack the counted prompt:\n%s", stderr)
	}
	s := e.info("ctx").Settings
	if s.Tokenizer != "cl100k_base" || s.KeepToolResults != 3 || s.SummarizeAt != 20000 || s.ContextWindow != 32000 {
		t.Fatalf("settings %+v", s)
	}
}

// A file changed by a person between runs is searched in its new form
// after resume, and what the job wrote is found without rescanning.
func TestSearchAfterResumeSeesEditedFiles(t *testing.T) {
	t.Parallel()
	call := func(name, args string) []llm.ToolCall { return []llm.ToolCall{{Name: name, Arguments: args}} }
	e := newJobEnv(t, fakellm.Script(
		call("write_file", `{"path":"notes/a.md","content":"The alpha duty is noted here.\n"}`),
		call("search_files", `{"query":"alpha duty"}`),
		call("search_files", `{"query":"bravo"}`),
	))
	if code, _, stderr := e.run("--job", "s", "--max-steps", "2"); code != exitIncomplete {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p := filepath.Join(e.jobDir("s"), "notes", "a.md")
	if err := os.WriteFile(p, []byte("Edited: the bravo duty.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Second)
	os.Chtimes(p, later, later)
	e.resume("s", "--max-steps", "4")

	results := map[string]string{}
	for _, r := range e.srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == llm.RoleTool {
				results[m.ToolCallID] = m.Content
			}
		}
	}
	if got := results["s2_1"]; !strings.HasPrefix(got, "notes/a.md:1: The **alpha** **duty** is noted here.") {
		t.Errorf("search after write_file: %q", got)
	}
	if got := results["s3_1"]; !strings.HasPrefix(got, "notes/a.md:1: Edited: the **bravo** duty.") {
		t.Errorf("search after the file was edited outside the job: %q", got)
	}
}

// The events of a job add up: one llm_call per step, one tool_call per
// call the model made, tokens and cost as in job.json.
func TestEventsAddUp(t *testing.T) {
	t.Parallel()
	// Cached tokens reported by the server are counted and priced apart.
	script := smallJob()
	e := newJobEnv(t, func(r fakellm.Request) fakellm.Reply {
		reply := script(r)
		reply.CachedTokens = reply.PromptTokens / 2
		return reply
	})
	code, _, stderr := e.run("--job", "ev", "--price-in", "2", "--price-out", "8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := os.Open(filepath.Join(e.jobDir("ev"), ".agent", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	events, err := telemetry.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	var prompt, completion, cached int64
	var cost float64
	for _, ev := range events {
		count[ev.Type]++
		switch ev.Type {
		case telemetry.TypeLLMCall:
			prompt += int64(ev.PromptTokens)
			completion += int64(ev.CompletionTokens)
			cached += int64(ev.CachedTokens)
			if ev.CostUSD == nil || ev.PromptTokensCounted == 0 || ev.Model != "fake-model" {
				t.Errorf("llm_call %+v", ev)
			}
			cost += *ev.CostUSD
		case telemetry.TypeToolCall:
			if ev.Status != "ok" || len(ev.Arguments) == 0 || ev.Step == 0 {
				t.Errorf("tool_call %+v", ev)
			}
		}
	}
	calls := 0
	recs, _ := transcript.Load(mustOpen(t, e.root, "ev"))
	for _, r := range recs {
		if r.Type == transcript.TypeMessage && r.Message.Role == llm.RoleAssistant {
			calls += len(r.Message.ToolCalls)
		}
	}
	info := e.info("ev")
	if count[telemetry.TypeLLMCall] != info.Usage.Steps || count[telemetry.TypeToolCall] != calls || calls == 0 {
		t.Errorf("%d llm_call and %d tool_call events for %d steps and %d tool calls", count[telemetry.TypeLLMCall], count[telemetry.TypeToolCall], info.Usage.Steps, calls)
	}
	if prompt != info.Usage.PromptTokens || completion != info.Usage.CompletionTokens || cached != info.Usage.CachedTokens || cached == 0 {
		t.Errorf("events: %d prompt, %d completion, %d cached tokens; job.json %+v", prompt, completion, cached, info.Usage)
	}
	want := (float64(prompt-cached)*2 + float64(cached)*2 + float64(completion)*8) / 1e6
	if info.Usage.CostUSD == nil || math.Abs(*info.Usage.CostUSD-cost) > 1e-9 || math.Abs(cost-want) > 1e-9 {
		t.Errorf("cost: events %v, job.json %v, want %v", cost, info.Usage.CostUSD, want)
	}
	if count[telemetry.TypeJobStarted] != 1 || count[telemetry.TypeJobFinished] != 1 || count[telemetry.TypeTaskStarted] != 3 || count[telemetry.TypeTaskCompleted] != 3 {
		t.Errorf("event counts %v", count)
	}
	last := events[len(events)-1]
	if last.Type != telemetry.TypeJobFinished || last.ExitCode == nil || *last.ExitCode != 0 || last.Status != "completed" || last.TotalPrompt != prompt {
		t.Errorf("last event %+v", last)
	}
	// status shows the same figures.
	_, out, _ := cli(t, "status", "--job", "ev", "--json", "--workspace", e.root)
	var v jobview.View
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Tokens.Prompt != prompt || v.CostUSD == nil || math.Abs(*v.CostUSD-cost) > 1e-9 || v.LastEvent != "job_finished" {
		t.Errorf("status --json: %v\n%s", err, out)
	}
}

func mustOpen(t *testing.T, root, id string) *workspace.Job {
	t.Helper()
	j, err := workspace.Open(root, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// openDir opens the job whose folder is dir (…/ws/job_<id>).
func openDir(t *testing.T, dir string) *workspace.Job {
	t.Helper()
	return mustOpen(t, filepath.Dir(dir), strings.TrimPrefix(filepath.Base(dir), "job_"))
}

func TestCostBudget(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, smallJob())
	// A budget without a price is refused: app.TestChooseModel.
	// At $1,000 per million prompt tokens the first call uses up a cent.
	code, _, stderr := e.run("--job", "cb", "--max-cost", "0.01", "--price-in", "1000", "--price-out", "1000")
	if code != exitIncomplete || !regexp.MustCompile(`the cost budget of \$0\.01 was reached \(\$(\d+\.\d\d) spent\); continue with: creator resume --job cb --max-cost \d+\.\d+`).MatchString(stderr) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	info := e.info("cb")
	if info.Usage.CostUSD == nil || *info.Usage.CostUSD < 0.01 || info.Settings.MaxCost != 0.01 || info.Settings.PriceIn != 1000 {
		t.Fatalf("job.json %+v", info)
	}
	// The recorded prices carry over to the resume; a higher budget goes on.
	if code, _, stderr := e.resume("cb", "--max-cost", "100"); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if info := e.info("cb"); info.Settings.PriceIn != 1000 || info.Usage.CostUSD == nil || *info.Usage.CostUSD <= 0.01 {
		t.Fatalf("job.json after resume %+v", info)
	}
}

// The tools found or called stay sent after a resume; --all-tools sends
// every tool, and a resume keeps it.
func TestResumeKeepsLoadedToolsAndAllTools(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, smallJob())
	// Step 4 calls chunk_document by name, which loads it.
	if code, _, stderr := e.run("--job", "d", "--max-steps", "4"); code != exitIncomplete {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := e.resume("d", "--max-steps", "100"); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	reqs := e.srv.Requests()
	if first := reqs[0].Tools; slices.Contains(first, "chunk_document") || !slices.Contains(first, "search_tools") {
		t.Fatalf("first request's tools: %v", first)
	}
	if resumed := reqs[len(reqs)-1].Tools; !slices.Contains(resumed, "chunk_document") {
		t.Fatalf("after the resume chunk_document is not sent: %v", resumed)
	}

	a := newJobEnv(t, smallJob())
	if code, _, stderr := a.run("--job", "a", "--max-steps", "2", "--all-tools"); code != exitIncomplete {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !a.info("a").Settings.AllTools {
		t.Fatalf("job.json settings: %+v", a.info("a").Settings)
	}
	if code, _, stderr := a.resume("a", "--max-steps", "100"); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	for _, r := range a.srv.Requests() {
		if !slices.Contains(r.Tools, "save_requirement") || slices.Contains(r.Tools, "search_tools") {
			t.Fatalf("request %d with --all-tools sends %v", r.N, r.Tools)
		}
	}
}
