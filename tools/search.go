package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"creator/internal/index"
	"creator/workspace"
)

// Searcher searches the job's files.
type Searcher interface {
	Search(index.Query) (index.Result, error)
}

// SearchTools returns search_files over the searcher.
func SearchTools(files *workspace.Files, s Searcher) []Tool {
	st := &searchTools{files: files, s: s}
	return []Tool{
		Func("search_files", `Search every text file of the job folder (chunks, notes, candidates, requirements, extracted text) and get path:line hits with the match marked. Words are ranked by relevance (BM25), English and German alike (umlauts match ae/oe/ue and plain vowels, word endings are stemmed); "quoted phrases" must occur as written. With regex: true the query is a regular expression (RE2; (?i) ignores case) matched line by line instead. Use it to find a term, a section or a note again instead of re-reading files; then read_file with offset near the line.`, st.search),
	}
}

type searchTools struct {
	files *workspace.Files
	s     Searcher
}

type searchArgs struct {
	Query string `json:"query" jsonschema:"words and \"quoted phrases\", e.g. retention \"ten years\"; with regex true a regular expression"`
	Path  string `json:"path,omitempty" jsonschema:"only this folder or file, e.g. chunks/ or notes/document.md (default: the whole job folder)"`
	Limit int    `json:"limit,omitempty" jsonschema:"number of hits to show (default 10, at most 50)"`
	Regex bool   `json:"regex,omitempty" jsonschema:"match the query as a regular expression, line by line, instead of ranked words"`
}

func (st *searchTools) search(ctx context.Context, a searchArgs) (string, error) {
	if a.Limit < 0 {
		return "", errors.New("limit cannot be negative")
	}
	q := index.Query{Text: a.Query, Limit: a.Limit, Regex: a.Regex}
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
	res, err := st.s.Search(q)
	if err != nil {
		return "", err
	}
	return formatHits(a, res), nil
}

func formatHits(a searchArgs, res index.Result) string {
	var b strings.Builder
	where := ""
	if a.Path != "" {
		where = " in " + strings.TrimSpace(a.Path)
	}
	if len(res.Hits) == 0 {
		if a.Regex {
			return fmt.Sprintf("no line matches /%s/%s", a.Query, where)
		}
		return fmt.Sprintf("no hits for %s%s; try other words, a shorter phrase, or regex: true", a.Query, where)
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
