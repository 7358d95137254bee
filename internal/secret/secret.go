// Package secret keeps the model server's API key out of what creator
// writes: a server that echoes the key in an error message, or a model
// that repeats it, must not get it into a job's files or onto a terminal.
package secret

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/url"
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
		for _, v := range encodings(key) {
			s = strings.ReplaceAll(s, string(v), Redacted)
		}
	}
	return bearer.ReplaceAllString(s, "Bearer "+Redacted)
}

// encodings are the forms a secret takes when a server or a model writes
// it encoded: percent-encoded, in hex, and in base64 (standard and URL
// alphabets) at each of the three places it can start in a longer
// encoded run — there, only the characters that come from the secret's
// bytes alone, so that it is found whatever stands around it. Forms
// shorter than MinLength are left out, as short secrets are.
func encodings(secret string) [][]byte {
	b := []byte(secret)
	forms := []string{url.QueryEscape(secret), url.PathEscape(secret), hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b))}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for lead := range 3 {
			full := enc.EncodeToString(append(make([]byte, lead), b...))
			start := 0
			if lead > 0 {
				start = 4 // the first group mixes the bytes before the secret
			}
			end := 4 * ((lead + len(b)) / 3) // the last whole group within the secret
			if end > start {
				forms = append(forms, full[start:end])
			}
		}
	}
	var out [][]byte
	seen := map[string]bool{secret: true}
	for _, f := range forms {
		if len(f) >= MinLength && !seen[f] {
			seen[f] = true
			out = append(out, []byte(f))
		}
	}
	return out
}

// Redactor replaces secrets, and any Authorization value, with Redacted.
// Its zero value replaces Authorization values only; it is safe for use by
// several goroutines.
type Redactor struct {
	mu      sync.RWMutex
	secrets [][]byte
}

// Set replaces the secrets, as written and as encoded (encodings). Those
// shorter than MinLength are left alone (see there).
func (r *Redactor) Set(secrets ...string) {
	var keep [][]byte
	for _, s := range secrets {
		if s = strings.TrimSpace(s); len(s) >= MinLength {
			keep = append(keep, []byte(s))
			keep = append(keep, encodings(s)...)
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
