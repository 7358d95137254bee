// Package humanize formats numbers, sizes and durations for messages read by
// people and by the model.
package humanize

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Int formats an integer with thousands separators: 1234567 → "1,234,567".
func Int[T ~int | ~int64 | ~int32 | ~uint64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := ""
	if s[0] == '-' {
		neg, s = "-", s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return neg + string(out)
}

// Bytes formats a size: 512 bytes, 4.2 KB, 5.0 MB (decimal units).
func Bytes(n int64) string {
	switch {
	case n == 1:
		return "1 byte"
	case n < 1000:
		return fmt.Sprintf("%d bytes", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f GB", float64(n)/1e9)
}

// Duration formats an elapsed time to the second: 45s, 12m30s, 2h05m, 3d04h.
func Duration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}

// Plural returns "1 task" or "3 tasks", "1 entry" or "2 entries".
func Plural(n int, word string) string {
	return Int(n) + " " + Noun(n, word)
}

// Noun returns word, or its plural when n is not 1.
func Noun(n int, word string) string {
	if n == 1 {
		return word
	}
	if len(word) > 1 && strings.HasSuffix(word, "y") && !strings.ContainsRune("aeiou", rune(word[len(word)-2])) {
		return word[:len(word)-1] + "ies"
	}
	return word + "s"
}

// OneLine folds every run of white space, line breaks included, into one
// space, for text shown or stored on a single line.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Clip cuts s to at most n characters, the last of them "…" when it was
// cut; n below 1 leaves s whole.
func Clip(s string, n int) string {
	if n < 1 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// WithNotes adds notes to a tool's result: after a one-line result, or on
// a line of their own after a longer one, so the result's own lines keep
// their form.
func WithNotes(result string, notes []string) string {
	if len(notes) == 0 {
		return result
	}
	joined := strings.Join(notes, "; ")
	trimmed := strings.TrimRight(result, "\n")
	if !strings.Contains(trimmed, "\n") {
		return trimmed + "; " + joined
	}
	return trimmed + "\n(note: " + joined + ")"
}

// Dollars shows an amount of US dollars: cents, or tenths of a cent below
// ten cents.
func Dollars(v float64) string {
	if v < 0.1 {
		return fmt.Sprintf("$%.3f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// Spent says what a run used: tokens, and the cost when it is known and
// not nothing: "12,345 tokens, $0.042".
func Spent(tokens int64, costUSD float64, priced bool) string {
	s := Int(tokens) + " tokens"
	if priced && costUSD > 0 {
		s += ", " + Dollars(costUSD)
	}
	return s
}

var sizeUnits = []struct {
	suffix string
	factor float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"bytes", 1}, {"byte", 1}, {"b", 1},
}

// ParseBytes reads a size as Bytes prints it, or as a person writes one:
// "64MB", "1.5 GB", "500KiB" or a number of bytes.
func ParseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	factor := 1.0
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, factor = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.factor
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("%q is not a size such as 64MB, 1.5GB or 500000", s)
	}
	return int64(v * factor), nil
}
