package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"creator/internal/fakellm"
	"creator/internal/job"
	"creator/internal/llm"
	"creator/internal/transcript"
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
			// The main agent's transcript and the sub-agents'.
			trace := e.read("m", ".agent/transcript.jsonl")
			subs, _ := filepath.Glob(filepath.Join(e.jobDir("m"), filepath.FromSlash(job.SubagentDir), "*.jsonl"))
			for _, p := range subs {
				data, _ := os.ReadFile(p)
				trace += string(data)
			}
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

// A model that numbers its calls afresh in every answer (Kimi K2) sends
// the same ids again and again; a result too large for the conversation is
// saved under .agent/results/ by its call's id, so each saved result must
// still be the one its message announces, never another call's.
func TestSavedResultsBelongToTheirCall(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a whole job")
	}
	// Sections of the same shape, each a chunk too large for the
	// conversation with two requirements: every answer saves two and reads
	// the next chunk, so the reads have the same id in answer after answer.
	var doc strings.Builder
	doc.WriteString("# Archive Standard\n\n")
	for n := 1; n <= 5; n++ {
		fmt.Fprintf(&doc, "## %d Records of kind %d\n\n", n, n)
		for k := 1; k <= 40; k++ {
			fmt.Fprintf(&doc, "In meeting %d the committee reviewed how records of kind %d were handled in year %d, and noted the history of the practice.\n", k, n, 1990+k)
		}
		fmt.Fprintf(&doc, "\n\nRecords of kind %d must be kept for %d years.\n\nRecords of kind %d must be stored in the archive room.\n\n", n, n+2, n)
	}
	path := filepath.Join(t.TempDir(), "archive-standard.txt")
	if err := os.WriteFile(path, []byte(doc.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var root string
	e := newJobEnv(t, fakellm.KimiIDs(builtinOverHTTP(&root)))
	root = e.root
	// The main agent reads the chunks itself (--parallel 0).
	code, _, stderr := cli(t, e.args("run", "--job", "k", "--parallel", "0", "--request-timeout", "5s", "--context-window", "2000", path)...)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, tail(stderr, 3000))
	}
	recs, err := transcript.Parse(strings.NewReader(e.read("k", ".agent/transcript.jsonl")))
	if err != nil {
		t.Fatal(err)
	}
	saved := regexp.MustCompile(`\.agent/results/[A-Za-z0-9_-]+\.txt`)
	checked := map[string]bool{}
	for _, r := range recs {
		if r.Type != transcript.TypeMessage || r.Message.Role != llm.RoleTool {
			continue
		}
		path := saved.FindString(r.Message.Content)
		if path == "" {
			continue
		}
		if checked[path] {
			t.Errorf("%s is announced by two results", path)
		}
		checked[path] = true
		head, _, _ := strings.Cut(r.Message.Content, "[… ")
		if whole := e.read("k", path); !strings.HasPrefix(whole, head) {
			t.Errorf("%s (call %s) holds another result:\n%.200s\nwhere its message shows:\n%.200s", path, r.Message.ToolCallID, whole, head)
		}
	}
	t.Logf("%d saved results checked", len(checked))
	if len(checked) < 2 {
		t.Fatalf("%d results were saved; the test needs more", len(checked))
	}
}

// A job whose transcript holds ids that earlier versions made up
// (call_<step>_<n>) resumes behind a server that refuses that form: the
// ids are sent in the current form, and the job completes with the output
// of a clean run.
func TestResumeWithIDsOfAnEarlierVersion(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("whole jobs")
	}
	_, want := readRequirements(t, runBuiltin(t, sampleDoc, "ref"))
	var root string
	model := builtinOverHTTP(&root)
	e := newJobEnv(t, fakellm.MistralIDs(func(r fakellm.Request) fakellm.Reply {
		reply := model(r)
		for i := range reply.ToolCalls {
			reply.ToolCalls[i].ID = "" // creator makes every id
		}
		return reply
	}))
	root = e.root
	code, _, stderr := cli(t, e.args("run", "--job", "old", "--request-timeout", "5s", "--max-steps", "8", sampleDoc)...)
	if code != exitIncomplete {
		t.Fatalf("exit %d, want 3 at the step limit:\n%s", code, tail(stderr, 2000))
	}
	// The transcript as an earlier version wrote it: call_<step>_<n>.
	made := regexp.MustCompile(`"(id|tool_call_id)":"c([0-9a-z]{5})([0-9a-z]{3})"`)
	path := filepath.Join(e.jobDir("old"), ".agent", "transcript.jsonl")
	data, _ := os.ReadFile(path)
	old := made.ReplaceAllStringFunc(string(data), func(s string) string {
		g := made.FindStringSubmatch(s)
		step, _ := strconv.ParseInt(g[2], 36, 64)
		n, _ := strconv.ParseInt(g[3], 36, 64)
		return fmt.Sprintf(`"%s":"call_%d_%d"`, g[1], step, n)
	})
	if !strings.Contains(old, `"id":"call_2_1"`) {
		t.Fatalf("the transcript has no made-up ids to rewrite:\n%s", tail(old, 1500))
	}
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cli(t, e.args("resume", "--job", "old", "--max-steps", "500")...); code != 0 {
		t.Fatalf("resume: exit %d:\n%s", code, tail(stderr, 2000))
	}
	if got := e.read("old", "output/requirements.json"); got != string(want) {
		t.Errorf("the output differs from a clean run's:\n%s", tail(got, 1500))
	}
}
