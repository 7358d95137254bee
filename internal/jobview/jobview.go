// Package jobview gathers what `creator status` and `creator list` show of a
// job from its View (internal/job): it reads no file of the job itself.
package jobview

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"creator/internal/coverage"
	"creator/internal/job"
	"creator/internal/offlinemodel"
	"creator/internal/reqstore"
	"creator/internal/requirement"
	"creator/internal/telemetry"
	"creator/planner"
	"creator/workspace"
)

// View is what status and list show of a job. Its JSON form is the
// documented output of `status --json` and `list --json`; fields are only
// ever added, never renamed.
type View struct {
	ID    string `json:"id"`
	Dir   string `json:"dir"`
	State string `json:"state"`
	PID   int    `json:"pid,omitempty"`
	// ReviewAddress is where the review server that holds the job serves
	// its page, while `creator review` runs on it.
	ReviewAddress string  `json:"review_address,omitempty"`
	StopReason    string  `json:"stop_reason,omitempty"`
	Inputs        []Input `json:"inputs"`
	Model         string  `json:"model,omitempty"`
	Plan          Plan    `json:"plan"`
	Steps         int     `json:"steps"`
	Tokens        Tokens  `json:"tokens"`
	// CostUSD is what the job cost so far; absent when the price of its
	// model is unknown.
	CostUSD      *float64 `json:"cost_usd,omitempty"`
	Compactions  int      `json:"compactions"`
	Limits       Limits   `json:"limits"`
	Requirements int      `json:"requirements"`
	// Review counts the decisions of `creator review` on the requirements
	// under review (those of the output, or those saved before it
	// exists); absent when there are none.
	Review *requirement.Tally `json:"review,omitempty"`
	// Coverage is how far the documents are covered.
	Coverage *coverage.Report `json:"coverage,omitempty"`
	// Chunks counts the chunks: all of them, those covered, those a
	// sub-agent works on now and those whose sub-agent failed and that are
	// not covered since; absent before the documents are chunked.
	Chunks    *Chunks   `json:"chunks,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// LastActivity is the time of the job's last event (a model or tool
	// call, a task change), or UpdatedAt when there is none; LastEvent
	// says what it was: "tool_call save_requirement".
	LastActivity time.Time `json:"last_activity"`
	LastEvent    string    `json:"last_event,omitempty"`
	// Waiting says why a running job waits: the model server's last
	// failed answer, tried again, and when the next attempt goes.
	Waiting    string `json:"waiting,omitempty"`
	ResumeHint string `json:"resume_hint,omitempty"`
	// Published is the job's last publication to a database.
	Published *Publication `json:"published,omitempty"`
	Error     string       `json:"error,omitempty"`
}

// reviewOf counts the decisions on a job's requirements under review;
// saved and listErr are what Saved gave.
func reviewOf(j *job.View, saved []reqstore.Entry, listErr error) *requirement.Tally {
	recs, _, _, err := j.Reviewable(saved, listErr)
	if err != nil || len(recs) == 0 {
		return nil
	}
	t := requirement.TallyOf(recs)
	return &t
}

// Publication is a publish of the job's requirements to a database.
type Publication struct {
	Time time.Time `json:"time"`
	telemetry.Publication
}

// Chunks are the chunk counts of status.
type Chunks struct {
	Total   int `json:"total"`
	Done    int `json:"done"`
	Running int `json:"running"`
	Failed  int `json:"failed"`
}

type Limits struct {
	MaxSteps  int     `json:"max_steps,omitempty"`
	MaxTokens int64   `json:"max_tokens,omitempty"`
	MaxCost   float64 `json:"max_cost,omitempty"`
}

type Input struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

type Plan struct {
	Done    int    `json:"done"`
	Total   int    `json:"total"`
	Current int    `json:"current,omitempty"`
	Tasks   []Task `json:"tasks,omitempty"`
}

type Task struct {
	Number int    `json:"number"`
	Text   string `json:"text"`
	Status string `json:"status"`
	Notes  string `json:"notes,omitempty"`
}

type Tokens struct {
	Prompt     int64 `json:"prompt"`
	Completion int64 `json:"completion"`
	// Cached counts prompt tokens the server served from its cache.
	Cached int64 `json:"cached,omitempty"`
}

// Job states as shown to users. "interrupted" also covers a job recorded as
// running whose process is gone (killed, crashed).
const (
	StateRunning     = "running"
	StateInterrupted = "interrupted"
)

// Of gathers what status and list show of one job. A job whose files
// are damaged is still shown, with the problem in Error.
func Of(j *job.View, withTasks bool) View {
	v := View{ID: j.ID, Dir: j.Dir, Inputs: []Input{}}
	info, err := j.Info()
	if err != nil {
		v.State, v.Error = "broken", err.Error()
		return v
	}
	v.State = string(info.Status)
	v.StopReason = info.StopReason
	v.Model = info.Model
	v.Steps = info.Usage.Steps
	v.Tokens = Tokens{Prompt: info.Usage.PromptTokens, Completion: info.Usage.CompletionTokens, Cached: info.Usage.CachedTokens}
	v.CostUSD, v.Compactions = info.Usage.CostUSD, info.Usage.Compactions
	if v.CostUSD == nil && info.Model == offlinemodel.Name {
		free := 0.0 // the built-in model runs here, at no charge
		v.CostUSD = &free
	}
	v.Limits = Limits{MaxSteps: info.Settings.MaxSteps, MaxTokens: info.Settings.MaxTokens, MaxCost: info.Settings.MaxCost}
	v.CreatedAt, v.UpdatedAt = info.CreatedAt, info.UpdatedAt
	for _, in := range info.Inputs {
		v.Inputs = append(v.Inputs, Input{Name: in.Name, Bytes: in.Bytes})
	}
	if pid, review, held := j.HeldBy(); held {
		v.State, v.PID, v.ReviewAddress = StateRunning, pid, review
	} else if info.Status == workspace.StatusRunning {
		v.State = StateInterrupted
	}

	plan, err := j.Plan()
	switch {
	case err == nil:
		s := planner.SummaryOf(plan)
		v.Plan.Done, v.Plan.Total = s.Done, s.Total
		if s.Current != nil {
			v.Plan.Current = s.Current.Number
		}
		if withTasks {
			for _, t := range plan.Tasks {
				v.Plan.Tasks = append(v.Plan.Tasks, Task{Number: t.Number, Text: t.Text, Status: string(t.Status), Notes: t.Notes})
			}
		}
		if plan.UpdatedAt.After(v.UpdatedAt) {
			v.UpdatedAt = plan.UpdatedAt
		}
	case !errors.Is(err, planner.ErrNoPlan):
		v.Error = err.Error()
	}
	// Every final.json is read once, for the count and the citations.
	saved, err := j.Saved()
	v.Requirements = j.CountSavedOf(saved, err)
	v.Review = reviewOf(j, saved, err)
	if err == nil {
		if r, err := j.CoverageOf(saved); err == nil {
			v.Coverage = &r
			v.Chunks = chunksOf(j, r, v.State == StateRunning)
		}
	}
	v.LastActivity = v.UpdatedAt
	if e, ok := j.LastEvent(); ok && e.Time.After(v.LastActivity) {
		v.LastActivity = e.Time
		v.LastEvent = strings.TrimSpace(e.Type + " " + e.Tool)
		if e.Type == telemetry.TypeServerRetry && v.State == StateRunning {
			v.Waiting = waitingFor(e)
		}
	}
	if e, ok := j.LastPublication(); ok {
		v.Published = &Publication{Time: e.Time, Publication: e.Publication}
	}
	if Resumable(v.State) {
		v.ResumeHint = "creator resume --job " + j.ID
	}
	return v
}

// chunksOf counts the chunks of a coverage report and the sub-agents'
// outcomes; running counts only while the job's process runs (a kill
// leaves outcomes that say running).
func chunksOf(j *job.View, r coverage.Report, running bool) *Chunks {
	if r.Chunks == 0 {
		return nil
	}
	c := &Chunks{Total: r.Chunks, Done: r.Covered()}
	uncovered := map[string]bool{}
	for _, g := range r.Gaps {
		uncovered[g.ID] = true
	}
	outcomes, _ := j.ChunkOutcomes()
	for _, o := range outcomes {
		switch {
		case o.State == job.ChunkRunning && running:
			c.Running++
		case o.State == job.ChunkFailed && uncovered[o.Chunk]:
			c.Failed++
		}
	}
	return c
}

// Resumable reports whether `creator resume` can continue a job in state.
func Resumable(state string) bool {
	switch workspace.Status(state) {
	case workspace.StatusCreated, workspace.StatusInterrupted, workspace.StatusStopped, workspace.StatusFailed:
		return true
	}
	return false
}

// waitingFor says what a server_retry event tells: the server's failure
// and when the next attempt goes.
func waitingFor(e telemetry.Event) string {
	what := "no answer"
	if e.HTTPStatus != 0 {
		what = fmt.Sprintf("HTTP %d", e.HTTPStatus)
	}
	if e.Message != "" {
		what += " " + strconv.Quote(e.Message)
	}
	return fmt.Sprintf("the model server failed (attempt %d): %s; trying again at %s", e.Attempts, what, e.Next.UTC().Format(time.RFC3339))
}
