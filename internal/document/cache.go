package document

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Cache keeps extracted documents by the SHA-256 of their bytes. A run
// checks each document before it makes a job, and the job's agent later
// extracts the job's copy of it: through one Cache the copy gets the
// check's document, and the text is extracted once. A document is found
// again only when its bytes are the same, wherever the file lies, and its
// name has the same extension (which the format is checked against).
type Cache struct {
	opts             Options
	mu               sync.Mutex
	docs             map[string]*Document
	extracted, found int
}

// NewCache returns an empty cache that extracts with opts.
func NewCache(opts Options) *Cache {
	return &Cache{opts: opts, docs: map[string]*Document{}}
}

// Extract is Extract(path, opts) for the cache's options, or the document
// extracted before from the same bytes. A nil Cache extracts every time,
// with the default options. Documents are shared: callers do not change
// them.
func (c *Cache) Extract(path string) (*Document, error) {
	return c.ExtractContext(context.Background(), path)
}

// ExtractContext is Extract that stops, with ctx's error, when ctx ends
// (ExtractContext of the package).
func (c *Cache) ExtractContext(ctx context.Context, path string) (*Document, error) {
	if c == nil {
		return ExtractContext(ctx, path, Options{})
	}
	before, ok := c.hash(path)
	if !ok {
		return ExtractContext(ctx, path, c.opts) // and its error
	}
	key := before + strings.ToLower(filepath.Ext(path))
	c.mu.Lock()
	doc := c.docs[key]
	if doc != nil {
		c.found++
	}
	c.mu.Unlock()
	if doc != nil {
		return doc, nil
	}
	doc, err := ExtractContext(ctx, path, c.opts)
	if err != nil {
		return nil, err
	}
	// Kept only if the file did not change while it was read: the text
	// must be that of the bytes it is found by. (Hashed outside the lock,
	// which other extractions need only for the map.)
	after, ok := c.hash(path)
	c.mu.Lock()
	c.extracted++
	if ok && after == before {
		c.docs[key] = doc
	}
	c.mu.Unlock()
	return doc, nil
}

// hash is the SHA-256 of the file at path, in hex; ok is false for what
// Extract refuses before reading: no file, a folder, an empty file, one
// over the size limit.
func (c *Cache) hash(path string) (sum string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 || fi.Size() > c.opts.maxBytes() {
		return "", false
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", false
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// Counts are how many documents the cache has extracted, and how many
// times it found one extracted before.
func (c *Cache) Counts() (extracted, found int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.extracted, c.found
}
