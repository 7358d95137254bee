// Package donecheck decides from the job's files whether a job is done:
// every task of plan.json completed, output/requirements.json present and
// valid, and the documents covered. What the model says is never taken
// into account.
package donecheck

import (
	"errors"
	"fmt"
	"io/fs"

	"creator/internal/agent"
	"creator/internal/coverage"
	"creator/internal/output"
	"creator/planner"
)

// Checker implements agent.Completion. The plan, the output and the
// coverage are the job's (internal/job): its planner's Load, its
// ReadOutput and its Coverage.
type Checker struct {
	// Plan loads the job's plan.
	Plan func() (planner.Plan, error)
	// Output reads output/requirements.json (fs.ErrNotExist when there is
	// none yet).
	Output func() ([]byte, error)
	// Coverage measures the coverage of the documents; nil does not check
	// it. It is measured once the plan and the output are done, since
	// that is when it decides; MinCoverage is the share of chunks that
	// must be covered.
	Coverage    func() (coverage.Report, error)
	MinCoverage float64
}

// Check reports whether the job is complete and, if not, what is missing.
func (c Checker) Check() (agent.CompletionStatus, error) {
	var st agent.CompletionStatus
	plan, err := c.Plan()
	switch {
	case errors.Is(err, planner.ErrNoPlan):
		st.Missing = append(st.Missing, "there is no plan yet: read instructions.md, then write a plan with write_plan")
	case errors.Is(err, planner.ErrCorruptPlan):
		st.Missing = append(st.Missing, err.Error())
	case err != nil:
		return st, err
	default:
		for _, t := range plan.Tasks {
			if t.Status != planner.Completed {
				st.Missing = append(st.Missing, fmt.Sprintf("task %d (%s): %s", t.Number, t.Status, t.Text))
			}
		}
	}
	data, err := c.Output()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		st.Missing = append(st.Missing, output.RequirementsFile+" does not exist yet")
	case err != nil:
		return st, err
	default:
		if verr := output.Validate(data); verr != nil {
			st.Missing = append(st.Missing, "fix the output: "+verr.Error())
		}
	}
	if len(st.Missing) == 0 && c.Coverage != nil {
		r, err := c.Coverage()
		if err != nil {
			return st, err
		}
		if !r.Meets(c.MinCoverage) {
			st.Missing = append(st.Missing, fmt.Sprintf("the documents are not covered (%s; %s): %s. Read what is missing, save the requirements of each chunk or declare it empty with declare_chunk_empty, then call finalize_output again",
				r, coverage.Rule, r.Missing(coverage.MaxGapsNamed)))
		}
	}
	st.Done = len(st.Missing) == 0
	return st, nil
}
