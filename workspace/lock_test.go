//go:build unix

package workspace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// lockHolder starts a process that takes the job's lock with spec's
// fields after root and id (holdLock), and waits until it holds it.
func lockHolder(t *testing.T, j *Job, extra ...string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), lockHelperEnv+"="+strings.Join(append([]string{filepath.Dir(j.Dir), j.ID}, extra...), "|"))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("holder said %q, %v", line, err)
	}
	return cmd, stdin
}

// A job a review holds is refused at once — no retry — naming the review's
// pid and address; so is one a run holds.
func TestReviewHolderIsNamedAtOnce(t *testing.T) {
	t.Parallel()
	for _, review := range []string{"http://127.0.0.1:8080/", ""} {
		j := newJob(t)
		var extra []string
		if review != "" {
			extra = []string{review}
		}
		holder, _ := lockHolder(t, j, extra...)
		pauses := 0
		j.Locker.pause = func(time.Duration) { pauses++ }
		err := j.Lock()
		var locked *LockedError
		if !errors.As(err, &locked) || locked.PID != holder.Process.Pid || locked.Review != review {
			t.Fatalf("Lock = %#v; want a LockedError naming pid %d and review %q", err, holder.Process.Pid, review)
		}
		want := fmt.Sprintf("job '%s' is in use by another creator process (pid %d); wait for it to finish or stop it first", j.ID, holder.Process.Pid)
		if review != "" {
			want = fmt.Sprintf("job '%s' is open in creator review (pid %d, %s): stop it (Ctrl-C) and try again", j.ID, holder.Process.Pid, review)
		}
		if err.Error() != want {
			t.Errorf("message = %q; want %q", err, want)
		}
		if pauses != 0 {
			t.Errorf("Lock paused %d times before refusing a holder its record names", pauses)
		}
	}
}

// A brief probe of the lock (creator status) while the record of a
// crashed holder remains does not make a starting run fail: the lock is
// tried again until the probe lets go.
func TestProbeOverStaleRecordIsWaitedFor(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip("no true command")
	}
	host, _ := os.Hostname()
	path := filepath.Join(j.Dir, ".agent", "lock")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(fmt.Sprintf("pid %d\nhost %s\nsince 2026-11-25T00:00:00Z\nreview http://127.0.0.1:8080/\n", gone.Process.Pid, host)), 0o644); err != nil {
		t.Fatal(err)
	}
	probe, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	if err := syscall.Flock(int(probe.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	pauses := 0
	j.Locker.pause = func(time.Duration) {
		pauses++
		syscall.Flock(int(probe.Fd()), syscall.LOCK_UN) // the probe is done
	}
	if err := j.Lock(); err != nil {
		t.Fatalf("Lock while a probe held the lock over a crashed holder's record: %v", err)
	}
	if pauses != 1 {
		t.Errorf("Lock paused %d times; want 1", pauses)
	}
	if pid, _ := j.Holder(); pid != os.Getpid() {
		t.Errorf("Holder = %d", pid)
	}
}
