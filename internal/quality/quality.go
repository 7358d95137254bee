// Package quality is the scoreboard of the built-in model: per document
// of the corpus, its requirements against the document's gold list
// (strict recall and precision, the share of labelled items with the
// right source_id), the time taken, and the defects of its quotes that no
// gold list shows (margin line numbers, markup). `make quality` prints it
// and CI fails when a document falls below its floor.
package quality

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"creator/internal/evaluate"
	"creator/internal/requirement"
)

// Floors are the least figures a document must reach. Labelled says the
// gold list's ids are the document's own (not numbered by the list's
// maker), so that source_id is measured; Precision is 0 where a gold list
// holds only some kind of statement (those a document tags), so that
// precision against it is a lower bound and is not held.
type Floors struct {
	Recall, Precision, SourceID float64
	Labelled                    bool
}

// Row is the scoreboard's line for one document.
type Row struct {
	Document     string
	Requirements int
	Result       evaluate.Result // strict
	Floors       Floors
	Time         time.Duration
	// Defects are quotes holding what extraction should have removed.
	Defects []string
	// Note says what the figures mean where a floor is not held.
	Note string
}

// Score compares a job's requirements with a gold list, strictly, and
// checks its quotes; ref is a reference text of the document (pdftotext's
// for a PDF), or "" when there is none.
func Score(doc string, recs []requirement.Record, gold []evaluate.Gold, ref string, floors Floors, took time.Duration) Row {
	row := Row{Document: doc, Requirements: len(recs), Floors: floors, Time: took,
		Result: evaluate.EvaluateWith(recs, gold, evaluate.Options{Strict: true})}
	marks := MarginNumbers(ref)
	for _, r := range recs {
		for _, c := range r.Citations {
			if d := QuoteDefect(c.Quote, marks); d != "" {
				row.Defects = append(row.Defects, fmt.Sprintf("%s: %s in %q", r.ID, d, c.Quote))
			}
		}
	}
	return row
}

// Failures are the floors a row misses and its defects, one sentence each.
func (r Row) Failures() []string {
	var out []string
	res := r.Result
	if res.Recall < r.Floors.Recall {
		out = append(out, fmt.Sprintf("%s: strict recall %.3f is below its floor %.2f", r.Document, res.Recall, r.Floors.Recall))
	}
	if res.Precision < r.Floors.Precision {
		out = append(out, fmt.Sprintf("%s: strict precision %.3f is below its floor %.2f", r.Document, res.Precision, r.Floors.Precision))
	}
	if r.Floors.Labelled && res.SourceIDs.Share < r.Floors.SourceID {
		out = append(out, fmt.Sprintf("%s: source_id %.3f (%d of %d) is below its floor %.2f", r.Document, res.SourceIDs.Share, res.SourceIDs.Right, res.SourceIDs.Labelled, r.Floors.SourceID))
	}
	for i, d := range r.Defects {
		if i == 5 {
			out = append(out, fmt.Sprintf("%s: %d more quotes with defects", r.Document, len(r.Defects)-5))
			break
		}
		out = append(out, r.Document+": "+d)
	}
	return out
}

// Write prints the scoreboard: a Markdown table, one row a document, then
// the notes of the rows that have one.
func Write(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "| document\t requirements\t strict recall\t strict precision\t source_id\t defects\t time\t")
	fmt.Fprintln(tw, "|---\t---\t---\t---\t---\t---\t---\t")
	var notes []string
	for _, r := range rows {
		res := r.Result
		id := "-"
		if r.Floors.Labelled {
			id = fmt.Sprintf("%.3f (%d/%d)", res.SourceIDs.Share, res.SourceIDs.Right, res.SourceIDs.Labelled)
		}
		prec := fmt.Sprintf("%.3f", res.Precision)
		if r.Floors.Precision == 0 {
			prec += " *"
		}
		fmt.Fprintf(tw, "| %s\t %d\t %.3f (%d/%d)\t %s\t %s\t %d\t %.1f s\t\n", r.Document, r.Requirements,
			res.Recall, res.MatchedGold, res.Gold, prec, id, len(r.Defects), r.Time.Seconds())
		if r.Note != "" {
			notes = append(notes, "* "+r.Document+": "+r.Note)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	return nil
}

// MarginNumbers reads, from a reference text that keeps a document's
// margin line numbers (pdftotext's of a line-numbered PDF), each number
// with the word after it: "1113 network". A line number is a number at
// a line's start whose neighbours, a line or three away, carry the next
// or the previous number — section and list numbers stand further apart.
func MarginNumbers(ref string) map[string]bool {
	type start struct {
		n    int
		word string
	}
	lines := strings.Split(ref, "\n")
	starts := make([]start, len(lines))
	for i, l := range lines {
		if m := lineStartRE.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			fmt.Sscan(m[1], &starts[i].n)
			starts[i].word = strings.ToLower(m[2])
		}
	}
	marks := map[string]bool{}
	for i, s := range starts {
		if s.n == 0 || s.word == "" {
			continue
		}
		for j := max(0, i-3); j <= min(len(starts)-1, i+3); j++ {
			if d := starts[j].n - s.n; j != i && starts[j].n > 0 && (d == j-i) {
				marks[fmt.Sprintf("%d %s", s.n, s.word)] = true
				break
			}
		}
	}
	return marks
}

var (
	lineStartRE = regexp.MustCompile(`^(\d{1,5})\s+(\S+)`)
	numberWord  = regexp.MustCompile(`\b(\d{1,5})\s+(\S+)`)
	// Markup that rendering a Markdown or HTML document removes.
	markupRE = regexp.MustCompile(`<!--|\*\*|\]\((?:[a-z][a-z0-9+.-]*:|/|\.\.?/|#)|!\[|(?:^|\n)#{1,6}\s|(?:^|[\s(])_[^_\s][^_]*_(?:[\s.,:;)]|$)`)
)

// QuoteDefect names what a quote holds that extraction should have
// removed: a margin line number (one of marks, from MarginNumbers), or
// Markdown or HTML markup; "" for a clean quote.
func QuoteDefect(quote string, marks map[string]bool) string {
	if m := markupRE.FindString(quote); m != "" {
		return fmt.Sprintf("markup %q", strings.TrimSpace(m))
	}
	for _, m := range numberWord.FindAllStringSubmatch(quote, -1) {
		if marks[m[1]+" "+strings.ToLower(m[2])] {
			return fmt.Sprintf("margin line number %q", m[1])
		}
	}
	return ""
}
