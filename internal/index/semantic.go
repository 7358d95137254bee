package index

import (
	"cmp"
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
func (x *Index) semantic(q Query) (Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), embedTimeout)
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
// query's file or folder, by cosine; the caller holds the lock.
func (x *Index) nearest(qv []float32, q Query, size int) search.DocumentMatchCollection {
	var out search.DocumentMatchCollection
	for rel, rec := range x.files {
		if (q.File != "" && rel != q.File) || (q.File == "" && !strings.HasPrefix(rel, q.Prefix)) {
			continue
		}
		for i, h := range rec.hashes {
			if v, ok := x.vec.byKey[h]; ok && len(v) == len(qv) {
				out = append(out, &search.DocumentMatch{ID: passageID(rel, i), Score: float64(dot(qv, v))})
			}
		}
	}
	slices.SortFunc(out, byScore)
	return out[:min(len(out), size)]
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
