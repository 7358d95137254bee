package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"creator/internal/humanize"
	"creator/internal/llm"
	"creator/planner"
)

// JobStats are the figures of the running job that get_progress reports.
type JobStats struct {
	Steps            int
	PromptTokens     int64
	CompletionTokens int64
	CostUSD          *float64  // nil when the model's price is unknown
	Started          time.Time // when the job was created
	// The job's budgets; zero means none.
	MaxSteps  int
	MaxTokens int64
	MaxCost   float64
}

// PlanningTools returns the tools that keep the plan. stats supplies the
// job's figures for get_progress; it may be nil.
func PlanningTools(p *planner.Planner, stats func() JobStats, now func() time.Time) []Tool {
	if now == nil {
		now = time.Now
	}
	pt := &planTools{p: p, stats: stats, now: now}
	return []Tool{
		Func("write_plan", "Create the plan, or replace it, as an ordered list of tasks. A task whose text is unchanged keeps its status, so finished work is not lost when you re-plan.", pt.writePlan),
		FuncResult("read_plan", "Show the plan as a checklist with each task's status and the task in progress.", pt.readPlan),
		Func("add_task", "Add a task to the plan, after the given task number or at the end. Later tasks move down by one.", pt.addTask),
		Func("start_task", "Mark a task as in progress. Only one task can be in progress at a time.", pt.startTask),
		Func("complete_task", "Mark a task as completed, with optional short notes on what was done; this is logged in progress.md.", pt.completeTask),
		Func("get_progress", "Report progress: tasks completed of the total, the current task, elapsed time, steps and tokens used.", pt.getProgress),
	}
}

type planTools struct {
	p     *planner.Planner
	stats func() JobStats
	now   func() time.Time
}

type writePlanArgs struct {
	Tasks []string `json:"tasks" jsonschema:"the tasks in order, each one short imperative sentence"`
}

func (pt *planTools) writePlan(ctx context.Context, a writePlanArgs) (string, error) {
	res, err := pt.p.Write(a.Tasks)
	if err != nil {
		return "", err
	}
	if !res.Replaced {
		return fmt.Sprintf("plan written with %s; begin with start_task(1)", humanize.Plural(res.Tasks, "task")), nil
	}
	s, err := pt.p.Summarize()
	if err != nil {
		return "", err
	}
	msg := fmt.Sprintf("plan replaced: %s, %d of them completed", humanize.Plural(res.Tasks, "task"), s.Done)
	if res.Kept > 0 {
		msg += fmt.Sprintf(" (%s kept their status because their text is unchanged)", humanize.Plural(res.Kept, "task"))
	}
	return msg + "; " + nextStep(s), nil
}

type noArgs struct{}

func (pt *planTools) readPlan(ctx context.Context, _ noArgs) (llm.ToolResult, error) {
	plan, err := pt.p.Load()
	if errors.Is(err, planner.ErrNoPlan) {
		return llm.ToolResult{Data: PlanData{NoPlan: true}}, err
	}
	if err != nil {
		return llm.ToolResult{}, err
	}
	return llm.ToolResult{Text: planner.Checklist(plan) + capitalize(nextStep(planner.SummaryOf(plan))), Data: PlanData{Tasks: plan.Tasks}}, nil
}

type addTaskArgs struct {
	Task      string `json:"task" jsonschema:"the new task, one short imperative sentence"`
	AfterTask int    `json:"after_task,omitempty" jsonschema:"number of the task to insert it after; default: at the end"`
}

func (pt *planTools) addTask(ctx context.Context, a addTaskArgs) (string, error) {
	n, err := pt.p.Add(a.Task, a.AfterTask)
	if err != nil {
		return "", err
	}
	s, err := pt.p.Summarize()
	if err != nil {
		return "", err
	}
	msg := fmt.Sprintf("added task %d", n)
	if n < s.Total {
		msg += fmt.Sprintf("; tasks after it moved down by one (now %d to %d)", n+1, s.Total)
	}
	return msg, nil
}

type taskArgs struct {
	TaskNumber int `json:"task_number" jsonschema:"number of the task, as shown by read_plan"`
}

func (pt *planTools) startTask(ctx context.Context, a taskArgs) (string, error) {
	t, err := pt.p.Start(a.TaskNumber)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("task %d in progress: %s", t.Number, t.Text), nil
}

type completeTaskArgs struct {
	TaskNumber int    `json:"task_number" jsonschema:"number of the task, as shown by read_plan"`
	Notes      string `json:"notes,omitempty" jsonschema:"what was done and where the results are, in a sentence or two"`
}

func (pt *planTools) completeTask(ctx context.Context, a completeTaskArgs) (string, error) {
	res, err := pt.p.Complete(a.TaskNumber, a.Notes)
	if err != nil {
		return "", err
	}
	if res.Already {
		return fmt.Sprintf("task %d was already completed; nothing changed (%d of %d done)", res.Task.Number, res.Done, res.Total), nil
	}
	msg := fmt.Sprintf("task %d completed (%d of %d done)", res.Task.Number, res.Done, res.Total)
	if res.Done == res.Total {
		return msg + "; every task of the plan is completed", nil
	}
	if res.Next != nil {
		msg += fmt.Sprintf("; next pending: task %d, %s", res.Next.Number, res.Next.Text)
	}
	return msg, nil
}

func (pt *planTools) getProgress(ctx context.Context, _ noArgs) (string, error) {
	var b strings.Builder
	s, err := pt.p.Summarize()
	switch {
	case errors.Is(err, planner.ErrNoPlan):
		b.WriteString("No plan yet; write one with write_plan.\n")
	case err != nil:
		return "", err
	default:
		fmt.Fprintf(&b, "%d of %d tasks completed.\n", s.Done, s.Total)
		if s.Current != nil {
			fmt.Fprintf(&b, "In progress: task %d, %s", s.Current.Number, s.Current.Text)
			if s.Current.StartedAt != nil {
				fmt.Fprintf(&b, " (for %s)", humanize.Duration(pt.now().Sub(*s.Current.StartedAt)))
			}
			b.WriteString(".\n")
		}
		if s.Next != nil {
			fmt.Fprintf(&b, "Next pending: task %d, %s.\n", s.Next.Number, s.Next.Text)
		}
	}
	if pt.stats != nil {
		st := pt.stats()
		if !st.Started.IsZero() {
			fmt.Fprintf(&b, "Elapsed: %s. ", humanize.Duration(pt.now().Sub(st.Started)))
		}
		fmt.Fprintf(&b, "Steps: %s", humanize.Int(st.Steps))
		if st.MaxSteps > 0 {
			fmt.Fprintf(&b, " of at most %s", humanize.Int(st.MaxSteps))
		}
		fmt.Fprintf(&b, ". Tokens: %s prompt, %s completion", humanize.Int(st.PromptTokens), humanize.Int(st.CompletionTokens))
		if st.MaxTokens > 0 {
			fmt.Fprintf(&b, " (budget %s in all)", humanize.Int(st.MaxTokens))
		}
		b.WriteString(".")
		if st.CostUSD != nil {
			fmt.Fprintf(&b, " Cost: $%.2f", *st.CostUSD)
			if st.MaxCost > 0 {
				fmt.Fprintf(&b, " of a $%.2f budget", st.MaxCost)
			}
			b.WriteString(".")
		}
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// nextStep says what to do next in a plan.
func nextStep(s planner.Summary) string {
	switch {
	case s.Current != nil:
		return fmt.Sprintf("task %d is in progress", s.Current.Number)
	case s.Next != nil:
		return fmt.Sprintf("no task in progress; next is task %d — start it with start_task(%d)", s.Next.Number, s.Next.Number)
	case s.Total > 0 && s.Done == s.Total:
		return "every task is completed"
	}
	return "the plan has no tasks"
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
