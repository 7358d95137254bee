// Package output checks and builds the job's result files.
package output

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// RequirementsFile is the job's result, relative to the job folder.
const RequirementsFile = "output/requirements.json"

// ValidateRequirements checks the content of output/requirements.json: a
// JSON array of requirement objects, each with an id, a text and at least
// one citation that carries a quote.
func ValidateRequirements(data []byte) error {
	var reqs []map[string]json.RawMessage
	if err := json.Unmarshal(data, &reqs); err != nil {
		return fmt.Errorf("%s is not a JSON array of requirement objects: %v", RequirementsFile, err)
	}
	var problems []string
	for i, r := range reqs {
		where := fmt.Sprintf("requirement %d", i+1)
		var id, text string
		if json.Unmarshal(r["id"], &id) != nil || id == "" {
			problems = append(problems, where+" has no id")
		} else {
			where = id
		}
		if json.Unmarshal(r["text"], &text) != nil || strings.TrimSpace(text) == "" {
			problems = append(problems, where+" has no text")
		}
		var cits []struct {
			Quote string `json:"quote"`
		}
		if json.Unmarshal(r["citations"], &cits) != nil || len(cits) == 0 {
			problems = append(problems, where+" has no citations")
			continue
		}
		for _, c := range cits {
			if strings.TrimSpace(c.Quote) == "" {
				problems = append(problems, where+" has a citation without a quote")
			}
		}
	}
	if len(problems) > 0 {
		if len(problems) > 10 {
			problems = append(problems[:10], fmt.Sprintf("and %d more problems", len(problems)-10))
		}
		return errors.New(RequirementsFile + ": " + strings.Join(problems, "; "))
	}
	return nil
}
