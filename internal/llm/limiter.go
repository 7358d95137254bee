package llm

import (
	"context"
	"net/http"
	"sync"
)

// Limiter is a job-wide gate for model requests, shared by every client
// and goroutine of a job: at most Limit requests hold a place at once.
// The limit starts at the maximum; an answer of 429 or 503 halves it (not
// below 1), once per burst: further decreases are ignored until a request
// that started after the last decrease reports one. After limit successes
// in a row it grows by one, up to the maximum. Waiters are served in
// arrival order; a waiter whose context ends leaves without taking a place.
//
// A nil *Limiter lets every request through.
type Limiter struct {
	mu        sync.Mutex
	max       int
	limit     int
	holders   int
	queue     []*limitWaiter
	epoch     uint64 // counts decreases; a holder remembers the one it started in
	successes int    // in a row, since the last change of the limit
	peak      int
	decreases int
}

type limitWaiter struct {
	ready   chan struct{}
	granted bool   // the place was handed over; guarded by Limiter.mu
	epoch   uint64 // the epoch the place was granted in
}

// LimiterStats is what a Limiter has seen so far.
type LimiterStats struct {
	Limit       int // requests allowed at once now
	Max         int
	Holders     int // holding a place now
	Waiting     int
	PeakHolders int
	Decreases   int // times the limit was halved
}

// NewLimiter returns a gate for at most n requests at once (at least 1).
func NewLimiter(n int) *Limiter {
	n = max(n, 1)
	return &Limiter{max: n, limit: n}
}

// Acquire waits for a place, in arrival order, and returns the function
// that gives it back with the HTTP status the request was answered with
// (0 when there was no answer). It returns ctx's error if ctx ends first,
// having taken no place. Release may be called more than once; only the
// first call counts.
func (l *Limiter) Acquire(ctx context.Context) (release func(status int), err error) {
	if l == nil {
		return func(int) {}, nil
	}
	l.mu.Lock()
	if l.holders < l.limit && len(l.queue) == 0 {
		l.holders++
		l.peak = max(l.peak, l.holders)
		epoch := l.epoch
		l.mu.Unlock()
		return l.releaser(epoch), nil
	}
	w := &limitWaiter{ready: make(chan struct{})}
	l.queue = append(l.queue, w)
	l.mu.Unlock()
	select {
	case <-w.ready:
		return l.releaser(w.epoch), nil
	case <-ctx.Done():
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if w.granted { // the place came as the caller gave up: pass it on
		l.holders--
		l.grantLocked()
		return nil, ctx.Err()
	}
	for i, q := range l.queue {
		if q == w {
			l.queue = append(l.queue[:i], l.queue[i+1:]...)
			break
		}
	}
	return nil, ctx.Err()
}

func (l *Limiter) releaser(epoch uint64) func(int) {
	var once sync.Once
	return func(status int) {
		once.Do(func() { l.release(epoch, status) })
	}
}

func (l *Limiter) release(epoch uint64, status int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.holders--
	switch {
	case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable:
		l.successes = 0
		if epoch == l.epoch && l.limit > 1 {
			l.limit /= 2
			l.epoch++
			l.decreases++
		}
	case status >= 200 && status < 300:
		l.successes++
		if l.successes >= l.limit && l.limit < l.max {
			l.limit++
			l.successes = 0
		}
	}
	l.grantLocked()
}

// grantLocked hands free places to the first waiters.
func (l *Limiter) grantLocked() {
	for l.holders < l.limit && len(l.queue) > 0 {
		w := l.queue[0]
		l.queue = l.queue[1:]
		l.holders++
		l.peak = max(l.peak, l.holders)
		w.granted, w.epoch = true, l.epoch
		close(w.ready)
	}
}

// Stats returns the limiter's current state and what it has seen.
func (l *Limiter) Stats() LimiterStats {
	if l == nil {
		return LimiterStats{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return LimiterStats{Limit: l.limit, Max: l.max, Holders: l.holders, Waiting: len(l.queue),
		PeakHolders: l.peak, Decreases: l.decreases}
}

// statusOr is what a Limiter is told of an attempt: ok when it did not
// fail, else its HTTP status, or 0 (neither success nor rate limit) for no
// answer or a failed one with a 2xx status (an unreadable body, say).
func (f *failure) statusOr(ok int) int {
	switch {
	case f == nil:
		return ok
	case f.status >= 200 && f.status < 300:
		return 0
	}
	return f.status
}
