//go:build unix

package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// LockedError says that another process works on the job.
type LockedError struct {
	ID  string
	PID int // 0 when unknown
}

func (e *LockedError) Error() string {
	who := "another creator process"
	if e.PID > 0 {
		who = fmt.Sprintf("another creator process (pid %d)", e.PID)
	}
	return fmt.Sprintf("job '%s' is in use by %s; wait for it to finish or stop it first", e.ID, who)
}

// lockWait is how long Lock retries before giving up, so that a brief
// probe by `creator status` does not make a starting run fail.
const lockWait = 300 * time.Millisecond

// Locker is the job's lock: one process at a time works on a job.
type Locker struct {
	id   string
	dir  string
	root *os.Root
	// onLock runs once the lock is taken.
	onLock func()

	mu sync.Mutex
	fd *os.File
}

// Lock takes the job's lock (.agent/lock, flock) for this process, or fails
// at once with a LockedError naming the holder's pid. Taking the lock also
// removes temporary files a crashed writer left behind.
func (l *Locker) Lock() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fd != nil {
		return nil
	}
	if err := l.root.MkdirAll(".agent", 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(l.dir, ".agent", "lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("cannot open the job lock: %w", err)
	}
	deadline := time.Now().Add(lockWait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return fmt.Errorf("cannot lock job '%s': %w", l.id, err)
		}
		if time.Now().After(deadline) {
			pid := holderPID(f)
			f.Close()
			return &LockedError{ID: l.id, PID: pid}
		}
		time.Sleep(20 * time.Millisecond)
	}
	host, _ := os.Hostname()
	record := fmt.Sprintf("pid %d\nhost %s\nsince %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(record), 0)
		_ = f.Sync()
	}
	l.fd = f
	if l.onLock != nil {
		l.onLock()
	}
	return nil
}

// Unlock releases the lock if this process holds it.
func (l *Locker) Unlock() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fd == nil {
		return nil
	}
	_ = l.fd.Truncate(0)
	err := syscall.Flock(int(l.fd.Fd()), syscall.LOCK_UN)
	if cerr := l.fd.Close(); err == nil {
		err = cerr
	}
	l.fd = nil
	return err
}

// Holder tells whether some process holds the job's lock, and its pid when
// known. It does not disturb the holder.
func (l *Locker) Holder() (pid int, held bool) {
	l.mu.Lock()
	mine := l.fd != nil
	l.mu.Unlock()
	if mine {
		return os.Getpid(), true
	}
	f, err := os.Open(filepath.Join(l.dir, ".agent", "lock"))
	if err != nil {
		return 0, false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return holderPID(f), true
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return 0, false
}

func holderPID(f *os.File) int {
	buf := make([]byte, 256)
	n, _ := f.ReadAt(buf, 0)
	for _, line := range strings.Split(string(buf[:n]), "\n") {
		if v, ok := strings.CutPrefix(line, "pid "); ok {
			pid, _ := strconv.Atoi(strings.TrimSpace(v))
			return pid
		}
	}
	return 0
}
