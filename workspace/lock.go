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
	// Review is the address of the review server that holds the job, ""
	// when the holder is no review (a run, a resume, a worker).
	Review string
}

func (e *LockedError) Error() string {
	if e.Review != "" {
		return fmt.Sprintf("job '%s' is open in creator review (pid %d, %s): stop it (Ctrl-C) and try again", e.ID, e.PID, e.Review)
	}
	who := "another creator process"
	if e.PID > 0 {
		who = fmt.Sprintf("another creator process (pid %d)", e.PID)
	}
	return fmt.Sprintf("job '%s' is in use by %s; wait for it to finish or stop it first", e.ID, who)
}

// lockWait is how long Lock retries while the lock is held by no process
// its record names — a brief probe by `creator status`, or a holder that
// has not written its record yet — so that such a probe does not make a
// starting run fail. A holder the record names is refused at once.
const lockWait = 300 * time.Millisecond

// Locker is the job's lock: one process at a time works on a job.
type Locker struct {
	id   string
	dir  string
	root *os.Root
	// onLock runs once the lock is taken.
	onLock func()
	// pause waits between two tries of a lock that no named process
	// holds (time.Sleep when nil).
	pause func(time.Duration)

	mu     sync.Mutex
	fd     *os.File
	record string // what the lock file says of this process, while it holds it
}

// Lock takes the job's lock (.agent/lock, flock) for this process, or fails
// at once with a LockedError naming the holder's pid (and the address of
// its review server, when the holder is a review: RecordReview). Taking
// the lock also removes temporary files a crashed writer left behind.
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
		h := readHolding(f)
		if h.live() || time.Now().After(deadline) {
			f.Close()
			return &LockedError{ID: l.id, PID: h.pid, Review: h.review}
		}
		if l.pause != nil {
			l.pause(20 * time.Millisecond)
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
	host, _ := os.Hostname()
	l.record = fmt.Sprintf("pid %d\nhost %s\nsince %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(l.record), 0)
		_ = f.Sync()
	}
	l.fd = f
	if l.onLock != nil {
		l.onLock()
	}
	return nil
}

// RecordReview adds to the record of the lock this process holds that a
// review server listens at address, so that a process refused the lock
// says where the review runs.
func (l *Locker) RecordReview(address string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fd == nil {
		return fmt.Errorf("job '%s' is not locked by this process", l.id)
	}
	if strings.ContainsAny(address, "\n\r") {
		return fmt.Errorf("%q is no address", address)
	}
	// The record only grows, so writing it over the old one never leaves
	// a part of the old one behind.
	l.record += "review " + address + "\n"
	if _, err := l.fd.WriteAt([]byte(l.record), 0); err != nil {
		return fmt.Errorf("cannot write the job lock: %w", err)
	}
	return l.fd.Sync()
}

// Unlock releases the lock if this process holds it.
func (l *Locker) Unlock() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fd == nil {
		return nil
	}
	_ = l.fd.Truncate(0)
	l.record = ""
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
	pid, _, held = l.HeldBy()
	return pid, held
}

// HeldBy is Holder that also tells the address of the holder's review
// server, when the holder is a review (RecordReview).
func (l *Locker) HeldBy() (pid int, review string, held bool) {
	l.mu.Lock()
	mine, record := l.fd != nil, l.record
	l.mu.Unlock()
	if mine {
		h := parseHolding(record)
		return os.Getpid(), h.review, true
	}
	f, err := os.Open(filepath.Join(l.dir, ".agent", "lock"))
	if err != nil {
		return 0, "", false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		h := readHolding(f)
		return h.pid, h.review, true
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return 0, "", false
}

// holding is what the lock file records of its holder.
type holding struct {
	pid    int
	host   string
	review string // the review server's address, when a review holds it
}

func readHolding(f *os.File) holding {
	buf := make([]byte, 1024)
	n, _ := f.ReadAt(buf, 0)
	return parseHolding(string(buf[:n]))
}

func parseHolding(record string) holding {
	var h holding
	for _, line := range strings.Split(record, "\n") {
		key, value, _ := strings.Cut(line, " ")
		switch value = strings.TrimSpace(value); key {
		case "pid":
			h.pid, _ = strconv.Atoi(value)
		case "host":
			h.host = value
		case "review":
			h.review = value
		}
	}
	return h
}

// live reports whether the record names a process that may hold the lock:
// one of another machine (which this one cannot see), or one that runs
// here. A record a crashed holder left names a process that is gone; the
// lock is then held by a probe, for a moment.
func (h holding) live() bool {
	if h.pid <= 0 {
		return false
	}
	if host, _ := os.Hostname(); h.host != "" && h.host != host {
		return true
	}
	err := syscall.Kill(h.pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
