package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"creator/internal/index"
	"creator/workspace"
)

// Searcher searches the job's files; ctx bounds a search.
type Searcher interface {
	Search(ctx context.Context, q index.Query) (index.Result, error)
}

// SearchTools returns search_files over the searcher.
func SearchTools(files *workspace.Files, s Searcher) []Tool {
	st := &searchTools{files: files, s: s}
	opts := &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[searchMode](): enum([]string{index.ModeHybrid, index.ModeKeyword, index.ModeSemantic}),
	}}
	return []Tool{
		FuncWith("search_files", `Search every text file of the job folder (chunks, notes, candidates, requirements, extracted text) and get path:line hits with the match marked. Words are ranked by relevance (BM25), English and German alike (umlauts match ae/oe/ue and plain vowels, word endings are stemmed); "quoted phrases" must occur as written. When the job has an embedding model, mode semantic finds passages near in meaning even without the words, and hybrid (the default then) fuses both rankings. With regex: true the query is a regular expression (RE2; (?i) ignores case) matched line by line instead. Use it to find a term, a section or a note again instead of re-reading files; then read_file with offset near the line.`, opts, st.search),
	}
}

type searchTools struct {
	files *workspace.Files
	s     Searcher
}

type searchArgs struct {
	Query string     `json:"query" jsonschema:"words and \"quoted phrases\", e.g. retention \"ten years\"; with regex true a regular expression"`
	Path  string     `json:"path,omitempty" jsonschema:"only this folder or file, e.g. chunks/ or notes/document.md (default: the whole job folder)"`
	Limit int        `json:"limit,omitempty" jsonschema:"number of hits to show (default 10, at most 50)"`
	Regex bool       `json:"regex,omitempty" jsonschema:"match the query as a regular expression, line by line, instead of ranked words"`
	Mode  searchMode `json:"mode,omitempty" jsonschema:"how ranked words match: keyword (BM25), semantic (by meaning) or hybrid (both); default hybrid when the job has an embedding model, else keyword"`
}

// searchMode is index.ModeKeyword, ModeSemantic or ModeHybrid.
type searchMode string

func (st *searchTools) search(ctx context.Context, a searchArgs) (string, error) {
	if a.Limit < 0 {
		return "", errors.New("limit cannot be negative")
	}
	q := index.Query{Text: a.Query, Limit: a.Limit, Regex: a.Regex, Mode: string(a.Mode)}
	if p := strings.TrimSpace(a.Path); p != "" {
		rel, err := st.files.Resolve(p, workspace.Read)
		if err != nil {
			return "", err
		}
		if rel != "." && !index.Indexable(rel) {
			return "", fmt.Errorf("path %q is not searched: .agent/ holds the program's state, not the job's files", a.Path)
		}
		fi, err := fs.Stat(st.files.FS(), rel)
		switch {
		case rel == ".":
		case err == nil && fi.IsDir():
			q.Prefix = rel + "/"
		case err == nil:
			q.File = rel
		default:
			// Not a file or folder: a prefix of names, e.g. chunks/chunk_01.
			q.Prefix = rel
		}
	}
	res, err := st.s.Search(ctx, q)
	if err != nil {
		return "", err
	}
	return formatHits(a, res), nil
}

func formatHits(a searchArgs, res index.Result) string {
	var b strings.Builder
	if res.Note != "" {
		b.WriteString("(" + res.Note + ")\n")
	}
	where := ""
	if a.Path != "" {
		where = " in " + strings.TrimSpace(a.Path)
	}
	if len(res.Hits) == 0 {
		if a.Regex {
			return fmt.Sprintf("no line matches /%s/%s", a.Query, where)
		}
		return b.String() + fmt.Sprintf("no hits for %s%s; try other words, a shorter phrase, or regex: true", a.Query, where)
	}
	for _, h := range res.Hits {
		fmt.Fprintf(&b, "%s:%d: %s", h.Path, h.Line, h.Snippet)
		if !a.Regex {
			fmt.Fprintf(&b, " (score %.2f)", h.Score)
		}
		b.WriteByte('\n')
	}
	more := res.Total - len(res.Hits)
	unit := "passages"
	if a.Regex {
		unit = "lines"
	}
	switch {
	case res.Mode == index.ModeSemantic:
		fmt.Fprintf(&b, "the passages nearest in meaning; raise limit (at most %d) for more\n", index.MaxLimit)
	case res.Capped:
		fmt.Fprintf(&b, "more than %d matching %s in all; narrow the pattern or the path\n", res.Total, unit)
	case more > 0 && len(res.Hits) < index.MaxLimit:
		fmt.Fprintf(&b, "%d more matching %s; narrow the query or the path, or raise limit (at most %d)\n", more, unit, index.MaxLimit)
	case more > 0:
		fmt.Fprintf(&b, "%d more matching %s; narrow the query or the path\n", more, unit)
	default:
		b.WriteString("no further hits\n")
	}
	if a.Limit > index.MaxLimit {
		fmt.Fprintf(&b, "(limit is at most %d)\n", index.MaxLimit)
	}
	return b.String()
}
