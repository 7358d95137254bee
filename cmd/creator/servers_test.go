package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"creator/internal/fakellm"
	"creator/internal/iostreams"
	"creator/internal/transcript"
	"creator/workspace"
)

// cliSleeping is cli with the waits between attempts at the model server
// handed to sleep.
func cliSleeping(t *testing.T, sleep func(ctx context.Context, d time.Duration) error, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	f := testFactory(&iostreams.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, nil, nil)
	f.retrySleep = sleep
	code = execute(context.Background(), args, f)
	return code, out.String(), errOut.String()
}

// A rejected key stops the job at once with exit 1, the server's words
// without the key it echoed, and the setting to check.
func TestWrongKeyExitsOne(t *testing.T) {
	t.Parallel()
	for _, status := range []int{401, 403} {
		e := newJobEnv(t, fakellm.KeyRejected(status))
		code, stdout, stderr := e.run("--job", "key")
		if code != exitFailure || !strings.Contains(stderr, "rejected the API key (HTTP") || !strings.Contains(stderr, "Incorrect API key provided: [redacted]") ||
			!strings.Contains(stderr, "check --api-key") || !strings.Contains(stderr, "the server at "+e.srv.URL()) ||
			!strings.Contains(stderr, "creator resume --job key") || len(e.srv.Requests()) != 1 {
			t.Fatalf("HTTP %d: exit %d after %d requests: %s", status, code, len(e.srv.Requests()), stderr)
		}
		e.assertNoKey("key", stdout, stderr)
	}
	// The key from the environment is named as such.
	e := newJobEnv(t, fakellm.KeyRejected(401))
	code, stdout, stderr := cliWith(t, map[string]string{"OPENAI_API_KEY": testKey}, nil,
		"run", "--workspace", e.root, "--base-url", e.srv.URL(), "--model", "m", "--job", "env", "--quiet", e.doc)
	if code != exitFailure || !strings.Contains(stderr, "check OPENAI_API_KEY") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	e.assertNoKey("env", stdout, stderr)
}

// A request the server refuses (LiteLLM's answer to an unknown model is a
// 400) stops the job at once with the server's words, the status, and what
// to fix before resuming.
func TestServerRefusesRequest(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, func(fakellm.Request) fakellm.Reply {
		return fakellm.Reply{Status: 400, Body: `{"error":{"message":"Invalid model name passed in model=gpt-x","type":"invalid_request_error","code":"400"}}`}
	})
	code, _, stderr := e.run("--job", "refused")
	if code != exitIncomplete || !strings.Contains(stderr, "refused the request (HTTP 400: Invalid model name passed in model=gpt-x)") ||
		!strings.Contains(stderr, "fix what its message names") || !strings.Contains(stderr, "creator resume --job refused") || len(e.srv.Requests()) != 1 {
		t.Fatalf("exit %d after %d requests: %s", code, len(e.srv.Requests()), stderr)
	}
}

// A server that answered the job and is down when it resumes is retried
// for --retry-for; then the job stops resumable (exit 3), naming the
// server and the command that continues.
func TestServerDownMidJob(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, smallJob())
	if code, _, stderr := e.run("--job", "down", "--max-steps", "2"); code != exitIncomplete {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	e.srv.Down()
	code, _, stderr := e.resume("down", "--max-steps", "100", "--retry-for", "2s")
	if code != exitIncomplete || !strings.Contains(stderr, "the model server at "+e.srv.URL()+" did not answer over 2s") ||
		!strings.Contains(stderr, "connection refused") || !strings.Contains(stderr, "give a longer --retry-for") ||
		!strings.Contains(stderr, "continue with: creator resume --job down") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if st := e.info("down").Status; st != workspace.StatusStopped {
		t.Fatalf("status %s", st)
	}
}

// A server that cannot be reached before the job's first answer is a
// setting to fix: exit 2 within seconds, naming the address and the flag,
// and the job, which did nothing, is not kept.
func TestServerDownBeforeFirstAnswer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs creator as a separate process")
	}
	dead := fakellm.New(smallJob())
	url := dead.URL()
	dead.Close()
	root := filepath.Join(t.TempDir(), "ws")
	doc := filepath.Join(t.TempDir(), testDoc)
	os.WriteFile(doc, []byte(testQuote+"\n"), 0o644)
	start := time.Now()
	code, out := runLimited(t, 5*time.Second, "run", "--workspace", root, "--base-url", url, "--model", "m", "--job", "dead", "--quiet", doc)
	took := time.Since(start)
	if code != exitUsage || !strings.Contains(out, "the model server at "+url+" cannot be reached") ||
		!strings.Contains(out, "--base-url (or CREATOR_BASE_URL)") || took > 5*time.Second {
		t.Fatalf("exit %d after %v: %s", code, took, out)
	}
	t.Logf("reported after %v", took)
	if !strings.Contains(out, "no job was created") {
		t.Errorf("the message does not say no job was made: %s", out)
	}
	if _, err := os.Stat(filepath.Join(root, "job_dead")); err == nil {
		t.Error("the job of a server never reached was kept")
	}
	code, _, stderr := cli(t, "resume", "--workspace", root, "--job", "dead", "--quiet", "--model", "m", "--base-url", url)
	if code != exitFailure || !strings.Contains(stderr, "no job 'dead'") {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
}

// A server that restarts in the middle of the job — connections refused,
// then 503 while the model loads — is waited for, and the job completes.
func TestServerRestartMidJob(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, fakellm.Restart(3, 2, smallJob()))
	var mu sync.Mutex
	sleeps := 0
	sleep := func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		sleeps++
		n := sleeps
		mu.Unlock()
		if n == 3 { // after the crash and two refused connections
			if err := e.srv.Up(); err != nil {
				t.Error(err)
			}
		}
		return ctx.Err()
	}
	code, _, stderr := cliSleeping(t, sleep, e.args("run", "--job", "restart", e.doc)...)
	if code != 0 || e.read("restart", "output/requirements.json") != fakellm.SmallJobRequirements(testDoc, testQuote) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if sleeps != 5 {
		t.Fatalf("%d waits; want 5: the crash, two refused, two loading", sleeps)
	}
}

// A context-length error that states the window: the conversation is
// shortened, the job goes on, and the window is the job's from then on,
// also after a resume.
func TestContextWindowLearned(t *testing.T) {
	t.Parallel()
	var root string
	model := builtinOverHTTP(&root)
	var mu sync.Mutex
	overflowed := false
	e := newJobEnv(t, func(r fakellm.Request) fakellm.Reply {
		mu.Lock()
		defer mu.Unlock()
		if !overflowed && r.N == 4 {
			overflowed = true
			return fakellm.ContextError("vLLM", 20000)
		}
		return model(r)
	})
	root = e.root
	if code, _, stderr := e.run("--job", "ctx", "--max-steps", "5"); code != exitIncomplete {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if w := e.info("ctx").Settings.ContextWindow; w != 20000 || !strings.Contains(e.read("ctx", "progress.md"), "context window is 20000 tokens") {
		t.Fatalf("context window %d after the overflow", w)
	}
	if code, _, stderr := e.resume("ctx", "--max-steps", "6"); code != exitIncomplete {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if w := e.info("ctx").Settings.ContextWindow; w != 20000 {
		t.Fatalf("context window %d after the resume", w)
	}
	// --context-window still decides when it is given (a job not yet
	// completed: resuming a completed one changes nothing).
	if code, _, stderr := e.resume("ctx", "--max-steps", "200", "--context-window", "64000"); code != 0 {
		t.Fatalf("resume with --context-window: exit %d: %s", code, stderr)
	}
	if w := e.info("ctx").Settings.ContextWindow; w != 64000 {
		t.Fatalf("context window %d after a resume with --context-window 64000", w)
	}
}

// withReasoning is next with reasoning text in every answer.
func withReasoning(next fakellm.Handler) fakellm.Handler {
	return func(r fakellm.Request) fakellm.Reply {
		reply := next(r)
		reply.Reasoning = "Next, the plan."
		return reply
	}
}

// A strict proxy that refuses reasoning_content: the job completes, the
// client stops sending it, and the job records that. By default it is
// never sent.
func TestStrictProxyReasoning(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, fakellm.StrictReasoning(withReasoning(smallJob())))
	code, _, stderr := e.run("--job", "strict", "--send-reasoning")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if e.info("strict").Settings.SendReasoning {
		t.Fatal("job.json still says to send reasoning")
	}
	recs, _ := transcript.Parse(strings.NewReader(e.read("strict", ".agent/transcript.jsonl")))
	noted := false
	for _, r := range recs {
		noted = noted || strings.Contains(r.Note, "stopped sending reasoning_content back to the server for the rest of the run")
	}
	if !noted {
		t.Fatal("the transcript does not say that reasoning_content was turned off")
	}
	refused := 0
	for _, r := range e.srv.Requests() {
		for _, m := range r.Messages {
			if m.Reasoning != "" {
				refused++
				break
			}
		}
	}
	if refused != 1 {
		t.Fatalf("%d requests carried reasoning, want the one refused", refused)
	}

	// Without --send-reasoning nothing is refused.
	e = newJobEnv(t, fakellm.StrictReasoning(withReasoning(smallJob())))
	if code, _, stderr := e.run("--job", "plain"); code != 0 || len(e.srv.Requests()) != 5 {
		t.Fatalf("exit %d after %d requests: %s", code, len(e.srv.Requests()), stderr)
	}
}

// DeepSeek in thinking mode wants reasoning_content back: it is turned on,
// recorded, and a resume sends it from the start.
func TestThinkingModeReasoning(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, fakellm.ThinkingMode(smallJob()))
	code, _, stderr := e.run("--job", "think", "--max-steps", "3")
	if code != exitIncomplete || !e.info("think").Settings.SendReasoning {
		t.Fatalf("exit %d, send_reasoning %v: %s", code, e.info("think").Settings.SendReasoning, stderr)
	}
	if code, _, stderr := e.resume("think", "--max-steps", "100"); code != 0 || !e.info("think").Settings.SendReasoning {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	refused := 0
	for _, r := range e.srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == "assistant" && len(m.ToolCalls) > 0 && m.Reasoning == "" {
				refused++
				break
			}
		}
	}
	if refused != 1 {
		t.Fatalf("%d requests lacked the reasoning; want only the first that had an assistant message", refused)
	}
}

// llama.cpp sending arguments as JSON objects: the job completes, and the
// transcript says how the arguments were read.
func TestObjectArgumentsJob(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, fakellm.ObjectArguments(smallJob()))
	if code, _, stderr := e.run("--job", "obj"); code != 0 || e.read("obj", "output/requirements.json") != fakellm.SmallJobRequirements(testDoc, testQuote) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(e.read("obj", ".agent/transcript.jsonl"), "the server sent the arguments of read_file as a JSON object, not a string") {
		t.Fatal("the transcript does not say how the arguments were read")
	}
}
