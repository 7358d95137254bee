package agent

// strikes counts tool failures per tool, one answer at a time. A model may
// send a dozen calls of one tool in one answer and make the same mistake in
// each before it has read a single error; counting each failure would stop
// the job on a mistake the model never had a chance to correct. So one
// answer counts at most one strike per tool: a strike when every call of
// the tool in the answer failed, none when any succeeded.
type strikes struct {
	consecutive map[string]int    // answers in a row in which the tool only failed
	recent      map[string][]bool // the tool's last answers: failed or not
	disabled    map[string]bool
	last        map[string]string // the tool's last error

	// the current answer
	failed, succeeded map[string]bool
	order             []string
}

func newStrikes() *strikes {
	return &strikes{consecutive: map[string]int{}, recent: map[string][]bool{}, disabled: map[string]bool{}, last: map[string]string{}}
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

// warn reports whether a failure of name now should warn the model that
// one more answer in which the tool fails stops the job.
func (s *strikes) warn(name string) bool {
	return !s.succeeded[name] && s.consecutive[name] == MaxToolFailures-2
}

// end closes the answer and returns the tool that has now failed in
// MaxToolFailures answers in a row, if any.
func (s *strikes) end() (stopping string) {
	for _, name := range s.order {
		failed := s.failed[name] && !s.succeeded[name]
		if failed {
			s.consecutive[name]++
		} else {
			s.consecutive[name] = 0
		}
		r := append(s.recent[name], failed)
		if len(r) > failWindow {
			r = r[len(r)-failWindow:]
		}
		s.recent[name] = r
		n := 0
		for _, x := range r {
			if x {
				n++
			}
		}
		if n >= failWindowMax {
			s.disabled[name] = true
		}
		if stopping == "" && s.consecutive[name] >= MaxToolFailures {
			stopping = name
		}
	}
	return stopping
}
