package agent

import (
	"strings"
	"testing"
)

// playStrikes feeds answers to strikes, each a space-separated list of
// calls "tool+" (worked), "tool-" (failed) or "tool!" (refused as paused),
// and returns the answer (from 1) at which the job stops, 0 for none, and
// the answers (from 1) in which each tool was paused at their start.
func playStrikes(answers []string) (stop int, paused map[string][]int) {
	s := newStrikes()
	paused = map[string][]int{}
	for i, a := range answers {
		s.begin()
		for _, c := range strings.Fields(a) {
			name, mark := c[:len(c)-1], c[len(c)-1]
			if s.isPaused(name) {
				paused[name] = append(paused[name], i+1)
				continue // refused: neither strike nor success
			}
			switch mark {
			case '+':
				s.success(name)
			case '-':
				s.failure(name, "bad")
			}
		}
		if s.end() != "" && stop == 0 {
			stop = i + 1
		}
	}
	return stop, paused
}

func TestStrikesCountAnswersInARow(t *testing.T) {
	t.Parallel()
	rep := func(s string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name    string
		answers []string
		stop    int
	}{
		{"three in a row stop", []string{"read_file-", "read_file-", "read_file-"}, 3},
		{"three in a row beside other tools' successes stop", []string{"read_file- write_file+", "read_file- list_files+", "read_file- write_file+"}, 3},
		{"failing in answers 1, 5, 9 with other work between", []string{
			"summon_wizard-", "read_file+", "save_requirement+", "read_file+",
			"summon_wizard- read_file+", "read_file+", "save_requirement+", "read_file+",
			"summon_wizard-", "read_file+"}, 0},
		{"an unknown tool in every fourth answer for a long job", cat(
			rep("format_disk-", 1), rep("read_file+", 3), rep("format_disk-", 1), rep("read_file+", 3),
			rep("format_disk-", 1), rep("read_file+", 3), rep("format_disk-", 1), rep("read_file+", 3)), 0},
		{"a success of the same tool in between", []string{"read_file-", "read_file-", "read_file+", "read_file-", "read_file-"}, 0},
		{"one success among many failures of the tool in an answer", []string{"read_file-", "read_file- read_file- read_file+", "read_file-", "read_file-"}, 0},
		{"answers where everything failed do not clear", []string{"read_file-", "write_file-", "read_file-", "list_files-", "read_file-"}, 5},
		{"another tool's success clears", []string{"read_file-", "read_file-", "list_files+", "read_file-", "read_file-"}, 0},
		{"a success in the third answer saves nothing", []string{"read_file-", "read_file-", "read_file- list_files+"}, 3},
		{"two tools alternate failing with nothing working", []string{"a- b-", "a-", "b-", "a-"}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if stop, _ := playStrikes(tt.answers); stop != tt.stop {
				t.Errorf("stopped at answer %d, want %d (0: never)", stop, tt.stop)
			}
		})
	}
}

func TestStrikesPauseAToolThatFailsMostOfTheTime(t *testing.T) {
	t.Parallel()
	// fail, fail, other work: never three in a row, 7 of the job's last 10
	// answers by the 10th.
	var often []string
	for range 6 {
		often = append(often, "save_requirement-", "save_requirement- read_file+", "read_file+")
	}
	stop, paused := playStrikes(often)
	if stop != 0 {
		t.Fatalf("stopped at answer %d", stop)
	}
	got := paused["save_requirement"]
	if len(got) == 0 || got[0] != 11 {
		t.Fatalf("save_requirement paused in answers %v, want from answer 11", got)
	}
	// Not for the rest of the run: after pauseAnswers answers it runs again,
	// and its window starts afresh.
	if last := got[len(got)-1]; last >= 11+pauseAnswers {
		t.Fatalf("save_requirement still paused in answer %d (paused in %v)", last, got)
	}

	// Failures spread over the job never pause a tool: 7 of its own last 10
	// answers, but never more than 3 of the job's last 10.
	var spread []string
	for i := range 10 {
		if i%3 == 2 {
			spread = append(spread, "save_requirement+")
		} else {
			spread = append(spread, "save_requirement-")
		}
		spread = append(spread, "read_file+", "read_file+", "read_file+")
	}
	if stop, paused := playStrikes(spread); stop != 0 || len(paused) > 0 {
		t.Fatalf("stop %d, paused %v", stop, paused)
	}
}
