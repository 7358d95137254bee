package batch

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"creator/internal/atomicfile"
	"creator/internal/humanize"
	"creator/internal/jobrun"
)

// Files at the workspace root that describe the last batch.
const (
	JSONFile     = "batch.json"
	MarkdownFile = "batch.md"
)

// Summary is how a batch ended: batch.json, and the object --json prints.
type Summary struct {
	Started   time.Time `json:"started"`
	Finished  time.Time `json:"finished"`
	Documents []Entry   `json:"documents"`

	// Interrupted is true when Ctrl-C stopped the batch.
	Interrupted bool `json:"-"`
	// Budget says how the batch's budget stopped it; "" when it did not.
	Budget string `json:"-"`
	// Tokens and Cost are what the batch spent.
	Tokens int64   `json:"-"`
	Cost   float64 `json:"-"`
}

// Exit is the batch's exit code: 130 after Ctrl-C; else 1 when a document
// failed for good (refused, or its job could not run); else 2 when a job
// could reach no model server (a setting to fix); else 3 when a job
// stopped or did not start, resumably; else 0.
func (s Summary) Exit() int {
	if s.Interrupted {
		return jobrun.ExitInterrupted
	}
	code := jobrun.ExitOK
	for _, e := range s.Documents {
		switch {
		case e.State == Refused || e.State == Failed:
			return jobrun.ExitFailure
		case e.exit == jobrun.ExitUsage:
			code = jobrun.ExitUsage
		case e.State != Completed && code == jobrun.ExitOK:
			code = jobrun.ExitIncomplete
		}
	}
	return code
}

// Count is the number of documents in each state.
func (s Summary) Count(st State) int {
	n := 0
	for _, e := range s.Documents {
		if e.State == st {
			n++
		}
	}
	return n
}

// Unfinished are the documents whose jobs can go on: stopped,
// interrupted, or not started.
func (s Summary) Unfinished() []Entry {
	var out []Entry
	for _, e := range s.Documents {
		if e.State == Stopped || e.State == Interrupted || e.State == Pending {
			out = append(out, e)
		}
	}
	return out
}

// Total is the one-line total: documents by state, requirements, model
// requests, what the batch spent, and how long it took.
func (s Summary) Total(priced bool) string {
	var states []string
	for _, st := range []State{Completed, Stopped, Interrupted, Pending, Refused, Failed} {
		if n := s.Count(st); n > 0 {
			states = append(states, fmt.Sprintf("%d %s", n, st))
		}
	}
	reqs, requests := 0, 0
	for _, e := range s.Documents {
		reqs += e.Requirements
		requests += e.Requests
	}
	head := humanize.Plural(len(s.Documents), "document")
	if len(states) > 0 {
		head += ": " + strings.Join(states, ", ")
	}
	return fmt.Sprintf("%s · %s · %s · %s this batch · %s", head, humanize.Plural(reqs, "requirement"),
		humanize.Plural(requests, "request"), humanize.Spent(s.Tokens, s.Cost, priced), humanize.Duration(s.Finished.Sub(s.Started)))
}

// Write writes batch.json and batch.md at the workspace root, each
// atomically. again is the command that runs the batch again.
func Write(root string, s Summary, again string, priced bool) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(root, JSONFile), append(data, '\n'), 0o644); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(root, MarkdownFile), []byte(Markdown(s, again, priced)), 0o644)
}

// Markdown is batch.md: the documents as a table, the total, and what
// continues the batch.
func Markdown(s Summary, again string, priced bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Batch\n\nStarted %s, finished %s.\n\n", s.Started.UTC().Format(time.RFC3339), s.Finished.UTC().Format(time.RFC3339))
	b.WriteString("| Document | Job | State | Requirements | Chunks | Requests | Error |\n|---|---|---|---:|---:|---:|---|\n")
	for _, e := range s.Documents {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d/%d | %d | %s |\n", cell(e.Path), cell(e.Job), e.State, e.Requirements,
			e.ChunksDone, e.ChunksTotal, e.Requests, cell(e.Error))
	}
	fmt.Fprintf(&b, "\n%s\n", s.Total(priced))
	if next := Continue(s, again); next != "" {
		fmt.Fprintf(&b, "\n%s\n", next)
	}
	return b.String()
}

// Continue says how to go on with a batch that did not finish: the
// command that runs it again, and each unfinished job's own.
func Continue(s Summary, again string) string {
	un := s.Unfinished()
	if len(un) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s not finished; continue the batch with: %s", humanize.Plural(len(un), "document"), again)
	for _, e := range un {
		fmt.Fprintf(&b, "\n- %s: %s", e.Path, e.State)
		if e.Error != "" {
			fmt.Fprintf(&b, " (%s)", humanize.Clip(humanize.OneLine(e.Error), 200))
		}
		if e.Resume != "" {
			fmt.Fprintf(&b, "; alone: %s", e.Resume)
		}
	}
	return b.String()
}

// cell is text for a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// Ending is the batch's exit code and, unless every document completed,
// what to say: what failed, and the command that goes on.
func (s Summary) Ending(again string) (code int, msg string) {
	code, next := s.Exit(), Continue(s, again)
	switch code {
	case jobrun.ExitOK:
		return code, ""
	case jobrun.ExitInterrupted:
		return code, "interrupted; " + next
	case jobrun.ExitFailure:
		n := s.Count(Refused) + s.Count(Failed)
		msg = fmt.Sprintf("%s of %d failed (see above)", humanize.Plural(n, "document"), len(s.Documents))
		if next != "" {
			msg += "; " + next
		}
		return code, msg
	}
	return code, next
}

// shellSafe is a word the shell takes as it is.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// CommandLine is words as one command line for a POSIX shell, each word
// quoted where the shell would read it otherwise: the line batch.md and
// batch.json give to run the batch again.
func CommandLine(words ...string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = w
		if !shellSafe.MatchString(w) {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}
