package humanize

import (
	"strings"
	"testing"
	"time"
)

func TestFormats(t *testing.T) {
	t.Parallel()
	cases := []struct{ got, want string }{
		{Int(0), "0"},
		{Int(999), "999"},
		{Int(1000), "1,000"},
		{Int(1234567), "1,234,567"},
		{Int(-1234), "-1,234"},
		{Bytes(1), "1 byte"},
		{Bytes(999), "999 bytes"},
		{Bytes(1204), "1.2 KB"},
		{Bytes(5 << 20), "5.2 MB"},
		{Duration(45 * time.Second), "45s"},
		{Duration(12*time.Minute + 30*time.Second), "12m30s"},
		{Duration(2*time.Hour + 5*time.Minute), "2h05m"},
		{Duration(75*time.Hour + 10*time.Minute), "3d03h"},
		{Plural(1, "task"), "1 task"},
		{Plural(1200, "line"), "1,200 lines"},
		{Plural(2, "entry"), "2 entries"},
		{Plural(0, "entry"), "0 entries"},
		{Plural(3, "day"), "3 days"},
		{OneLine(" a\n\tb  c \n"), "a b c"},
		{Clip("Prüfung der Belege", 8), "Prüfung…"},
		{Clip("kurz", 8), "kurz"},
		{Clip("kurz", 0), "kurz"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestWithNotes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		result string
		notes  []string
		want   string
	}{
		{"saved REQ-001", nil, "saved REQ-001"},
		{"saved REQ-001\n", []string{"a", "b"}, "saved REQ-001; a; b"},
		{"     1\tx\n[1 line]\n", []string{"a"}, "     1\tx\n[1 line]\n(note: a)"},
	} {
		if got := WithNotes(c.result, c.notes); got != c.want {
			t.Errorf("WithNotes(%q, %q) = %q, want %q", c.result, c.notes, got, c.want)
		}
	}
}

// ParseBytes reads what Bytes prints, with or without its space, and a
// size as a person writes one.
func TestParseBytes(t *testing.T) {
	t.Parallel()
	for _, n := range []int64{1, 300, 64_000_000, 2_500_000_000} {
		for _, s := range []string{Bytes(n), strings.ReplaceAll(Bytes(n), " ", "")} {
			if got, err := ParseBytes(s); err != nil || got != n {
				t.Errorf("ParseBytes(%q) = %d, %v; want %d", s, got, err, n)
			}
		}
	}
	for s, want := range map[string]int64{"64MB": 64e6, "1.5 GB": 1.5e9, "500KiB": 500 << 10, "1048576": 1 << 20, "2k": 2000} {
		if got, err := ParseBytes(s); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "lots", "-5MB", "0"} {
		if _, err := ParseBytes(s); err == nil {
			t.Errorf("ParseBytes(%q) took it", s)
		}
	}
}
