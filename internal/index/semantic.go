package index

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2/search"
)

const (
	// fusionDepth is how many passages of each ranking take part in the
	// fusion.
	fusionDepth = 100
	// rrfK damps the weight of the first ranks in reciprocal rank fusion
	// (the customary 60).
	rrfK = 60
	// embedTimeout bounds the embedding calls of one search.
	embedTimeout = 2 * time.Minute
)

// semantic ranks passages by meaning, alone or fused with BM25. When the
// embedding server fails, it falls back to keywords and says so.
func (x *Index) semantic(ctx context.Context, q Query) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, embedTimeout)
	defer cancel()
	qv, err := x.queryVector(ctx, q.Text)
	if err != nil {
		q.Mode = ModeKeyword
		res, kerr := x.ranked(q)
		res.Note = fmt.Sprintf("the embedding server failed (%v); these are keyword hits", err)
		return res, kerr
	}
	phrases, words := splitQuery(q.Text)
	want := x.queryTerms(append(phrases, words))

	x.mu.Lock()
	defer x.mu.Unlock()
	near := x.nearest(qv, q, fusionDepth)
	if q.Mode == ModeSemantic || len(want.en) == 0 {
		near = near[:min(len(near), q.Limit)]
		return Result{Hits: x.hits(near, want), Total: len(near), Mode: ModeSemantic}, nil
	}
	kw, total, err := x.bm25(q, phrases, words, fusionDepth)
	if err != nil {
		return Result{}, err
	}
	fused := fuse(kw, near)
	return Result{Hits: x.hits(fused[:min(len(fused), q.Limit)], want), Total: max(total, len(fused)), Mode: ModeHybrid}, nil
}

// queryVector embeds what was written since the last search, then the
// query.
func (x *Index) queryVector(ctx context.Context, text string) ([]float32, error) {
	if err := x.embedPending(ctx); err != nil {
		return nil, err
	}
	vecs, err := x.emb.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	if len(vecs) != 1 || len(vecs[0]) == 0 {
		return nil, fmt.Errorf("the embedding server returned %d vectors for one text", len(vecs))
	}
	return normalize(vecs[0]), nil
}

// nearest returns the size passages most similar to the vector within the
// query's file or folder, by cosine, leaving out those with nothing in
// common; the caller holds the lock. A bounded
// heap keeps the best, so that only they cost an id.
func (x *Index) nearest(qv []float32, q Query, size int) search.DocumentMatchCollection {
	best := make(nearHeap, 0, size+1)
	for rel, rec := range x.files {
		if (q.File != "" && rel != q.File) || (q.File == "" && !strings.HasPrefix(rel, q.Prefix)) {
			continue
		}
		for i, h := range rec.hashes {
			v, ok := x.vec.byKey[h]
			if !ok || len(v) != len(qv) {
				continue
			}
			c := near{score: dot(qv, v), rel: rel, i: i}
			if c.score <= 0 || (len(best) == size && !best[0].less(c)) {
				continue
			}
			heap.Push(&best, c)
			if len(best) > size {
				heap.Pop(&best)
			}
		}
	}
	out := make(search.DocumentMatchCollection, 0, len(best))
	for _, c := range best {
		out = append(out, &search.DocumentMatch{ID: passageID(c.rel, c.i), Score: float64(c.score)})
	}
	slices.SortFunc(out, byScore)
	return out
}

// near is a passage and its similarity to the query.
type near struct {
	score float32
	rel   string
	i     int
}

// less orders passages from the least to the most similar; ties go to the
// earlier path and passage.
func (a near) less(b near) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	if a.rel != b.rel {
		return a.rel > b.rel
	}
	return a.i > b.i
}

// nearHeap is a min-heap of the most similar passages found so far.
type nearHeap []near

func (h nearHeap) Len() int           { return len(h) }
func (h nearHeap) Less(i, j int) bool { return h[i].less(h[j]) }
func (h nearHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nearHeap) Push(v any)        { *h = append(*h, v.(near)) }
func (h *nearHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}

func byScore(a, b *search.DocumentMatch) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// fuse merges rankings by reciprocal rank: a passage scores the sum of
// 1/(rrfK+rank) over the rankings that hold it.
func fuse(rankings ...search.DocumentMatchCollection) search.DocumentMatchCollection {
	score := map[string]float64{}
	for _, r := range rankings {
		for rank, m := range r {
			score[m.ID] += 1 / float64(rrfK+rank+1)
		}
	}
	out := make(search.DocumentMatchCollection, 0, len(score))
	for id, s := range score {
		out = append(out, &search.DocumentMatch{ID: id, Score: s})
	}
	slices.SortFunc(out, byScore)
	return out
}
