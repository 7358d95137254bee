package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"creator/internal/fakellm"
	"creator/internal/jobview"
	"creator/internal/llm"
)

// longPolicy is a policy of several sections, long enough for several
// chunks of 200 tokens; its first section holds testQuote.
func longPolicy() string {
	var b strings.Builder
	b.WriteString("Retention policy\n\n1. Records\n\n" + testQuote + "\n\n")
	for i := 2; i <= 6; i++ {
		fmt.Fprintf(&b, "%d. Section %d\n\n", i, i)
		for j := range 6 {
			fmt.Fprintf(&b, "Paragraph %d of section %d explains the background of the rules in some detail for the reader. ", j+1, i)
		}
		fmt.Fprintf(&b, "\n\nThe archive of section %d must be checked every year.\n\n", i)
	}
	return b.String()
}

// A lazy model reads one chunk of several, saves one requirement, builds
// the output and completes its plan: the job does not complete. The
// output, the reminders, status and summary.md name the chunks not
// covered.
func TestLazyModelCannotComplete(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, fakellm.Lazy(testDoc, testQuote))
	if err := os.WriteFile(e.doc, []byte(longPolicy()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cli(t, e.args("run", "--job", "lazy", e.doc)...)
	if code != exitIncomplete || stdout != "" || !strings.Contains(stderr, "although the job is not complete") {
		t.Fatalf("exit %d, stdout %q:\n%s", code, stdout, stderr)
	}
	trace := e.read("lazy", ".agent/transcript.jsonl")
	for _, want := range []string{
		"coverage: 1 of ",               // finalize_output's result
		"the documents are not covered", // the reminder once the plan was done
		"chunk_002 (not read)",
	} {
		if !strings.Contains(trace, want) {
			t.Errorf("the transcript never says %q", want)
		}
	}
	summary := e.read("lazy", "output/summary.md")
	if !strings.Contains(summary, "## Coverage") || !strings.Contains(summary, "Not covered: chunk_002 (not read)") {
		t.Errorf("summary.md:\n%s", summary)
	}
	_, out, _ := cli(t, "status", "--job", "lazy", "--json", "--workspace", e.root)
	var v jobview.View
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Coverage == nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	c := v.Coverage
	if c.Chunks < 3 || c.Read != 1 || c.Cited != 1 || c.DeclaredEmpty != 0 || c.Uncovered != c.Chunks-1 {
		t.Errorf("coverage %+v", *c)
	}
	_, text, _ := cli(t, "status", "--job", "lazy", "--workspace", e.root)
	if !strings.Contains(text, fmt.Sprintf("Coverage       1 of %d chunks covered (1 read in full, 1 cited, 0 declared empty); %d chunks not covered: chunk_002 (not read)", c.Chunks, c.Chunks-1)) {
		t.Errorf("status:\n%s", text)
	}
	// Less coverage accepted: the same model completes the job.
	e2 := newJobEnv(t, fakellm.Lazy(testDoc, testQuote))
	if err := os.WriteFile(e2.doc, []byte(longPolicy()), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cli(t, e2.args("run", "--job", "some", "--min-coverage", "0.1", e2.doc)...); code != 0 {
		t.Fatalf("--min-coverage 0.1: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := cli(t, e2.args("run", "--job", "bad", "--min-coverage", "1.5", e2.doc)...); code != exitUsage || !strings.Contains(stderr, "--min-coverage") {
		t.Errorf("--min-coverage 1.5: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(e2.root, "job_bad")); err == nil {
		t.Error("a job was made for a usage error")
	}
}

// A document without a requirement: the model reads its one chunk in full,
// declares it empty with a reason and builds an empty output. The job
// completes, and summary.md says why there are no requirements.
func TestZeroRequirementsWithFullCoverage(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, fakellm.Script(
		[][]llm.ToolCall{
			{fakellm.Call("", "write_plan", `{"tasks":["Read the document","Write the output"]}`)},
			{
				fakellm.Call("", "start_task", `{"task_number":1}`),
				fakellm.Call("", "chunk_document", `{"path":"input/policy.txt"}`),
				fakellm.Call("", "read_file", `{"path":"chunks/chunk_001.md"}`),
			},
			{
				fakellm.Call("", "declare_chunk_empty", `{"chunk":"chunk_001","reason":"a greeting, no rule at all"}`),
				fakellm.Call("", "complete_task", `{"task_number":1}`),
				fakellm.Call("", "start_task", `{"task_number":2}`),
				fakellm.Call("", "finalize_output", `{}`),
				fakellm.Call("", "complete_task", `{"task_number":2}`),
			},
		}...))
	if err := os.WriteFile(e.doc, []byte("Welcome to the archive.\n\nWe hope you enjoy your stay.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cli(t, e.args("run", "--job", "none", e.doc)...)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	summary := e.read("none", "output/summary.md")
	for _, want := range []string{
		"0 requirements from policy.txt.",
		"No requirements: every chunk was read in full and declared to hold none",
		"1 of 1 chunks covered: 1 read in full, 0 cited by a requirement, 1 declared empty.",
		"| chunk_001 | a greeting, no rule at all |",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, summary)
		}
	}
}
