package main

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"creator/internal/fakellm"
)

const sampleDoc = "../../testdata/sample/retention-policy.pdf"

// TestMisbehavingModels runs a real job through every misbehaviour of a
// model that the product absorbs (fakellm.Scenarios): argument and tool
// name variants, answers cut off at the output limit behind a server that
// refuses a history with broken arguments, repeated calls, and tool calls
// written as text in each form. Each job must complete with the output of
// a clean run, and every request must be valid.
func TestMisbehavingModels(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("whole jobs")
	}
	_, want := readRequirements(t, runBuiltin(t, sampleDoc, "ref"))
	for _, sc := range fakellm.Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			var root string
			e := newJobEnv(t, sc.Wrap(builtinOverHTTP(&root)))
			root = e.root
			code, _, stderr := cli(t, e.args("run", "--job", "m", "--request-timeout", "5s", sampleDoc)...)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, tail(stderr, 3000))
			}
			if got := e.read("m", "output/requirements.json"); got != string(want) {
				t.Errorf("the output differs from a clean run's:\n%s", tail(got, 1500))
			}
			trace := e.read("m", ".agent/transcript.jsonl")
			if !strings.Contains(trace, sc.Trace) {
				t.Errorf("the transcript never shows %q: the misbehaviour did not happen", sc.Trace)
			}
			if sc.Name == "argument variants" && strings.Contains(trace, `"tool_error":true`) {
				t.Error("a variant was refused")
			}
		})
	}
}

// A model stuck in a loop stops the job with exit 3; status shows why, and
// the job resumes to completion once the model works.
func TestLoopStopsTheJobResumably(t *testing.T) {
	t.Parallel()
	looping := true
	var mu sync.Mutex
	work, loop := smallJob(), fakellm.Looping(fakellm.Call("", "read_file", `{"path":"instructions.md"}`))
	e := newJobEnv(t, func(r fakellm.Request) fakellm.Reply {
		mu.Lock()
		defer mu.Unlock()
		if looping {
			return loop(r)
		}
		return work(r)
	})
	code, _, stderr := e.run("--job", "loop")
	if code != exitIncomplete || !strings.Contains(stderr, "the model repeated the same tool calls in 5 answers in a row") || !strings.Contains(stderr, "creator resume --job loop") {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	_, out, _ := cli(t, "status", "--workspace", e.root, "--job", "loop", "--json")
	var st struct {
		StopReason string `json:"stop_reason"`
	}
	json.Unmarshal([]byte(out), &st)
	if !strings.Contains(out, `"state": "stopped"`) || !strings.Contains(st.StopReason, "repeated the same tool calls") {
		t.Fatalf("status: %s", out)
	}
	mu.Lock()
	looping = false
	mu.Unlock()
	if code, _, stderr := e.resume("loop"); code != 0 {
		t.Fatalf("resume: exit %d:\n%s", code, stderr)
	}
}
