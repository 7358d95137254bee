package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"creator/internal/builtin"
	"creator/internal/telemetry"
	"creator/planner"
	"creator/workspace"
)

// jobView is what status and list show of a job. Its JSON form is the
// documented output of `status --json` and `list --json`; fields are only
// ever added, never renamed.
type jobView struct {
	ID         string      `json:"id"`
	Dir        string      `json:"dir"`
	State      string      `json:"state"`
	PID        int         `json:"pid,omitempty"`
	StopReason string      `json:"stop_reason,omitempty"`
	Inputs     []inputView `json:"inputs"`
	Model      string      `json:"model,omitempty"`
	Plan       planView    `json:"plan"`
	Steps      int         `json:"steps"`
	Tokens     tokensView  `json:"tokens"`
	// CostUSD is what the job cost so far; absent when the price of its
	// model is unknown.
	CostUSD      *float64   `json:"cost_usd,omitempty"`
	Compactions  int        `json:"compactions"`
	Limits       limitsView `json:"limits"`
	Requirements int        `json:"requirements"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
	// LastActivity is the time of the job's last event (a model or tool
	// call, a task change), or UpdatedAt when there is none; LastEvent
	// says what it was: "tool_call save_requirement".
	LastActivity time.Time `json:"last_activity"`
	LastEvent    string    `json:"last_event,omitempty"`
	ResumeHint   string    `json:"resume_hint,omitempty"`
	Error        string    `json:"error,omitempty"`
}

type limitsView struct {
	MaxSteps  int     `json:"max_steps,omitempty"`
	MaxTokens int64   `json:"max_tokens,omitempty"`
	MaxCost   float64 `json:"max_cost,omitempty"`
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
	// Cached counts prompt tokens the server served from its cache.
	Cached int64 `json:"cached,omitempty"`
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
	v.Tokens = tokensView{Prompt: info.Usage.PromptTokens, Completion: info.Usage.CompletionTokens, Cached: info.Usage.CachedTokens}
	v.CostUSD, v.Compactions = info.Usage.CostUSD, info.Usage.Compactions
	if v.CostUSD == nil && info.Model == builtin.Name {
		free := 0.0 // the built-in model runs here, at no charge
		v.CostUSD = &free
	}
	v.Limits = limitsView{MaxSteps: info.Settings.MaxSteps, MaxTokens: info.Settings.MaxTokens, MaxCost: info.Settings.MaxCost}
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
	v.LastActivity = v.UpdatedAt
	if e, ok := lastEvent(j.Dir); ok && e.Time.After(v.LastActivity) {
		v.LastActivity = e.Time
		v.LastEvent = strings.TrimSpace(e.Type + " " + e.Tool)
	}
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

// lastEvent reads the last complete line of the job's events.
func lastEvent(dir string) (telemetry.Event, bool) {
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(telemetry.File)))
	if err != nil {
		return telemetry.Event{}, false
	}
	defer f.Close()
	const tail = 64 << 10
	fi, err := f.Stat()
	if err != nil {
		return telemetry.Event{}, false
	}
	off := max(0, fi.Size()-tail)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return telemetry.Event{}, false
	}
	lines := strings.Split(strings.TrimRight(string(buf), "\n"), "\n")
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-2; i-- {
		var e telemetry.Event
		if json.Unmarshal([]byte(lines[i]), &e) == nil && !e.Time.IsZero() {
			return e, true
		}
	}
	return telemetry.Event{}, false
}
