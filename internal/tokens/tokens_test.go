package tokens

import (
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	c := Default()
	cases := map[string]int{
		"":            0,
		"hello world": 2,
		"The operator must keep records for ten years.": 9,
		"<|endoftext|>": 7, // ordinary text, no panic
	}
	for s, want := range cases {
		if got := c.Count(s); got != want {
			t.Errorf("Count(%q) = %d, want %d", s, got, want)
		}
	}
	if _, err := New("nope"); err == nil {
		t.Fatal("unknown encoding accepted")
	}
	cl, err := New("cl100k_base")
	if err != nil || cl.Count("hello world") != 2 {
		t.Fatalf("cl100k_base: %v", err)
	}
}

func BenchmarkCount(b *testing.B) {
	c := Default()
	text := strings.Repeat("Die Buchungsbelege sind zehn Jahre lang unveränderbar aufzubewahren. ", 100) // ~7 KB
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		c.Count(text)
	}
}
