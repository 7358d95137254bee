package llm

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryHint is how long the server asks the client to wait before the next
// request, and whether it says so: retry-after-ms (OpenAI), Retry-After
// (seconds or an HTTP date), or on a 429 the x-ratelimit-reset headers
// (durations such as 1s, 6m0s, 20ms; plain seconds; a Unix time in seconds
// or milliseconds). Of the reset headers, the one whose remaining count is
// 0 counts; when none says so, the longest.
func retryHint(h http.Header, status int, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	if d, ok := parseRetryAfter(h.Get("Retry-After"), now); ok {
		return d, true
	}
	if status != http.StatusTooManyRequests {
		return 0, false
	}
	var longest time.Duration
	found := false
	for _, kind := range []string{"requests", "tokens", ""} {
		name := "x-ratelimit-reset"
		if kind != "" {
			name += "-" + kind
		}
		d, ok := parseReset(h.Get(name), now)
		if !ok {
			continue
		}
		if kind != "" && strings.TrimSpace(h.Get("x-ratelimit-remaining-"+kind)) == "0" {
			return d, true
		}
		longest, found = max(longest, d), true
	}
	return longest, found
}

// parseRetryAfter reads seconds or an HTTP date; a date in the past is 0.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// parseReset reads an x-ratelimit-reset value: a duration (1s, 6m0s,
// 20ms), plain seconds, or a Unix time in seconds or milliseconds.
func parseReset(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
		switch {
		case f > 1e12: // Unix milliseconds
			return max(0, time.UnixMilli(int64(f)).Sub(now)), true
		case f > 1e9: // Unix seconds
			return max(0, time.Unix(int64(f), 0).Sub(now)), true
		}
		return time.Duration(f * float64(time.Second)), true
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return d, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}
