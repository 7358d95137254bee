package evaluate

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteText writes a result as `creator eval` shows it: the figures, one
// per line, with what they count.
func WriteText(w io.Writer, res Result, goldName, jobID string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Gold list\t%s: %d items\n", goldName, res.Gold)
	fmt.Fprintf(tw, "Requirements\tjob %s: %d\n", jobID, res.Requirements)
	fmt.Fprintf(tw, "Recall\t%.3f  (%d of %d gold items found)\n", res.Recall, res.MatchedGold, res.Gold)
	fmt.Fprintf(tw, "Precision\t%.3f  (%d of %d requirements match a gold item)\n", res.Precision, res.MatchedRequirements, res.Requirements)
	fmt.Fprintf(tw, "F1\t%.3f\n", res.F1)
	for _, l := range res.Levels() {
		lv := res.ByLevel[l]
		fmt.Fprintf(tw, "Recall %s\t%.3f  (%d of %d)\n", l, lv.Recall, lv.Matched, lv.Gold)
	}
	if res.SourceIDs.Labelled > 0 {
		fmt.Fprintf(tw, "source_id\t%.3f  (%d of %d gold items found with an id carry it)\n", res.SourceIDs.Share, res.SourceIDs.Right, res.SourceIDs.Labelled)
	}
	match := fmt.Sprintf("quotes sharing at least %.0f%% of their words", 100*res.Threshold)
	if res.Strict {
		match += fmt.Sprintf(", at most %.1f× the gold item's words + %d", StrictFactor, StrictSlack)
	}
	fmt.Fprintf(tw, "Matching\t%s\n", match)
	return tw.Flush()
}
