package index

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Embedder turns texts into vectors whose cosine tells how near in meaning
// they are: an embedding model.
type Embedder interface {
	// EmbeddingModel names the model; vectors of another model are not
	// comparable and are made again.
	EmbeddingModel() string
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Vectors live next to the bleve index, in a file that only grows: a
// header, then records of a passage's content hash and its vector. A
// rebuilt index starts a new one.
const (
	vectorsFile   = "vectors.f32"
	vectorsHeader = "creator-vectors-1"
	hashBytes     = 16
	embedBatch    = 64
)

// contentHash identifies a passage's text; equal texts share a vector.
func contentHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return string(sum[:hashBytes])
}

// passageHashes are the content hashes of passages.
func passageHashes(ps []passage) []string {
	hashes := make([]string, len(ps))
	for i, p := range ps {
		hashes[i] = contentHash(p.text)
	}
	return hashes
}

// vectorStore holds the vectors of passage texts by content hash,
// normalised to length 1 so that cosine is a dot product.
type vectorStore struct {
	path  string
	model string
	dim   int
	byKey map[string][]float32
	out   *os.File // opened on the first append
}

// loadVectors reads the vector file of dir; a file of another model, or
// one that cannot be read, is dropped.
func loadVectors(dir, model string) *vectorStore {
	v := &vectorStore{path: filepath.Join(dir, vectorsFile), model: model, byKey: map[string][]float32{}}
	if err := v.read(); err != nil {
		_ = os.Remove(v.path)
		v.dim, v.byKey = 0, map[string][]float32{}
	}
	return v
}

func (v *vectorStore) read() error {
	f, err := os.Open(v.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var head [3]string
	for i := range head {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		head[i] = strings.TrimSuffix(line, "\n")
	}
	dim, err := strconv.Atoi(head[2])
	if head[0] != vectorsHeader || head[1] != v.model || err != nil || dim <= 0 {
		return errors.New("vectors of another model or layout")
	}
	v.dim = dim
	rec := make([]byte, hashBytes+4*dim)
	for {
		// A record cut short by a crash ends the file; its passage is
		// embedded again.
		if _, err := io.ReadFull(r, rec); err != nil {
			return nil
		}
		vec := make([]float32, dim)
		for i := range vec {
			vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(rec[hashBytes+4*i:]))
		}
		v.byKey[string(rec[:hashBytes])] = vec
	}
}

// add keeps the vectors of the keys and appends them to the file.
func (v *vectorStore) add(keys []string, vecs [][]float32) error {
	if len(keys) != len(vecs) {
		return fmt.Errorf("the embedding server returned %d vectors for %d texts", len(vecs), len(keys))
	}
	for _, vec := range vecs {
		if len(vec) == 0 || (v.dim != 0 && len(vec) != v.dim) {
			return fmt.Errorf("the embedding server returned a vector of %d dimensions, expected %d", len(vec), v.dim)
		}
	}
	if v.out == nil {
		f, err := os.OpenFile(v.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		v.out = f
		if fi, err := f.Stat(); err == nil && fi.Size() == 0 {
			v.dim = len(vecs[0])
			if _, err := fmt.Fprintf(f, "%s\n%s\n%d\n", vectorsHeader, v.model, v.dim); err != nil {
				return err
			}
		}
	}
	buf := make([]byte, 0, len(keys)*(hashBytes+4*v.dim))
	for i, key := range keys {
		vec := normalize(vecs[i])
		v.byKey[key] = vec
		buf = append(buf, key...)
		for _, f := range vec {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
		}
	}
	_, err := v.out.Write(buf)
	return err
}

func (v *vectorStore) close() error {
	if v.out == nil {
		return nil
	}
	err := v.out.Close()
	v.out = nil
	return err
}

func normalize(vec []float32) []float32 {
	var sum float64
	for _, f := range vec {
		sum += float64(f) * float64(f)
	}
	out := make([]float32, len(vec))
	if sum == 0 {
		return out
	}
	n := float32(1 / math.Sqrt(sum))
	for i, f := range vec {
		out[i] = f * n
	}
	return out
}

// dot is the dot product of vectors of equal length; four sums at once
// let the processor overlap the additions.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// embedPending embeds the passages of the files written since the last
// search, in batches. The index stays usable while the server is asked:
// the lock is let go meanwhile.
func (x *Index) embedPending(ctx context.Context) error {
	x.mu.Lock()
	if x.bi == nil {
		x.mu.Unlock()
		return errors.New("the search index is closed")
	}
	// Files indexed again get the passage hashes their vectors are found by.
	x.refreshDirty()
	var keys, texts []string
	seen := map[string]bool{}
	for _, missing := range x.unembedded {
		for key, text := range missing {
			if _, ok := x.vec.byKey[key]; !ok && !seen[key] {
				seen[key] = true
				keys, texts = append(keys, key), append(texts, text)
			}
		}
	}
	files := len(x.unembedded)
	x.mu.Unlock()
	if files == 0 {
		return nil
	}
	for start := 0; start < len(texts); start += embedBatch {
		end := min(start+embedBatch, len(texts))
		vecs, err := x.emb.Embed(ctx, texts[start:end])
		if err != nil {
			return err
		}
		x.mu.Lock()
		err = x.vec.add(keys[start:end], vecs)
		x.mu.Unlock()
		if err != nil {
			return err
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.dropEmbedded()
	return nil
}

// noteUnembedded keeps the texts of a file's passages that have no vector
// yet, read and hashed as the file was indexed, for embedPending.
func (x *Index) noteUnembedded(rel string, ps []passage, hashes []string) {
	missing := map[string]string{}
	for i, h := range hashes {
		if x.vec == nil || x.vec.byKey[h] == nil {
			missing[h] = ps[i].text
		}
	}
	if len(missing) == 0 {
		delete(x.unembedded, rel)
		return
	}
	x.unembedded[rel] = missing
}

// dropEmbedded forgets the passage texts that have their vector now.
func (x *Index) dropEmbedded() {
	for rel, missing := range x.unembedded {
		for h := range missing {
			if x.vec.byKey[h] != nil {
				delete(missing, h)
			}
		}
		if len(missing) == 0 {
			delete(x.unembedded, rel)
		}
	}
}

// loadVectors reads the stored vectors and notes the passages that still
// need one. Files indexed by Open noted theirs already; the others are
// read once here. Files recorded before passages had hashes are indexed
// again.
func (x *Index) loadVectors() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.vec = loadVectors(x.dir, x.emb.EmbeddingModel())
	x.dropEmbedded()
	for rel, rec := range x.files {
		if len(rec.hashes) != rec.passages {
			x.dirty[rel] = true
			continue
		}
		if _, ok := x.unembedded[rel]; ok {
			continue
		}
		for _, h := range rec.hashes {
			if x.vec.byKey[h] == nil {
				if text, ok, err := readText(x.fsys, rel, 0); err == nil && ok {
					ps := passages(text)
					x.noteUnembedded(rel, ps, passageHashes(ps))
				}
				break
			}
		}
	}
}
