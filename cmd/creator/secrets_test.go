package main

import (
	"strings"
	"testing"

	"creator/internal/fakellm"
	"creator/internal/llm"
)

// A server that echoes the API key in what it answers — in the model's
// text, in a file the model writes, in a header value — gets none of it
// written under the job: the transcript, the events, job.json, notes and
// the agent's files carry "[redacted]" instead.
func TestTheKeyIsNeverWrittenUnderTheJob(t *testing.T) {
	t.Parallel()
	steps := fakellm.SmallJob(testDoc, testQuote)
	echo := "Your key " + testKey + " was accepted. Authorization: Bearer " + testKey
	steps = append([][]llm.ToolCall{{fakellm.Call("", "write_file", `{"path": "notes/server.md", "content": "`+echo+`"}`)}}, steps...)
	script := fakellm.Script(steps...)
	e := newJobEnv(t, func(r fakellm.Request) fakellm.Reply {
		reply := script(r)
		reply.Content = echo
		reply.Reasoning = "the key is " + testKey
		return reply
	})
	code, stdout, stderr := e.run("--job", "k", "--verbose", "--quiet=false")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	e.assertNoKey("k", stdout, stderr)
	if !strings.Contains(e.read("k", "notes/server.md"), "Your key [redacted]") {
		t.Errorf("notes/server.md: %q", e.read("k", "notes/server.md"))
	}
	if !strings.Contains(e.read("k", ".agent/transcript.jsonl"), "[redacted]") {
		t.Error("the transcript has no redacted text: the test did not send the key")
	}
}
