package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"creator/planner"
	"creator/workspace"
)

// jobView is what status and list show of a job. Its JSON form is the
// documented output of `status --json` and `list --json`; fields are only
// ever added, never renamed.
type jobView struct {
	ID           string      `json:"id"`
	Dir          string      `json:"dir"`
	State        string      `json:"state"`
	PID          int         `json:"pid,omitempty"`
	StopReason   string      `json:"stop_reason,omitempty"`
	Inputs       []inputView `json:"inputs"`
	Model        string      `json:"model,omitempty"`
	Plan         planView    `json:"plan"`
	Steps        int         `json:"steps"`
	Tokens       tokensView  `json:"tokens"`
	Requirements int         `json:"requirements"`
	CreatedAt    time.Time   `json:"created_at"`
	UpdatedAt    time.Time   `json:"updated_at"`
	ResumeHint   string      `json:"resume_hint,omitempty"`
	Error        string      `json:"error,omitempty"`
}

type inputView struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

type planView struct {
	Done    int            `json:"done"`
	Total   int            `json:"total"`
	Current int            `json:"current,omitempty"`
	Tasks   []planTaskView `json:"tasks,omitempty"`
}

type planTaskView struct {
	Number int    `json:"number"`
	Text   string `json:"text"`
	Status string `json:"status"`
	Notes  string `json:"notes,omitempty"`
}

type tokensView struct {
	Prompt     int64 `json:"prompt"`
	Completion int64 `json:"completion"`
}

// Job states as shown to users. "interrupted" also covers a job recorded as
// running whose process is gone (killed, crashed).
const (
	stateRunning     = "running"
	stateInterrupted = "interrupted"
)

// viewJob gathers what status and list show of one job. A job whose files
// are damaged is still shown, with the problem in Error.
func viewJob(j *workspace.Job, withTasks bool) jobView {
	v := jobView{ID: j.ID, Dir: j.Dir, Inputs: []inputView{}}
	info, err := j.Info()
	if err != nil {
		v.State, v.Error = "broken", err.Error()
		return v
	}
	v.State = string(info.Status)
	v.StopReason = info.StopReason
	v.Model = info.Model
	v.Steps = info.Usage.Steps
	v.Tokens = tokensView{Prompt: info.Usage.PromptTokens, Completion: info.Usage.CompletionTokens}
	v.CreatedAt, v.UpdatedAt = info.CreatedAt, info.UpdatedAt
	for _, in := range info.Inputs {
		v.Inputs = append(v.Inputs, inputView{Name: in.Name, Bytes: in.Bytes})
	}
	if pid, held := j.Holder(); held {
		v.State, v.PID = stateRunning, pid
	} else if info.Status == workspace.StatusRunning {
		v.State = stateInterrupted
	}

	plan, err := planner.New(j, nil).Load()
	switch {
	case err == nil:
		s := planner.SummaryOf(plan)
		v.Plan.Done, v.Plan.Total = s.Done, s.Total
		if s.Current != nil {
			v.Plan.Current = s.Current.Number
		}
		if withTasks {
			for _, t := range plan.Tasks {
				v.Plan.Tasks = append(v.Plan.Tasks, planTaskView{Number: t.Number, Text: t.Text, Status: string(t.Status), Notes: t.Notes})
			}
		}
		if plan.UpdatedAt.After(v.UpdatedAt) {
			v.UpdatedAt = plan.UpdatedAt
		}
	case !errors.Is(err, planner.ErrNoPlan):
		v.Error = err.Error()
	}
	v.Requirements = countRequirements(j.Dir)
	if resumable(v.State) {
		v.ResumeHint = "creator resume --job " + j.ID
	}
	return v
}

// resumable reports whether `creator resume` can continue a job in state.
func resumable(state string) bool {
	switch workspace.Status(state) {
	case workspace.StatusCreated, workspace.StatusInterrupted, workspace.StatusStopped, workspace.StatusFailed:
		return true
	}
	return false
}

// countRequirements counts the saved requirements (requirements/req_*/final.json).
func countRequirements(dir string) int {
	entries, err := os.ReadDir(filepath.Join(dir, "requirements"))
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "req_") {
			if _, err := os.Stat(filepath.Join(dir, "requirements", e.Name(), "final.json")); err == nil {
				n++
			}
		}
	}
	return n
}
