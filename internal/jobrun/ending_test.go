package jobrun_test

import (
	"testing"

	"creator/internal/agent"
	"creator/internal/jobrun"
	"creator/workspace"
)

// Ending says nothing of a completed job, and of the others why they
// stopped and how to go on, with the server's advice when there is some.
func TestEnding(t *testing.T) {
	t.Parallel()
	stopped := agent.Outcome{Reason: "the step limit of 10 was reached"}
	for _, c := range []struct {
		out    jobrun.Outcome
		advice string
		code   int
		msg    string
	}{
		{jobrun.Outcome{Status: workspace.StatusCompleted, Exit: jobrun.ExitOK}, "", jobrun.ExitOK, ""},
		{jobrun.Outcome{Status: workspace.StatusInterrupted, Exit: jobrun.ExitInterrupted, Resume: "creator resume --job j"}, "",
			jobrun.ExitInterrupted, "interrupted; continue with: creator resume --job j"},
		{jobrun.Outcome{Status: workspace.StatusStopped, Exit: jobrun.ExitIncomplete, Agent: stopped, Resume: "creator resume --job j --max-steps 110"}, "",
			jobrun.ExitIncomplete, "job 'j' stopped before completion: the step limit of 10 was reached; continue with: creator resume --job j --max-steps 110"},
		{jobrun.Outcome{Status: workspace.StatusStopped, Exit: jobrun.ExitIncomplete, Agent: agent.Outcome{Reason: "the server refused the key"}, Resume: "creator resume --job j"},
			"check OPENAI_API_KEY", jobrun.ExitIncomplete, "job 'j' stopped: the server refused the key: check OPENAI_API_KEY; then continue with: creator resume --job j"},
	} {
		code, msg := c.out.Ending("j", c.advice)
		if code != c.code || msg != c.msg {
			t.Errorf("%s: %d %q; want %d %q", c.out.Status, code, msg, c.code, c.msg)
		}
	}
}
