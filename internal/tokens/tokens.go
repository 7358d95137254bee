// Package tokens counts tokens the way OpenAI's tokenizers do, with the BPE
// tables embedded in the binary: counting never touches the network.
package tokens

import (
	"context"
	"crypto/sha256"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// DefaultEncoding is the tokenizer of current OpenAI models.
const DefaultEncoding = "o200k_base"

// Counter counts tokens of one encoding. It is safe for concurrent use.
//
// Long texts are counted once: the same tool result is counted when it is
// checked against the result budget, when its event is written and when
// the prompt is measured, and encoding costs far more than hashing.
type Counter struct {
	enc *tiktoken.Tiktoken

	mu    sync.Mutex
	known map[[32]byte]int // counts of texts of cacheFrom bytes or more
}

// Texts from cacheFrom bytes on are remembered, at most cacheSize of them.
const (
	cacheFrom = 1024
	cacheSize = 2048
)

var (
	loaderOnce sync.Once
	mu         sync.Mutex
	counters   = map[string]*Counter{}
)

// New returns the counter for an encoding (o200k_base, cl100k_base,
// p50k_base, r50k_base). Loading a table takes a moment, so counters are
// shared.
func New(encoding string) (*Counter, error) {
	loaderOnce.Do(func() { tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader()) })
	mu.Lock()
	defer mu.Unlock()
	if c, ok := counters[encoding]; ok {
		return c, nil
	}
	enc, err := tiktoken.GetEncoding(encoding)
	if err != nil {
		return nil, fmt.Errorf("unknown token encoding %q: %v", encoding, err)
	}
	c := &Counter{enc: enc, known: map[[32]byte]int{}}
	counters[encoding] = c
	return c, nil
}

// Default returns the o200k_base counter; it panics only if the embedded
// table is broken, which the tests rule out.
func Default() *Counter {
	c, err := New(DefaultEncoding)
	if err != nil {
		panic(err)
	}
	return c
}

// Runs of text without white space longer than longRun bytes (a base64
// blob, a line of dashes, a model's runaway argument) are counted in
// slices of runSlice bytes: byte-pair encoding takes time quadratic in the
// length of such a run (160,000 characters took 23 s), and the slices make
// it linear. Ordinary text is counted exactly.
const (
	longRun  = 256
	runSlice = 64
)

// Count returns the number of tokens of s. Special-token text such as
// "<|endoftext|>" is counted as ordinary text.
func (c *Counter) Count(s string) int {
	if len(s) < cacheFrom {
		return c.count(s)
	}
	key := sha256.Sum256([]byte(s))
	c.mu.Lock()
	n, ok := c.known[key]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = c.count(s)
	c.mu.Lock()
	if len(c.known) >= cacheSize {
		clear(c.known) // simpler than eviction; the next texts refill it
	}
	c.known[key] = n
	c.mu.Unlock()
	return n
}

// Texts from parallelFrom bytes on are counted in parts at once, one per
// CPU. The parts are cut where a line starts with a letter or a digit:
// the tokenizers' pre-splitting always ends a piece there (a run of line
// breaks, or punctuation with the line breaks after it, ends at the
// letter), so the parts' counts add up to the count of the whole.
const parallelFrom = 64 << 10

func (c *Counter) count(s string) int {
	if n := runtime.GOMAXPROCS(0); len(s) >= parallelFrom && n > 1 {
		return c.countParts(splitAtLines(s, n))
	}
	return c.countSerial(s)
}

// contextPart is the size of the parts CountContext counts between two
// looks at its context: a fraction of a second each.
const contextPart = 256 << 10

// CountContext is Count that stops, with ctx's error, when ctx ends: the
// text of a large document (megabytes) takes many seconds to count, and
// an interrupt must not wait for them. The parts are cut as count's are,
// so the total is Count's.
func (c *Counter) CountContext(ctx context.Context, s string) (int, error) {
	return c.countContext(ctx, s, contextPart, nil)
}

// countContext is CountContext in parts of about part bytes; partsDone,
// when set, hears how many parts have been counted after each group (for
// tests, which use smaller parts).
func (c *Counter) countContext(ctx context.Context, s string, part int, partsDone func(int)) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if len(s) < 2*part {
		return c.Count(s), nil
	}
	parts := splitAtLines(s, len(s)/part+1)
	workers := max(1, runtime.GOMAXPROCS(0))
	total := 0
	for i := 0; i < len(parts); i += workers {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		total += c.countParts(parts[i:min(i+workers, len(parts))])
		if partsDone != nil {
			partsDone(min(i+workers, len(parts)))
		}
	}
	return total, nil
}

// countParts counts the parts of a text at once and adds their counts.
func (c *Counter) countParts(parts []string) int {
	counts := make([]int, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Go(func() { counts[i] = c.countSerial(p) })
	}
	wg.Wait()
	total := 0
	for _, n := range counts {
		total += n
	}
	return total
}

// splitAtLines cuts s into at most n parts of about equal size, each cut
// at the start of a line that begins with a letter or a digit.
func splitAtLines(s string, n int) []string {
	var parts []string
	from := 0
	for k := 1; k < n; k++ {
		at := max(from, k*len(s)/n)
		cut := -1
		for i := at; i < len(s); {
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
			if r, _ := utf8.DecodeRuneInString(s[i:]); unicode.IsLetter(r) || unicode.IsNumber(r) {
				cut = i
				break
			}
		}
		if cut < 0 {
			break
		}
		parts = append(parts, s[from:cut])
		from = cut
	}
	return append(parts, s[from:])
}

// Text is encoded in pieces of about encodePiece bytes at most, cut
// before a space between two letters: the encoder holds every piece of
// what it is given at once (some 45 bytes a byte), and a document written
// as one line (32 MB) took 1.4 GB. All the tokenizers' pre-splitting ends
// a piece at a letter followed by a space and starts one at the space, so
// the counts add up to the count of the whole.
const encodePiece = 64 << 10

func (c *Counter) countSerial(s string) int {
	if s == "" {
		return 0
	}
	total, from := 0, 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		if i-from > encodePiece && unicode.IsLetter(r) && s[i-1] == ' ' {
			if before, _ := utf8.DecodeLastRuneInString(s[:i-1]); unicode.IsLetter(before) {
				total += c.encode(s[from : i-1])
				from = i - 1
			}
		}
		j := i // the run of non-space text that starts at i
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if unicode.IsSpace(r) {
				break
			}
			j += size
		}
		if j-i > longRun {
			total += c.encode(s[from:i]) + c.sliced(s[i:j])
			from = j
		}
		i = j
	}
	return total + c.encode(s[from:])
}

func (c *Counter) encode(s string) int {
	if s == "" {
		return 0
	}
	return len(c.enc.EncodeOrdinary(s))
}

// sliced counts a long run in slices, cut at character boundaries.
func (c *Counter) sliced(run string) int {
	n := 0
	for len(run) > 0 {
		end := min(runSlice, len(run))
		for end < len(run) && !utf8.RuneStart(run[end]) {
			end++
		}
		n += c.encode(run[:end])
		run = run[end:]
	}
	return n
}
