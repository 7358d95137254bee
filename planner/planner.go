// Package planner keeps the agent's plan in plan.json and logs completed
// tasks to progress.md. All state is on disk: every operation reads the plan,
// changes it and writes it back atomically, so a restarted process sees
// exactly what the last one left.
package planner

import (
	"creator/internal/humanize"
	"creator/workspace"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"
)

// Status of a task.
type Status string

const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Completed  Status = "completed"
)

// Task is one step of the plan. Numbers are positions, starting at 1.
type Task struct {
	Number      int        `json:"number"`
	Text        string     `json:"text"`
	Status      Status     `json:"status"`
	Notes       string     `json:"notes,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	StartedAt   *time.Time `json:"started_at,omitempty"`
	CompletedAt *time.Time `json:"completed_at,omitempty"`
}

// Plan is the content of plan.json.
type Plan struct {
	Tasks     []Task    `json:"tasks"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Files is the storage the planner needs; a workspace job provides it.
type Files interface {
	ReadInternal(rel string) ([]byte, error)
	WriteInternal(rel string, data []byte) error
	AppendInternal(rel string, data []byte) error
}

// File names inside the job folder, as the workspace lays it out.
const (
	PlanFile     = workspace.PlanFile
	ProgressFile = workspace.ProgressFile
)

// Limits on what a plan may hold, so a confused model cannot flood it.
const (
	MaxTasks    = 300
	MaxTaskText = 500
	MaxNotes    = 2000
)

// ErrNoPlan means plan.json does not exist yet.
var ErrNoPlan = errors.New("there is no plan yet; write one with write_plan")

// ErrCorruptPlan means plan.json cannot be parsed; write_plan replaces it.
var ErrCorruptPlan = errors.New("plan.json is not valid JSON")

// Planner performs plan operations on a job's files.
type Planner struct {
	files Files
	now   func() time.Time
	mu    sync.Mutex
	// OnChange, when set, is called after a task is started or completed.
	OnChange func(Event)
}

// Event reports a task change, for telemetry.
type Event struct {
	Kind string // "task_started" or "task_completed"
	Task Task
}

// New returns a planner working on files.
func New(files Files, now func() time.Time) *Planner {
	if now == nil {
		now = time.Now
	}
	return &Planner{files: files, now: now}
}

// Load reads the plan. It returns ErrNoPlan when there is none.
func (p *Planner) Load() (Plan, error) {
	var plan Plan
	data, err := p.files.ReadInternal(PlanFile)
	if errors.Is(err, fs.ErrNotExist) {
		return plan, ErrNoPlan
	}
	if err != nil {
		return plan, err
	}
	if err := json.Unmarshal(data, &plan); err != nil {
		return plan, fmt.Errorf("%w (%v); replace the plan with write_plan", ErrCorruptPlan, err)
	}
	for i := range plan.Tasks {
		plan.Tasks[i].Number = i + 1
	}
	return plan, nil
}

func (p *Planner) save(plan *Plan) error {
	plan.UpdatedAt = p.now().UTC()
	for i := range plan.Tasks {
		plan.Tasks[i].Number = i + 1
	}
	data, err := json.MarshalIndent(plan, "", "  ")
	if err != nil {
		return err
	}
	return p.files.WriteInternal(PlanFile, append(data, '\n'))
}

// Log appends a line to progress.md: "2026-11-21 05:41:07  <text>".
func (p *Planner) Log(text string) error {
	line := p.now().UTC().Format("2006-01-02 15:04:05") + "  " + humanize.OneLine(text) + "\n"
	return p.files.AppendInternal(ProgressFile, []byte(line))
}

// WriteResult says what Write did.
type WriteResult struct {
	Tasks int
	// Kept counts tasks whose text matched a task of the replaced plan and
	// which therefore kept their status and notes.
	Kept int
	// Replaced is true when a plan existed before.
	Replaced bool
}

// Write creates the plan, or replaces it. A task whose text is the same as a
// task of the old plan keeps that task's status and notes, so re-planning in
// the middle of a job does not lose finished work.
func (p *Planner) Write(texts []string) (WriteResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	clean, err := checkTexts(texts)
	if err != nil {
		return WriteResult{}, err
	}
	old, err := p.Load()
	res := WriteResult{Tasks: len(clean), Replaced: err == nil}
	if err != nil && !errors.Is(err, ErrNoPlan) && !errors.Is(err, ErrCorruptPlan) {
		return res, err
	}
	previous := map[string]Task{}
	for _, t := range old.Tasks {
		previous[t.Text] = t
	}
	now := p.now().UTC()
	plan := Plan{CreatedAt: now}
	if res.Replaced {
		plan.CreatedAt = old.CreatedAt
	}
	inProgress := false
	for _, text := range clean {
		t := Task{Text: text, Status: Pending, CreatedAt: now}
		if prev, ok := previous[text]; ok {
			t = prev
			delete(previous, text) // a repeated text inherits only once
			res.Kept++
		}
		if t.Status == InProgress {
			if inProgress {
				t.Status, t.StartedAt = Pending, nil
			}
			inProgress = true
		}
		plan.Tasks = append(plan.Tasks, t)
	}
	if err := p.save(&plan); err != nil {
		return res, err
	}
	verb := "plan written"
	if res.Replaced {
		verb = "plan replaced"
	}
	return res, p.Log(fmt.Sprintf("%s: %d tasks", verb, len(plan.Tasks)))
}

// Add inserts a task after task number after (0 = at the end) and returns
// the new task's number.
func (p *Planner) Add(text string, after int) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	clean, err := checkTexts([]string{text})
	if err != nil {
		return 0, err
	}
	plan, err := p.Load()
	if err != nil {
		return 0, err
	}
	if len(plan.Tasks) >= MaxTasks {
		return 0, fmt.Errorf("the plan already has %d tasks, the most it can hold", MaxTasks)
	}
	pos := len(plan.Tasks)
	if after != 0 {
		if after < 0 || after > len(plan.Tasks) {
			return 0, fmt.Errorf("there is no task %d; the plan has tasks 1 to %d", after, len(plan.Tasks))
		}
		pos = after
	}
	t := Task{Text: clean[0], Status: Pending, CreatedAt: p.now().UTC()}
	plan.Tasks = append(plan.Tasks[:pos], append([]Task{t}, plan.Tasks[pos:]...)...)
	if err := p.save(&plan); err != nil {
		return 0, err
	}
	return pos + 1, nil
}

// Start marks a task in progress. Only one task may be in progress.
func (p *Planner) Start(n int) (Task, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	plan, err := p.Load()
	if err != nil {
		return Task{}, err
	}
	t, err := find(&plan, n)
	if err != nil {
		return Task{}, err
	}
	switch t.Status {
	case InProgress:
		return *t, nil
	case Completed:
		return Task{}, fmt.Errorf("task %d is already completed; add a new task with add_task if more work is needed", n)
	}
	if cur := current(&plan); cur != nil {
		return Task{}, fmt.Errorf("task %d (%s) is in progress; complete it with complete_task before starting task %d", cur.Number, cur.Text, n)
	}
	now := p.now().UTC()
	t.Status, t.StartedAt = InProgress, &now
	if err := p.save(&plan); err != nil {
		return Task{}, err
	}
	p.emit("task_started", *t)
	return *t, nil
}

// CompleteResult says what Complete did.
type CompleteResult struct {
	Task Task
	// Already is true when the task was completed before; nothing changed.
	Already bool
	Done    int
	Total   int
	Next    *Task // the next pending task, if any
}

// Complete marks a task completed, with optional notes, and logs it to
// progress.md. Completing a task that is already completed changes nothing,
// so a resumed job may safely repeat the call.
func (p *Planner) Complete(n int, notes string) (CompleteResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	notes = strings.TrimSpace(notes)
	if len(notes) > MaxNotes {
		return CompleteResult{}, fmt.Errorf("notes are %d characters; keep them under %d and put details in a file under notes/", len(notes), MaxNotes)
	}
	plan, err := p.Load()
	if err != nil {
		return CompleteResult{}, err
	}
	t, err := find(&plan, n)
	if err != nil {
		return CompleteResult{}, err
	}
	res := CompleteResult{Already: t.Status == Completed}
	if !res.Already {
		now := p.now().UTC()
		if t.StartedAt == nil {
			t.StartedAt = &now
		}
		t.Status, t.CompletedAt = Completed, &now
		if notes != "" {
			t.Notes = notes
		}
		if err := p.save(&plan); err != nil {
			return res, err
		}
		line := fmt.Sprintf("task %d completed: %s", t.Number, t.Text)
		if notes != "" {
			line += " — " + notes
		}
		if err := p.Log(line); err != nil {
			return res, err
		}
		p.emit("task_completed", *t)
	}
	res.Task = *t
	res.Done, res.Total = counts(&plan)
	res.Next = nextPending(&plan)
	return res, nil
}

// Summary is the plan's progress in numbers.
type Summary struct {
	Done, Total int
	Current     *Task
	Next        *Task
}

// Summarize reports progress. A missing plan yields a zero Summary and ErrNoPlan.
func (p *Planner) Summarize() (Summary, error) {
	plan, err := p.Load()
	if err != nil {
		return Summary{}, err
	}
	return SummaryOf(plan), nil
}

// SummaryOf reports progress of a loaded plan.
func SummaryOf(plan Plan) Summary {
	var s Summary
	s.Done, s.Total = counts(&plan)
	s.Current = current(&plan)
	s.Next = nextPending(&plan)
	return s
}

// Complete reports whether the plan has tasks and all of them are completed.
func (plan Plan) Complete() bool {
	done, total := counts(&plan)
	return total > 0 && done == total
}

// Checklist renders the plan for the model and for people:
//
//	Plan: 1 of 3 tasks completed
//	[x] 1. Read instructions.md
//	[>] 2. Extract the text   ← in progress
//	[ ] 3. Chunk the document
func Checklist(plan Plan) string {
	var b strings.Builder
	done, total := counts(&plan)
	fmt.Fprintf(&b, "Plan: %d of %d tasks completed\n", done, total)
	for _, t := range plan.Tasks {
		mark := "[ ]"
		switch t.Status {
		case Completed:
			mark = "[x]"
		case InProgress:
			mark = "[>]"
		}
		fmt.Fprintf(&b, "%s %d. %s", mark, t.Number, t.Text)
		if t.Status == InProgress {
			b.WriteString("   ← in progress")
		}
		if t.Notes != "" {
			fmt.Fprintf(&b, "\n      notes: %s", humanize.OneLine(t.Notes))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func (p *Planner) emit(kind string, t Task) {
	if p.OnChange != nil {
		p.OnChange(Event{Kind: kind, Task: t})
	}
}

func checkTexts(texts []string) ([]string, error) {
	if len(texts) == 0 {
		return nil, errors.New("a plan needs at least one task")
	}
	if len(texts) > MaxTasks {
		return nil, fmt.Errorf("the plan has %d tasks; keep it to at most %d", len(texts), MaxTasks)
	}
	out := make([]string, len(texts))
	for i, t := range texts {
		t = humanize.OneLine(t)
		if t == "" {
			return nil, fmt.Errorf("task %d is empty; every task needs a text", i+1)
		}
		if len(t) > MaxTaskText {
			return nil, fmt.Errorf("task %d is %d characters long; keep task texts under %d", i+1, len(t), MaxTaskText)
		}
		out[i] = t
	}
	return out, nil
}

func find(plan *Plan, n int) (*Task, error) {
	if len(plan.Tasks) == 0 {
		return nil, errors.New("the plan has no tasks; write one with write_plan")
	}
	if n < 1 || n > len(plan.Tasks) {
		return nil, fmt.Errorf("there is no task %d; the plan has tasks 1 to %d", n, len(plan.Tasks))
	}
	return &plan.Tasks[n-1], nil
}

func current(plan *Plan) *Task {
	for i := range plan.Tasks {
		if plan.Tasks[i].Status == InProgress {
			t := plan.Tasks[i]
			return &t
		}
	}
	return nil
}

func nextPending(plan *Plan) *Task {
	for i := range plan.Tasks {
		if plan.Tasks[i].Status == Pending {
			t := plan.Tasks[i]
			return &t
		}
	}
	return nil
}

func counts(plan *Plan) (done, total int) {
	for _, t := range plan.Tasks {
		if t.Status == Completed {
			done++
		}
	}
	return done, len(plan.Tasks)
}
