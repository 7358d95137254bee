package agent

import "slices"

// strikes counts tool failures, one answer at a time. A model may send a
// dozen calls of one tool in one answer and make the same mistake in each
// before it has read a single error; counting each failure would stop the
// job on a mistake the model never had a chance to correct. So one answer
// counts at most one strike per tool: a strike when every call of the tool
// in the answer failed, none when any succeeded.
//
// "In a row" means answers of the job in a row, not the answers in which
// the tool happens to appear: a tool's strikes are cleared by any answer
// in which some call ran and worked and that tool did not fail. Counting
// only the tool's own answers let failures dozens of answers apart add up
// (an unknown tool name only ever appears in faulty answers, so its count
// never went back to zero). An answer in which nothing worked (every call
// failed) clears nothing: the model has not shown it can go on. Answers in
// which nothing ran at all (no call, or none that could run) never reach
// strikes: they neither count nor clear.
//
// The failure window looks at the job's last failWindow answers, for the
// same reason: a tool that failed in failWindowMax of them fails most of
// the time now, while failures spread over hundreds of answers say
// nothing. Such a tool is paused for pauseAnswers answers, not refused for
// the rest of the run: the tools that fail most are the ones the job
// cannot do without (save_requirement), and a permanent refusal would
// leave the model no way to finish. After the pause its window starts
// afresh. A refused call of a paused tool is the loop's doing, not the
// tool's: it counts neither as a failure nor as a success.
type strikes struct {
	consecutive map[string]int // answers in a row in which the tool only failed
	window      [][]string     // the job's last answers: the tools that only failed in each
	paused      map[string]int // answers left in a tool's pause
	last        map[string]string

	// the current answer
	failed, succeeded map[string]bool
	order             []string
}

// pauseAnswers is how many answers a tool that keeps failing is refused.
const pauseAnswers = 5

func newStrikes() *strikes {
	return &strikes{consecutive: map[string]int{}, paused: map[string]int{}, last: map[string]string{}}
}

// begin starts an answer.
func (s *strikes) begin() {
	s.failed, s.succeeded, s.order = map[string]bool{}, map[string]bool{}, nil
}

func (s *strikes) note(name string) {
	if !s.failed[name] && !s.succeeded[name] {
		s.order = append(s.order, name)
	}
}

// success records a call of name that worked.
func (s *strikes) success(name string) {
	s.note(name)
	s.succeeded[name] = true
}

// failure records a call of name that failed with msg.
func (s *strikes) failure(name, msg string) {
	s.note(name)
	s.failed[name] = true
	s.last[name] = msg
}

// isPaused reports whether calls of name are refused now.
func (s *strikes) isPaused(name string) bool { return s.paused[name] > 0 }

// warn reports whether a failure of name now should warn the model that
// one more answer in which the tool fails stops the job.
func (s *strikes) warn(name string) bool {
	return !s.succeeded[name] && s.consecutive[name] == MaxToolFailures-2
}

// end closes an answer in which calls ran and returns the tool that has
// now failed in MaxToolFailures answers in a row, if any.
func (s *strikes) end() (stopping string) {
	var failedOnly []string
	for _, name := range s.order {
		if s.failed[name] && !s.succeeded[name] {
			failedOnly = append(failedOnly, name)
		}
	}
	if len(s.succeeded) > 0 {
		// Something worked: the failures of the tools that did not fail
		// now are no longer in a row.
		for name := range s.consecutive {
			if !slices.Contains(failedOnly, name) {
				delete(s.consecutive, name)
			}
		}
	}
	for _, name := range failedOnly {
		s.consecutive[name]++
	}

	for name, left := range s.paused {
		if left <= 1 {
			delete(s.paused, name)
			s.forget(name)
		} else {
			s.paused[name] = left - 1
		}
	}
	s.window = append(s.window, failedOnly)
	if len(s.window) > failWindow {
		s.window = s.window[len(s.window)-failWindow:]
	}
	for _, name := range failedOnly {
		n := 0
		for _, failed := range s.window {
			if slices.Contains(failed, name) {
				n++
			}
		}
		if n >= failWindowMax && !s.isPaused(name) {
			s.paused[name] = pauseAnswers
		}
	}

	for _, name := range failedOnly {
		if s.consecutive[name] >= MaxToolFailures {
			return name
		}
	}
	return ""
}

// forget drops a tool's failures from the window.
func (s *strikes) forget(name string) {
	for i, failed := range s.window {
		s.window[i] = slices.DeleteFunc(slices.Clone(failed), func(n string) bool { return n == name })
	}
}
