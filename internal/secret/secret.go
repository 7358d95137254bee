// Package secret keeps the model server's API key out of what creator
// writes: a server that echoes the key in an error message, or a model
// that repeats it, must not get it into a job's files or onto a terminal.
package secret

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"
)

// Redacted replaces a secret.
const Redacted = "[redacted]"

// MinLength is the shortest secret that is replaced. A shorter one is too
// likely to be an ordinary word of a document, and replacing it would
// change the text that citations quote.
const MinLength = 8

// authorization finds the value of an Authorization header written as
// text ("Authorization: Bearer …", "authorization": "Bearer …").
var authorization = regexp.MustCompile(`(?i)(authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token)?\s*)[^\s"',;]+`)

// bearer finds bearer tokens, as a server may echo them in an error.
var bearer = regexp.MustCompile(`(?i)bearer\s+[A-Za-z0-9._~+/=-]+`)

// Message is a model server's message with the key, whatever its length,
// and any bearer token replaced: a server's words are not a document's, so
// nothing there needs to stay verbatim.
func Message(s, key string) string {
	if key != "" {
		s = strings.ReplaceAll(s, key, Redacted)
	}
	return bearer.ReplaceAllString(s, "Bearer "+Redacted)
}

// Redactor replaces secrets, and any Authorization value, with Redacted.
// Its zero value replaces Authorization values only; it is safe for use by
// several goroutines.
type Redactor struct {
	mu      sync.RWMutex
	secrets [][]byte
}

// Set replaces the secrets. Those shorter than MinLength are left alone
// (see there).
func (r *Redactor) Set(secrets ...string) {
	var keep [][]byte
	for _, s := range secrets {
		if s = strings.TrimSpace(s); len(s) >= MinLength {
			keep = append(keep, []byte(s))
		}
	}
	r.mu.Lock()
	r.secrets = keep
	r.mu.Unlock()
}

// Apply returns data with the secrets replaced: data itself when there was
// nothing to replace, else a copy.
func (r *Redactor) Apply(data []byte) []byte {
	if r == nil {
		return data
	}
	r.mu.RLock()
	secrets := r.secrets
	r.mu.RUnlock()
	for _, s := range secrets {
		if bytes.Contains(data, s) {
			data = bytes.ReplaceAll(data, s, []byte(Redacted))
		}
	}
	// A quick test first: most writes mention no Authorization header.
	if bytes.Contains(data, []byte("uthorization")) || bytes.Contains(data, []byte("UTHORIZATION")) {
		data = authorization.ReplaceAll(data, []byte("${1}"+Redacted))
	}
	return data
}

// Writer returns a writer that redacts what is written to w. Each Write
// is redacted on its own, so a secret split over two writes is not found:
// it suits writers that are given whole lines or messages.
func (r *Redactor) Writer(w io.Writer) io.Writer { return &writer{r: r, w: w} }

type writer struct {
	r *Redactor
	w io.Writer
}

func (w *writer) Write(p []byte) (int, error) {
	if _, err := w.w.Write(w.r.Apply(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
