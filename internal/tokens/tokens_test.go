package tokens

import (
	"context"
	"errors"
	"runtime"

	"creator/internal/corpustest"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	t.Parallel()
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

// Text without long runs is counted exactly as the encoding does; a run of
// megabytes without white space is counted in slices, close to the exact
// figure, instead of in quadratic time.
func TestLongRuns(t *testing.T) {
	t.Parallel()
	c := Default()
	text := strings.Repeat("Die Buchungsbelege sind zehn Jahre lang aufzubewahren; see https://example.org/a/b?c=d. ", 50)
	if got, want := c.Count(text), len(c.enc.EncodeOrdinary(text)); got != want {
		t.Errorf("ordinary text: %d tokens, the encoding says %d", got, want)
	}
	run := strings.Repeat("QUJDRGVmZ2hpams=", 1000) // 16,000 bytes of base64
	exact := len(c.enc.EncodeOrdinary(run))
	if got := c.Count(run); got < exact*9/10 || got > exact*12/10 {
		t.Errorf("a 16 KB run: %d tokens, exactly %d", got, exact)
	}
	// Megabytes of one character: without slices this takes hours.
	huge := "start " + strings.Repeat("x", 4<<20) + " end"
	if got := c.Count(huge); got < (4<<20)/16 || got > 4<<20 {
		t.Errorf("a 4 MB run: %d tokens", got)
	}
	// Slices are cut between characters, never inside one.
	if got := c.Count(strings.Repeat("ä", 1000)); got == 0 {
		t.Error("a run of two-byte characters counted nothing")
	}
}

func BenchmarkCountLongRun(b *testing.B) {
	c := Default()
	run := strings.Repeat("x", 1<<20)
	b.SetBytes(int64(len(run)))
	for b.Loop() {
		c.count(run) // the encoding itself, not the remembered count
	}
}

func BenchmarkCount(b *testing.B) {
	c := Default()
	text := strings.Repeat("Die Buchungsbelege sind zehn Jahre lang unveränderbar aufzubewahren. ", 100) // ~7 KB
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		c.count(text) // the encoding itself, not the remembered count
	}
}

// A long text counted again is answered from memory, with the same count;
// texts that differ in one character are not confused.
func BenchmarkCountAgain(b *testing.B) {
	c := Default()
	text := strings.Repeat("Die Buchungsbelege sind zehn Jahre lang unveränderbar aufzubewahren. ", 400) // ~28 KB, a large tool result
	c.Count(text)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		c.Count(text)
	}
}

func TestCountAgain(t *testing.T) {
	t.Parallel()
	c := Default()
	a := strings.Repeat("records must be kept ", 200)
	b := a[:len(a)-1] + "X"
	first, second := c.Count(a), c.Count(a)
	if first != second || first != len(c.enc.EncodeOrdinary(a)) {
		t.Errorf("counts %d and %d", first, second)
	}
	if c.Count(b) != len(c.enc.EncodeOrdinary(b)) {
		t.Error("a text that differs in its last character got another text's count")
	}
}

// A long text counted in parts at once has the count of the whole, for
// every encoding and any number of parts: the corpus's reference texts,
// and texts whose lines start with letters, digits, marks, punctuation,
// spaces and line breaks of every kind.
func TestPartsAddUp(t *testing.T) {
	t.Parallel()
	texts := map[string]string{}
	corpus := []string{"GoBD.ref.txt", "NIST.SP.800-53r3.ref.txt", "NIST.SP.800-63b.ref.txt", "rfc9000.txt", "shared-mime-info-spec.ref.txt"}
	if raceEnabled {
		corpus = corpus[:1] // the parts counted at once are what the detector watches
	}
	for _, name := range corpus {
		p, ok := corpustest.Optional(t, name)
		if !ok {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts[name] = string(data)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	pieces := []string{"\n", "\r\n", "\n\n", " \n", ".\n", "./\n", "\n/", "\n ", "word", "Wörter", "日本語", "123", "\u0301", "'s", "!!", "-", " ", "\t", "x\ny", "e\u0301"}
	for k := range 3 {
		var b strings.Builder
		for b.Len() < 3*parallelFrom {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts[fmt.Sprintf("random %d", k)] = b.String()
	}
	for _, enc := range []string{DefaultEncoding, "cl100k_base"} {
		c, err := New(enc)
		if err != nil {
			t.Fatal(err)
		}
		for name, s := range texts {
			if enc != DefaultEncoding && !strings.HasPrefix(name, "random") {
				continue // the corpus once is enough
			}
			want := c.countSerial(s)
			for _, n := range []int{2, 7} {
				parts := splitAtLines(s, n)
				if strings.Join(parts, "") != s {
					t.Fatalf("%s: the parts are not the text", name)
				}
				if got := c.countParts(parts); got != want {
					t.Errorf("%s, %s in %d parts: %d tokens, whole %d", enc, name, len(parts), got, want)
				}
			}
		}
	}
}

// BenchmarkCountDocument counts the text of NIST SP 800-53r3 (700,000
// characters) as one piece and in parts at once.
func BenchmarkCountDocument(b *testing.B) {
	data, err := os.ReadFile(corpustest.Path(b, "NIST.SP.800-53r3.ref.txt"))
	if err != nil {
		b.Fatal(err)
	}
	c, text := Default(), string(data)
	want := c.countSerial(text)
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			c.countSerial(text)
		}
	})
	b.Run("parts", func(b *testing.B) {
		for b.Loop() {
			if got := c.count(text); got != want {
				b.Fatalf("%d tokens in parts, %d whole", got, want)
			}
		}
	})
}

// CountContext counts as Count does, and stops when its context ends, with
// the context's error, after the group of parts under way.
func TestCountContext(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	// Parts of 16 KB stand for those of 256 KB, so that the text is small
	// enough to count under the race detector too.
	const part = 16 << 10
	for i := 0; b.Len() < 24*part; i++ {
		fmt.Fprintf(&b, "Section %d\n\nRecords of kind %d must be kept for %d years; see §%d.\n  - item %d\n\n", i, i, i%12, i%97, i)
	}
	text := b.String()
	c := Default()
	n, err := c.countContext(context.Background(), text, part, nil)
	if want := c.Count(text); err != nil || n != want {
		t.Fatalf("CountContext %d, %v; Count %d", n, err, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	counted := 0
	_, err = c.countContext(ctx, text, part, func(parts int) {
		if counted = parts; parts >= 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || counted > 3+runtime.GOMAXPROCS(0) {
		t.Fatalf("cancelled after 3 parts: %v, %d parts counted", err, counted)
	}
}

// A text without line breaks is encoded in pieces cut before a space
// between two letters, and its count is that of the whole, for each
// encoding: words, numbers, marks, punctuation and runs of spaces, in one
// line of some 200 KB.
func TestOneLineInPiecesAddsUp(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	pieces := []string{" word", " Wörter", " 日本語", " 123", "\u0301", "'s", "!!", "-", " ", "  ", "\t", " e\u0301", " x", "I", ". The"}
	var b strings.Builder
	for b.Len() < 3*encodePiece {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	s := b.String()
	for _, enc := range []string{DefaultEncoding, "cl100k_base"} {
		c, err := New(enc)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := c.countSerial(s), len(c.enc.EncodeOrdinary(s)); got != want {
			t.Errorf("%s: %d tokens in pieces, %d whole", enc, got, want)
		}
	}
}
