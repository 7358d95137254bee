// Package tokens counts tokens the way OpenAI's tokenizers do, with the BPE
// tables embedded in the binary: counting never touches the network.
package tokens

import (
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// DefaultEncoding is the tokenizer of current OpenAI models.
const DefaultEncoding = "o200k_base"

// Counter counts tokens of one encoding. It is safe for concurrent use.
type Counter struct {
	enc *tiktoken.Tiktoken
}

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
	c := &Counter{enc: enc}
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

// Count returns the number of tokens of s. Special-token text such as
// "<|endoftext|>" is counted as ordinary text.
func (c *Counter) Count(s string) int {
	if s == "" {
		return 0
	}
	return len(c.enc.EncodeOrdinary(s))
}
