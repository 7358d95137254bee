package main

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"creator/internal/fakellm"
	"creator/internal/llm"
)

// A server that echoes the API key in what it answers — in the model's
// text, in a file the model writes, in a header value, encoded in base64
// as a Basic credential — gets none of it written under the job: the
// transcript, the events, job.json, notes and the agent's files carry
// "[redacted]" instead.
func TestTheKeyIsNeverWrittenUnderTheJob(t *testing.T) {
	t.Parallel()
	steps := fakellm.SmallJob(testDoc, testQuote)
	encoded := base64.StdEncoding.EncodeToString([]byte("user:" + testKey))
	echo := "Your key " + testKey + " was accepted. Authorization: Bearer " + testKey + " (credential " + encoded + ")"
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
	filepath.Walk(e.jobDir("k"), func(p string, fi os.FileInfo, err error) error {
		if data, _ := os.ReadFile(p); err == nil && !fi.IsDir() && bytes.Contains(data, []byte(encoded[8:])) {
			t.Errorf("the key, base64-encoded, is in %s", p)
		}
		return nil
	})
	if !strings.Contains(e.read("k", "notes/server.md"), "Your key [redacted]") {
		t.Errorf("notes/server.md: %q", e.read("k", "notes/server.md"))
	}
	if !strings.Contains(e.read("k", ".agent/transcript.jsonl"), "[redacted]") {
		t.Error("the transcript has no redacted text: the test did not send the key")
	}
}
