package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Bounds of a search.
const (
	DefaultLimit = 10
	MaxLimit     = 50
	snippetChars = 220
	// regexCountCap stops counting regex hits beyond it.
	regexCountCap = 100_000
)

// Query is one search.
type Query struct {
	// Text is words and "quoted phrases" (ranked), or a regular expression
	// when Regex is set.
	Text string
	// Prefix keeps hits whose path starts with it ("chunks/"); File keeps
	// hits in that one file. Both are paths relative to the job folder.
	Prefix, File string
	Limit        int // default DefaultLimit, at most MaxLimit
	Regex        bool
	// Mode is how ranked words are matched: ModeKeyword, ModeSemantic or
	// ModeHybrid; empty is hybrid when the index has an embedder, else
	// keyword.
	Mode string
}

// Search modes.
const (
	ModeKeyword  = "keyword"  // BM25 over the words
	ModeSemantic = "semantic" // nearest passages in meaning
	ModeHybrid   = "hybrid"   // both, fused by reciprocal rank
)

// Hit is one place that matches.
type Hit struct {
	Path    string
	Line    int
	Snippet string // the line around the match, matches marked **like this**
	Score   float64
}

// Result is the best hits and how many matched in all.
type Result struct {
	Hits []Hit
	// Total counts every match: passages for a ranked search, lines for a
	// regular expression (up to a cap; Capped says it was reached).
	Total  int
	Capped bool
	// Mode is the mode that ranked the hits; Note says why it is not the
	// one asked for.
	Mode string
	Note string
}

// ErrEmptyQuery means there is nothing to search for.
var ErrEmptyQuery = errors.New("the query is empty: give words, \"a quoted phrase\", or a regular expression with regex: true")

// Search runs a query; ctx bounds it (the embedding calls of a semantic
// search, the files a regular expression is matched in).
func (x *Index) Search(ctx context.Context, q Query) (Result, error) {
	if strings.TrimSpace(q.Text) == "" {
		return Result{}, ErrEmptyQuery
	}
	if q.Limit <= 0 {
		q.Limit = DefaultLimit
	}
	q.Limit = min(q.Limit, MaxLimit)
	if q.Regex {
		return Scan(ctx, x.fsys, q)
	}
	switch q.Mode {
	case "":
		q.Mode = ModeKeyword
		if x.emb != nil {
			q.Mode = ModeHybrid
		}
	case ModeKeyword, ModeSemantic, ModeHybrid:
	default:
		return Result{}, fmt.Errorf("unknown search mode %q: use keyword, semantic or hybrid", q.Mode)
	}
	if q.Mode == ModeKeyword {
		return x.ranked(q)
	}
	if x.emb == nil {
		res, err := x.ranked(q)
		res.Note = q.Mode + " search needs an embedding model (--embed-model), which this job has not; these are keyword hits"
		return res, err
	}
	return x.semantic(ctx, q)
}

// terms is what a query looks for, as each analyser sees it.
type terms struct {
	en, de map[string]bool
}

func (x *Index) analyze(a analysis.Analyzer, s string) analysis.TokenStream {
	return a.Analyze([]byte(s))
}

var phraseRE = regexp.MustCompile(`"([^"]*)"`)

// ranked searches words and phrases, the best passages first.
func (x *Index) ranked(q Query) (Result, error) {
	phrases, words := splitQuery(q.Text)
	want := x.queryTerms(append(phrases, words))
	if len(want.en) == 0 {
		return Result{}, fmt.Errorf("the query %q has no words to search for (punctuation alone is not searchable); use regex: true to look for symbols", q.Text)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	found, total, err := x.bm25(q, phrases, words, q.Limit)
	if err != nil {
		return Result{}, err
	}
	return Result{Total: total, Hits: x.hits(found, want), Mode: ModeKeyword}, nil
}

// bm25 runs the keyword query for the best size passages; the caller
// holds the lock.
func (x *Index) bm25(q Query, phrases []string, words string, size int) (search.DocumentMatchCollection, int, error) {
	if x.bi == nil {
		return nil, 0, errors.New("the search index is closed")
	}
	x.refreshDirty()
	req := bleve.NewSearchRequestOptions(rankedQuery(q, phrases, words), size, 0, false)
	req.SortBy([]string{"-_score", "_id"}) // ties in a stable order
	res, err := x.bi.Search(req)
	if err != nil {
		return nil, 0, fmt.Errorf("the search failed: %w", err)
	}
	return res.Hits, int(res.Total), nil
}

// splitQuery separates the quoted phrases of a query from its loose words.
func splitQuery(text string) (phrases []string, words string) {
	for _, m := range phraseRE.FindAllStringSubmatch(text, -1) {
		if strings.TrimSpace(m[1]) != "" {
			phrases = append(phrases, m[1])
		}
	}
	words = strings.TrimSpace(strings.ReplaceAll(phraseRE.ReplaceAllString(text, " "), `"`, " "))
	return phrases, words
}

// queryTerms are the terms of the texts as each analyser makes them, to
// find the best line of a hit.
func (x *Index) queryTerms(texts []string) terms {
	want := terms{en: map[string]bool{}, de: map[string]bool{}}
	for _, s := range texts {
		for _, tok := range x.analyze(x.en, s) {
			want.en[string(tok.Term)] = true
		}
		for _, tok := range x.analyze(x.de, s) {
			want.de[string(tok.Term)] = true
		}
	}
	return want
}

// rankedQuery is the bleve query of a search: every phrase must match,
// the words in either language, within the file or folder asked for.
func rankedQuery(q Query, phrases []string, words string) query.Query {
	// Analysers are named: bleve would take the default one for a field
	// that shares its source property with another.
	var must []query.Query
	for _, p := range phrases {
		m := query.NewMatchPhraseQuery(p)
		m.SetField(fieldDE) // the field with positions
		m.Analyzer = analyzerDE
		must = append(must, m)
	}
	var should query.Query
	if words != "" {
		var either []query.Query
		for _, f := range [][2]string{{fieldEN, analyzerEN}, {fieldDE, analyzerDE}} {
			m := query.NewMatchQuery(words)
			m.SetField(f[0])
			m.Analyzer = f[1]
			either = append(either, m)
		}
		should = query.NewDisjunctionQuery(either)
	}
	switch {
	case q.File != "":
		t := query.NewTermQuery(q.File)
		t.SetField(fieldPath)
		must = append(must, t)
	case q.Prefix != "":
		p := query.NewPrefixQuery(q.Prefix)
		p.SetField(fieldPath)
		must = append(must, p)
	}
	if len(must) == 0 {
		return should
	}
	b := query.NewBooleanQuery(must, nil, nil)
	if should != nil {
		if len(phrases) == 0 {
			// Words alone must match; the path only filters.
			b = query.NewBooleanQuery(append(must, should), nil, nil)
		} else {
			b.AddShould(should)
		}
	}
	return b
}

// hits turns bleve's hits, passages of files, into hits on the best line
// of each passage.
func (x *Index) hits(found search.DocumentMatchCollection, want terms) []Hit {
	var out []Hit
	cache := map[string][]passage{}
	for _, h := range found {
		rel, i, ok := parsePassageID(h.ID)
		if !ok {
			continue
		}
		ps, ok := cache[rel]
		if !ok {
			if text, isText, err := readText(x.fsys, rel, 0); err == nil && isText {
				ps = passages(text)
			}
			cache[rel] = ps
		}
		hit := Hit{Path: rel, Score: h.Score, Line: 1}
		if i < len(ps) {
			hit.Line, hit.Snippet = x.bestLine(ps[i], want)
		}
		out = append(out, hit)
	}
	return out
}

// bestLine finds the line of a passage with the most query terms and marks
// them. The English analysis comes first; the German one, which folds
// umlauts, only when the English one finds nothing (it halves the work of
// a typical hit).
func (x *Index) bestLine(p passage, want terms) (int, string) {
	ls := lines(p.text)
	if len(ls) == 0 {
		return p.line, ""
	}
	for _, g := range []struct {
		a    analysis.Analyzer
		want map[string]bool
	}{{x.en, want.en}, {x.de, want.de}} {
		best, bestN, bestMarks := 0, 0, [][2]int(nil)
		for i, l := range ls {
			marks, n := marks(x.analyze(g.a, l), g.want)
			if n > bestN {
				best, bestN, bestMarks = i, n, marks
			}
		}
		if bestN > 0 {
			return p.line + best, snippet(ls[best], bestMarks)
		}
	}
	return p.line, snippet(ls[0], nil)
}

// marks returns the byte spans of the tokens that are query terms, and how
// many distinct terms matched.
func marks(tokens analysis.TokenStream, want map[string]bool) ([][2]int, int) {
	var spans [][2]int
	distinct := map[string]bool{}
	for _, t := range tokens {
		if term := string(t.Term); want[term] {
			spans = append(spans, [2]int{t.Start, t.End})
			distinct[term] = true
		}
	}
	return spans, len(distinct)
}

// snippet cuts a line around its first mark and marks the matches.
func snippet(line string, spans [][2]int) string {
	line = strings.TrimRight(line, "\r")
	from, to := 0, len(line)
	if len(line) > snippetChars {
		center := 0
		if len(spans) > 0 {
			center = spans[0][0]
		}
		from = max(0, center-snippetChars/3)
		to = min(len(line), from+snippetChars)
		from = max(0, min(from, to-snippetChars))
		for from > 0 && !utf8.RuneStart(line[from]) {
			from--
		}
		for to < len(line) && !utf8.RuneStart(line[to]) {
			to++
		}
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	at := from
	for _, s := range spans {
		if s[0] < at || s[1] > to || s[1] > len(line) {
			continue
		}
		b.WriteString(line[at:s[0]])
		b.WriteString("**" + line[s[0]:s[1]] + "**")
		at = s[1]
	}
	b.WriteString(line[at:to])
	if to < len(line) {
		b.WriteString("…")
	}
	return strings.TrimSpace(b.String())
}

// Scan is the regular-expression search, which needs no index: every
// indexable file under the path, line by line, in path order. It stops
// with ctx's error when ctx ends.
func Scan(ctx context.Context, fsys fs.FS, q Query) (Result, error) {
	if strings.TrimSpace(q.Text) == "" {
		return Result{}, ErrEmptyQuery
	}
	if q.Limit <= 0 {
		q.Limit = DefaultLimit
	}
	q.Limit = min(q.Limit, MaxLimit)
	re, err := regexp.Compile(q.Text)
	if err != nil {
		return Result{}, fmt.Errorf("invalid regular expression: %v (RE2 syntax; (?i) ignores case)", err)
	}
	var out Result
	root := "."
	if q.File != "" {
		root = q.File
	} else if q.Prefix != "" {
		if dir := strings.TrimSuffix(q.Prefix, "/"); isDir(fsys, dir) {
			root = dir
		}
	}
	var names []string
	err = fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil
		}
		if !Indexable(p) && p != "." {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && (q.Prefix == "" || strings.HasPrefix(p, q.Prefix)) {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return Result{}, fmt.Errorf("cannot scan %s: %w", root, err)
	}
	sort.Strings(names)
	for _, p := range names {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		fi, err := fs.Stat(fsys, p)
		if err != nil {
			continue
		}
		text, ok, err := readText(fsys, p, fi.Size())
		if err != nil || !ok {
			continue
		}
		text = strings.TrimSuffix(text, "\n")
		for i, rest, more := 0, text, text != ""; more; i++ {
			var l string
			l, rest, more = strings.Cut(rest, "\n")
			if !re.MatchString(l) {
				continue
			}
			out.Total++
			if len(out.Hits) < q.Limit {
				out.Hits = append(out.Hits, Hit{Path: p, Line: i + 1, Snippet: snippet(l, matchSpans(re, l))})
			}
			if out.Total >= regexCountCap {
				out.Capped = true
				return out, nil
			}
		}
	}
	return out, nil
}

// maxSpans bounds the matches of a line that are marked: a snippet shows
// snippetChars of the line, and a line may be a whole file of 16 MB with a
// match in every word.
const maxSpans = 4 * snippetChars

// matchSpans are the non-empty matches of re in line, the first maxSpans
// matches at most.
func matchSpans(re *regexp.Regexp, line string) [][2]int {
	locs := re.FindAllStringIndex(line, maxSpans)
	spans := make([][2]int, 0, len(locs))
	for _, loc := range locs {
		if loc[1] > loc[0] {
			spans = append(spans, [2]int{loc[0], loc[1]})
		}
	}
	return spans
}

func isDir(fsys fs.FS, p string) bool {
	fi, err := fs.Stat(fsys, p)
	return err == nil && fi.IsDir()
}

// ScanOnly searches a folder without an index: regular expressions only. It
// stands in when the index cannot be opened.
type ScanOnly struct {
	FS     fs.FS
	Reason error
}

// Search runs a regular-expression query; a ranked one is an error that
// says why and what to do instead.
func (s ScanOnly) Search(ctx context.Context, q Query) (Result, error) {
	if q.Regex {
		return Scan(ctx, s.FS, q)
	}
	return Result{}, fmt.Errorf("ranked search is unavailable (%v); search with regex: true instead", s.Reason)
}
