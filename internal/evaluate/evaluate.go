// Package evaluate compares a job's requirements with a gold list: recall,
// precision and F1, matching requirements to gold items by the words their
// quotes share.
package evaluate

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"creator/internal/requirement"
)

// Gold is one item of a gold list: a quote of the source and its level
// (MUST, SHOULD, MAY).
type Gold struct {
	ID      string `json:"id,omitempty"`
	Quote   string `json:"quote"`
	Level   string `json:"level"`
	Section string `json:"section,omitempty"`
}

// ParseGold reads a gold list: a JSON array of items with quote and level.
func ParseGold(data []byte) ([]Gold, error) {
	var g []Gold
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("the gold list is not a JSON array of {quote, level}: %v", err)
	}
	for i, item := range g {
		if strings.TrimSpace(item.Quote) == "" {
			return nil, fmt.Errorf("gold item %d has no quote", i+1)
		}
	}
	return g, nil
}

// Threshold is the share of words two quotes must have in common (Jaccard
// index of their word sets) to match.
const Threshold = 0.5

// Strict bounds a matching quote's length: at most StrictFactor times the
// gold item's words plus StrictSlack. A quote that runs on over a whole
// paragraph shares half the words of many items without stating one.
const (
	StrictFactor = 1.5
	StrictSlack  = 8
)

// Options of a comparison.
type Options struct {
	// Strict counts a quote as matching only when it is at most
	// StrictFactor × the gold item's words + StrictSlack long.
	Strict bool
}

// Result are the figures of a comparison. Its JSON form is the output of
// `creator eval --json`.
type Result struct {
	Gold                int              `json:"gold"`
	Requirements        int              `json:"requirements"`
	MatchedGold         int              `json:"matched_gold"`
	MatchedRequirements int              `json:"matched_requirements"`
	Recall              float64          `json:"recall"`
	Precision           float64          `json:"precision"`
	F1                  float64          `json:"f1"`
	Threshold           float64          `json:"threshold"`
	ByLevel             map[string]Level `json:"by_level"`
	Strict              bool             `json:"strict,omitempty"`
	// SourceIDs is how many of the gold items found that have an id are
	// matched by a requirement carrying that id as its source_id.
	SourceIDs SourceIDs            `json:"source_ids"`
	Missed    []Gold               `json:"missed,omitempty"`
	Extra     []requirement.Record `json:"-"`
}

// SourceIDs counts the gold items found that have an id (Labelled) and
// those of them matched by a requirement whose source_id is that id
// (Right). Ids are equal when their letters and digits are, in any case
// ("MQTT-3.1.2-7" is "MQTT-3.1.2.7"), or when the gold's id is the
// requirement's behind a letter prefix ("V1.2.3" for the document's
// "1.2.3"): the same identifier in the gold list's notation.
type SourceIDs struct {
	Labelled int     `json:"labelled"`
	Right    int     `json:"right"`
	Share    float64 `json:"share"`
}

// Level is recall for the gold items of one level.
type Level struct {
	Gold    int     `json:"gold"`
	Matched int     `json:"matched"`
	Recall  float64 `json:"recall"`
}

// Evaluate matches requirements to gold items. A gold item is found when a
// quote of some requirement shares at least Threshold of their words; a
// requirement is right when one of its quotes matches some gold item.
func Evaluate(reqs []requirement.Record, gold []Gold) Result {
	return EvaluateWith(reqs, gold, Options{})
}

// EvaluateWith is Evaluate with options.
func EvaluateWith(reqs []requirement.Record, gold []Gold, opts Options) Result {
	type quoted struct {
		req   int
		words map[string]bool
		n     int // words, counted with repeats
	}
	var quotes []quoted
	index := map[string][]int{} // word → quotes containing it
	for i, r := range reqs {
		for _, c := range r.Citations {
			q := quoted{req: i, words: wordSet(c.Quote), n: len(words(c.Quote))}
			for w := range q.words {
				index[w] = append(index[w], len(quotes))
			}
			quotes = append(quotes, q)
		}
	}
	res := Result{Gold: len(gold), Requirements: len(reqs), Threshold: Threshold, ByLevel: map[string]Level{}, Strict: opts.Strict}
	reqMatched := make([]bool, len(reqs))
	for _, g := range gold {
		gw := wordSet(g.Quote)
		most := StrictFactor*float64(len(words(g.Quote))) + StrictSlack
		found, idRight := false, false
		seen := map[int]bool{}
		for w := range gw {
			for _, qi := range index[w] {
				if seen[qi] {
					continue
				}
				seen[qi] = true
				q := quotes[qi]
				if jaccard(gw, q.words) >= Threshold && (!opts.Strict || float64(q.n) <= most) {
					found = true
					reqMatched[q.req] = true
					idRight = idRight || SameID(g.ID, reqs[q.req].SourceID)
				}
			}
		}
		if found && g.ID != "" {
			res.SourceIDs.Labelled++
			if idRight {
				res.SourceIDs.Right++
			}
		}
		lv := res.ByLevel[g.Level]
		lv.Gold++
		if found {
			res.MatchedGold++
			lv.Matched++
		} else {
			res.Missed = append(res.Missed, g)
		}
		res.ByLevel[g.Level] = lv
	}
	for i, ok := range reqMatched {
		if ok {
			res.MatchedRequirements++
		} else {
			res.Extra = append(res.Extra, reqs[i])
		}
	}
	for k, lv := range res.ByLevel {
		lv.Recall = ratio(lv.Matched, lv.Gold)
		res.ByLevel[k] = lv
	}
	res.SourceIDs.Share = ratio(res.SourceIDs.Right, res.SourceIDs.Labelled)
	res.Recall = ratio(res.MatchedGold, res.Gold)
	res.Precision = ratio(res.MatchedRequirements, res.Requirements)
	if res.Recall+res.Precision > 0 {
		res.F1 = 2 * res.Recall * res.Precision / (res.Recall + res.Precision)
	}
	return res
}

// Levels returns the levels of a result in a stable order.
func (r Result) Levels() []string {
	var out []string
	for k := range r.ByLevel {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		return levelRank(out[i]) < levelRank(out[j]) || levelRank(out[i]) == levelRank(out[j]) && out[i] < out[j]
	})
	return out
}

func levelRank(l string) int {
	switch strings.ToUpper(l) {
	case "MUST":
		return 0
	case "SHOULD":
		return 1
	case "MAY":
		return 2
	}
	return 3
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// words are the lower-cased words (runs of letters and digits) of a text.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// wordSet is the set of a text's words.
func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range words(s) {
		set[w] = true
	}
	return set
}

// SameID reports whether a requirement's source_id names the gold item
// id: equal letters and digits in any case, or the gold id is the source
// id behind a prefix of letters (see SourceIDs).
func SameID(gold, source string) bool {
	g, s := idKey(gold), idKey(source)
	if g == "" || s == "" {
		return false
	}
	if g == s {
		return true
	}
	// A letter prefix written against the number: "V1.2.3", not "AC-2".
	rest := strings.TrimLeftFunc(strings.TrimSpace(gold), unicode.IsLetter)
	return rest != "" && unicode.IsDigit(rune(rest[0])) && idKey(rest) == s
}

func idKey(id string) string {
	return strings.Join(words(id), "")
}

func jaccard(a, b map[string]bool) float64 {
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
