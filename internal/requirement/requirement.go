// Package requirement defines the requirement record, validates it against
// the JSON Schema shipped with the program, and checks citation quotes
// against the text they cite.
package requirement

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"creator/internal/humanize"
	"creator/internal/schemaerr"
)

// Record is one requirement (docs/requirements.md, "The record"). output/requirements.json is an
// array of them; requirements/req_NNN/final.json holds one.
type Record struct {
	ID string `json:"id"`
	// SourceID is the document's own id of the requirement ("V1.2.3",
	// "BK-01", "4.2.1"); empty when the document gives none.
	SourceID   string     `json:"source_id,omitempty"`
	Title      string     `json:"title"`
	Text       string     `json:"text"`
	Type       string     `json:"type"`
	Category   string     `json:"category"`
	Priority   string     `json:"priority"`
	Frameworks []string   `json:"frameworks"`
	Citations  []Citation `json:"citations"`
	Confidence float64    `json:"confidence"`
	Rationale  string     `json:"rationale"`
	// Attributes are the document's columns of the requirement, name →
	// value ({"level": "2", "priority": "High"}); nil when it gives none.
	Attributes map[string]string `json:"attributes,omitempty"`
	// Review is a person's decision on the requirement; nil until it is
	// reviewed (docs/review.md).
	Review *Review `json:"review,omitempty"`
}

// Review is a person's decision on a requirement.
type Review struct {
	// Status is the last decision: one of ReviewDecisions.
	Status string `json:"status"`
	// Note is the reviewer's note; a rejection's reason.
	Note string `json:"note,omitempty"`
	// By names the reviewer, when known.
	By string `json:"by,omitempty"`
	// At is when the decision was made (RFC 3339, UTC).
	At string `json:"at"`
	// Changes are the fields a reviewer changed, each with the value the
	// extraction gave it; kept across later decisions.
	Changes map[string]Change `json:"changes,omitempty"`
}

// Change is an edited field: the extracted value and the value now.
type Change struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Review statuses. A requirement without a review is Pending.
const (
	Pending  = "pending"
	Accepted = "accepted"
	Rejected = "rejected"
	Edited   = "edited"
)

// Tally counts records by review status.
type Tally struct {
	Total int `json:"total"`
	// Reviewed counts the records with a decision.
	Reviewed int `json:"reviewed"`
	Accepted int `json:"accepted"`
	Edited   int `json:"edited"`
	Rejected int `json:"rejected"`
	Pending  int `json:"pending"`
}

// TallyOf counts the review statuses of recs.
func TallyOf(recs []Record) Tally {
	t := Tally{Total: len(recs)}
	for _, r := range recs {
		switch r.ReviewStatus() {
		case Accepted:
			t.Accepted++
		case Edited:
			t.Edited++
		case Rejected:
			t.Rejected++
		default:
			t.Pending++
		}
	}
	t.Reviewed = t.Total - t.Pending
	return t
}

// String says it in one line: "3 of 20 reviewed: 1 accepted, 1 edited, 1 rejected".
func (t Tally) String() string {
	s := fmt.Sprintf("%d of %d reviewed", t.Reviewed, t.Total)
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{t.Accepted, Accepted}, {t.Edited, Edited}, {t.Rejected, Rejected}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return s
}

// ReviewDecisions are the decisions a reviewer can make.
var ReviewDecisions = []string{Accepted, Rejected, Edited}

// ReviewStatus is the record's review status: Pending without a review.
func (r Record) ReviewStatus() string {
	if r.Review == nil {
		return Pending
	}
	return r.Review.Status
}

// ReviewNote is the reviewer's note, a rejection's reason; empty until
// reviewed.
func (r Record) ReviewNote() string {
	if r.Review == nil {
		return ""
	}
	return r.Review.Note
}

// Approved reports whether a reviewer accepted the requirement, with or
// without edits.
func (r Record) Approved() bool {
	s := r.ReviewStatus()
	return s == Accepted || s == Edited
}

// Citation points at the source text of a requirement.
type Citation struct {
	Document string `json:"document"`
	Chunk    string `json:"chunk"`
	Page     int    `json:"page,omitempty"`
	Quote    string `json:"quote"`
}

// MaxTitleLength bounds a title, in characters (the schema's maxLength).
const MaxTitleLength = 80

// Bounds of the document's id and columns of a requirement (the schema's
// maxLength and maxProperties): an id or a column name is short, a
// column's value at most a sentence or two.
const (
	MaxSourceIDLength       = 100
	MaxAttributes           = 20
	MaxAttributeNameLength  = 100
	MaxAttributeValueLength = 500
)

// The allowed values of the enumerated fields.
var (
	Types      = []string{"obligation", "prohibition", "permission", "recommendation"}
	Categories = []string{"functional", "non_functional", "constraint", "compliance"}
	Priorities = []string{"high", "medium", "low"}
)

// Schema is the JSON Schema of a record (draft 2020-12).
//
//go:embed schema.json
var Schema []byte

var resolved = func() *jsonschema.Resolved {
	var s jsonschema.Schema
	if err := json.Unmarshal(Schema, &s); err != nil {
		panic("requirement schema: " + err.Error())
	}
	r, err := s.Resolve(nil)
	if err != nil {
		panic("requirement schema: " + err.Error())
	}
	return r
}()

// Validate checks one record, given as JSON, against the schema. The error
// names the field and the problem.
func Validate(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("not valid JSON: %v", err)
	}
	if err := resolved.Validate(v); err != nil {
		return errors.New(schemaerr.Explain(err, schemaerr.Record))
	}
	return nil
}

// ValidateList checks the content of output/requirements.json: an array
// of valid records with unique ids.
func ValidateList(data []byte) error {
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return fmt.Errorf("not a JSON array of requirements: %v", err)
	}
	seen := map[string]bool{}
	var problems []string
	for i, item := range items {
		where := fmt.Sprintf("requirement %d", i+1)
		var head struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(item, &head) == nil && head.ID != "" {
			where = head.ID
			if seen[head.ID] {
				problems = append(problems, head.ID+" appears twice")
			}
			seen[head.ID] = true
		}
		if err := Validate(item); err != nil {
			problems = append(problems, where+": "+err.Error())
		}
	}
	if len(problems) > 0 {
		if len(problems) > 10 {
			problems = append(problems[:10], fmt.Sprintf("and %d more", len(problems)-10))
		}
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// Marshal renders a record, a list of them or another file of the job
// (the chunk manifest) as indented JSON with a final newline.
func Marshal(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// TypeCounts says how many records there are of each type, in the order of
// Types: ["3 obligations", "1 permission"]; types without records are left
// out.
func TypeCounts(records []Record) []string {
	counts := map[string]int{}
	for _, r := range records {
		counts[r.Type]++
	}
	var parts []string
	for _, t := range Types {
		if counts[t] > 0 {
			parts = append(parts, humanize.Plural(counts[t], t))
		}
	}
	return parts
}
