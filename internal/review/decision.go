package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"creator/internal/requirement"
)

// Decision is a reviewer's decision on one requirement, as the API takes it.
type Decision struct {
	// Decision is accepted, rejected or edited.
	Decision string `json:"decision"`
	// Note is the reviewer's note; required for a rejection (its reason).
	Note string `json:"note,omitempty"`
	// Changes are the new values of edited fields, for decision edited.
	Changes map[string]string `json:"changes,omitempty"`
	// Reviewer names who decides; empty: the review's default reviewer,
	// and without one the decision is refused.
	Reviewer string `json:"reviewer,omitempty"`
	// Version, when given, is the requirement's version the decision was
	// taken on: another version is a conflict, and nothing is changed.
	Version *int `json:"version,omitempty"`
}

// decisions are the decisions a reviewer can make: those a record keeps,
// and pending, which takes a requirement back to its extracted values.
var decisions = append(slices.Clone(requirement.ReviewDecisions), requirement.Pending)

// InputError is a decision that cannot be taken as given: nothing was
// changed.
type InputError struct {
	msg string
}

func (e *InputError) Error() string { return e.msg }

func inputErrorf(format string, a ...any) error {
	return &InputError{fmt.Sprintf(format, a...)}
}

// editable are the fields a reviewer can change: where each stands in a
// record and, for an enumerated field, the values it takes.
var editable = []struct {
	name    string
	of      func(*requirement.Record) *string
	allowed []string
}{
	{"title", func(r *requirement.Record) *string { return &r.Title }, nil},
	{"text", func(r *requirement.Record) *string { return &r.Text }, nil},
	{"type", func(r *requirement.Record) *string { return &r.Type }, requirement.Types},
	{"category", func(r *requirement.Record) *string { return &r.Category }, requirement.Categories},
	{"priority", func(r *requirement.Record) *string { return &r.Priority }, requirement.Priorities},
}

// Editable are the names of the fields a reviewer can change.
var Editable = func() []string {
	names := make([]string, len(editable))
	for i, f := range editable {
		names[i] = f.name
	}
	return names
}()

// field is the place of editable field name in r; nil for another name.
func field(r *requirement.Record, name string) *string {
	i := slices.Index(Editable, name)
	if i < 0 {
		return nil
	}
	return editable[i].of(r)
}

// allowedValues are the values of an enumerated editable field; nil for
// free text and other names.
func allowedValues(name string) []string {
	if i := slices.Index(Editable, name); i >= 0 {
		return editable[i].allowed
	}
	return nil
}

// maxNote bounds a note, in characters.
const maxNote = 4000

// maxEditedText bounds an edited text, in bytes of UTF-8 (8 kB); the title
// has its own bound, requirement.MaxTitleLength.
const maxEditedText = 8 << 10

// maxBody bounds a decision's JSON, in bytes.
const maxBody = 1 << 20

// ParseDecision reads a decision's JSON strictly: unknown fields, values of
// the wrong type and trailing data are errors that say what is wrong.
func ParseDecision(r io.Reader) (Decision, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	if err != nil {
		return Decision{}, inputErrorf("cannot read the request body: %v", err)
	}
	if len(data) > maxBody {
		return Decision{}, inputErrorf("the request body is over %d bytes", maxBody)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Decision{}, inputErrorf(`the request body is empty; send {"decision": "accepted"|"rejected"|"edited", "note": "...", "changes": {...}}`)
	}
	var raw struct {
		Decision *string        `json:"decision"`
		Note     *string        `json:"note"`
		Changes  map[string]any `json:"changes"`
		Reviewer *string        `json:"reviewer"`
		Version  *int           `json:"version"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return Decision{}, inputErrorf("the request body is not a decision: %s", jsonProblem(err))
	}
	if dec.More() {
		return Decision{}, inputErrorf("the request body holds more than one JSON value")
	}
	var d Decision
	if raw.Decision == nil {
		return d, inputErrorf(`"decision" is missing: use one of %s`, strings.Join(decisions, ", "))
	}
	d.Decision = decisionName(*raw.Decision)
	d.Version = raw.Version
	if raw.Reviewer != nil {
		d.Reviewer = strings.TrimSpace(*raw.Reviewer)
	}
	if raw.Note != nil {
		note, err := typedText(`"note"`, *raw.Note)
		if err != nil {
			return d, err
		}
		d.Note = strings.TrimSpace(note)
	}
	if len(raw.Changes) > 0 {
		d.Changes = map[string]string{}
	}
	for _, field := range slices.Sorted(maps.Keys(raw.Changes)) {
		s, ok := raw.Changes[field].(string)
		if !ok {
			return d, inputErrorf("changes.%s must be a string", field)
		}
		s, err := typedText("changes."+field, s)
		if err != nil {
			return d, err
		}
		d.Changes[field] = enumValue(field, s)
	}
	return d, d.check()
}

// decisionName reads a decision as people write it: "Accepted", "accept".
func decisionName(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "accept", "approve", "approved":
		return requirement.Accepted
	case "reject":
		return requirement.Rejected
	case "edit":
		return requirement.Edited
	case "reset", "undecided":
		return requirement.Pending
	}
	return s
}

// enumValue reads the value of an enumerated field as people write it:
// "High", "non-functional".
func enumValue(field, s string) string {
	if allowedValues(field) == nil {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_"), " ", "_")
}

// check checks a decision on its own, before any file is read.
func (d Decision) check() error {
	if !slices.Contains(decisions, d.Decision) {
		return inputErrorf("unknown decision %q: use one of %s", d.Decision, strings.Join(decisions, ", "))
	}
	if d.Version != nil && *d.Version < 0 {
		return inputErrorf("\"version\" is %d: a version is 0 or more", *d.Version)
	}
	if n := utf8.RuneCountInString(d.Note); n > maxNote {
		return inputErrorf("the note is %d characters long; keep it to %d", n, maxNote)
	}
	if d.Decision == requirement.Rejected && d.Note == "" {
		return inputErrorf("a rejection needs its reason in \"note\"")
	}
	if d.Decision != requirement.Edited {
		if len(d.Changes) > 0 {
			return inputErrorf("\"changes\" are for the decision %q; to change fields and accept, send decision %q", requirement.Edited, requirement.Edited)
		}
		return nil
	}
	if len(d.Changes) == 0 {
		return inputErrorf("an edit needs \"changes\": the new values of some of %s", strings.Join(Editable, ", "))
	}
	for _, field := range slices.Sorted(maps.Keys(d.Changes)) {
		if err := checkChange(field, d.Changes[field]); err != nil {
			return err
		}
	}
	return nil
}

// checkChange checks one edited field's new value.
func checkChange(field, value string) error {
	value = strings.TrimSpace(value)
	switch {
	case slices.Contains([]string{"quote", "quotes", "citation", "citations", "page", "chunk", "document"}, field):
		return inputErrorf("the citations cannot be edited: a requirement's quote must stand verbatim in its source; reject the requirement if its citation is wrong")
	case !slices.Contains(Editable, field):
		return inputErrorf("%q cannot be edited: the editable fields are %s", field, strings.Join(Editable, ", "))
	case allowedValues(field) != nil:
		if allowed := allowedValues(field); !slices.Contains(allowed, value) {
			return inputErrorf("changes.%s is %q: use one of %s", field, value, strings.Join(allowed, ", "))
		}
	case value == "":
		return inputErrorf("changes.%s is empty", field)
	case field == "title" && utf8.RuneCountInString(value) > requirement.MaxTitleLength:
		return inputErrorf("changes.title is %d characters long; keep it to %d", utf8.RuneCountInString(value), requirement.MaxTitleLength)
	case field == "text" && len(value) > maxEditedText:
		return inputErrorf("changes.text is %d bytes long; keep it to %d (8 kB)", len(value), maxEditedText)
	}
	return nil
}

// typedText is a text of a decision as a person types it: line breaks
// written \r\n become \n; any other control character (NUL, a lone \r,
// escape sequences) and the bidirectional formatting characters that
// reorder what a reader sees (U+202A–U+202E, U+2066–U+2069) are refused,
// naming the field and the character's position (counted in characters
// from 1), for nothing in a requirement or a note needs them. New lines and
// tabs are taken.
func typedText(name, s string) (string, error) {
	pos := 0
	for i, r := range s {
		pos++
		switch {
		case r == '\n' || r == '\t', r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
		case unicode.IsControl(r):
			return "", inputErrorf("%s holds the control character U+%04X at character %d: only text, new lines and tabs are taken", name, r, pos)
		case r >= '\u202A' && r <= '\u202E', r >= '\u2066' && r <= '\u2069':
			return "", inputErrorf("%s holds the bidirectional formatting character U+%04X at character %d, which changes the order in which text is shown: only text, new lines and tabs are taken", name, r, pos)
		}
	}
	return strings.ReplaceAll(s, "\r\n", "\n"), nil
}

// jsonProblem words a decoding error without Go type names.
func jsonProblem(err error) string {
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return fmt.Sprintf("%q has the wrong type (%s)", typeErr.Field, typeErr.Value)
	case errors.As(err, &typeErr):
		return "a JSON object is expected"
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Sprintf("unknown field %s; a decision has \"decision\", \"note\", \"changes\", \"reviewer\" and \"version\"", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
