package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"creator/internal/evaluate"
	"creator/internal/output"
	"creator/internal/requirement"
)

type evalOptions struct {
	*globalOptions
	jobID  string
	gold   string
	json   bool
	strict bool
}

func newEvalCmd(g *globalOptions) *cobra.Command {
	o := &evalOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "eval --job ID --gold GOLD.json [--json]",
		Short: "Compare a job's requirements with a gold list",
		Long: `Compare output/requirements.json of a job with a gold list (a JSON array of
items with "quote" and "level", e.g. MUST/SHOULD/MAY) and print recall,
precision and F1. A gold item is found when the quote of a requirement shares
at least half of their words with it (Jaccard index of the word sets); a
requirement is right when one of its quotes matches some gold item. With
--strict a quote matches only when it is at most 1.5 times the gold item's
words plus 8 long: a quote that runs on over a paragraph does not count.
Where gold items have ids, it also says how many of those found are matched
by a requirement whose source_id is the item's id.

--json prints the figures as one object: gold, requirements, matched_gold,
matched_requirements, recall, precision, f1, threshold, strict,
by_level{LEVEL: {gold, matched, recall}}, source_ids{labelled, right,
share}, missed[{quote, level, …}].`,
		Example: `  creator eval --job rfc --gold rfc9000.gold.json
  creator eval --job rfc --gold rfc9000.gold.json --json | jq .f1`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runEval(o) },
	}
	cmd.Flags().StringVar(&o.jobID, "job", "", "the job to evaluate")
	completeJobs(cmd, o.globalOptions)
	cmd.Flags().StringVar(&o.gold, "gold", "", "the gold list (JSON)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	cmd.Flags().BoolVar(&o.strict, "strict", false, "count a quote only when it is at most 1.5× the gold item's words + 8")
	return cmd
}

func runEval(o *evalOptions) error {
	if o.gold == "" {
		return usageErrorf("--gold is required")
	}
	j, err := o.openView(o.jobID)
	if err != nil {
		return err
	}
	defer j.Close()
	data, err := j.ReadFile(output.RequirementsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("job '%s' has no %s yet; it is written when the job finishes (finalize_output)", j.ID, output.RequirementsFile)
	}
	if err != nil {
		return err
	}
	var reqs []requirement.Record
	if err := json.Unmarshal(data, &reqs); err != nil {
		return fmt.Errorf("%s of job '%s' is not valid: %v", output.RequirementsFile, j.ID, err)
	}
	raw, err := os.ReadFile(o.gold)
	if err != nil {
		return err
	}
	gold, err := evaluate.ParseGold(raw)
	if err != nil {
		return err
	}
	res := evaluate.EvaluateWith(reqs, gold, evaluate.Options{Strict: o.strict})
	if o.json {
		return writeJSON(o.streams.Out, res)
	}
	return evaluate.WriteText(o.streams.Out, res, filepath.Base(o.gold), j.ID)
}
