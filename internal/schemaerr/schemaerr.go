// Package schemaerr turns the errors of JSON Schema validation into short
// sentences that name the field at fault, e.g. citations[].quote.
package schemaerr

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Style is the wording of an explanation: the model reads both, for the
// arguments of a tool call and for a stored record, in the forms it has
// always seen.
type Style int

const (
	// Arguments words problems with a call's arguments:
	// `missing required field "citations"`, `field "page" must be an
	// integer, not a string`, `field "title": …`.
	Arguments Style = iota
	// Record words problems with a stored record: `missing "id"`,
	// `unknown fields "x"`, `field citations[].quote: …`.
	Record
)

var (
	reMissing    = regexp.MustCompile(`required: missing properties: \[(.*)\]`)
	reAdditional = regexp.MustCompile(`unexpected additional properties \[(.*)\]`)
	reLocation   = regexp.MustCompile(`validating (/[^:\s]*):`)
	reType       = regexp.MustCompile(`type: (.*) has type "(\w+)", want "(\w+)"`)
)

// problem is a validation error taken apart.
type problem struct {
	msg    string // the whole error
	field  string // the innermost field, e.g. citations[].quote; empty at the top
	detail string // the error's last part, e.g. "length 0 < 1"; msg if it has one part
	parts  bool   // msg has more than one part
}

func parse(err error) problem {
	p := problem{msg: err.Error()}
	if m := reLocation.FindAllStringSubmatch(p.msg, -1); len(m) > 0 {
		p.field = fieldPath(m[len(m)-1][1])
	}
	p.detail = p.msg
	if i := strings.LastIndex(p.msg, ": "); i >= 0 {
		p.detail, p.parts = p.msg[i+2:], true
	}
	return p
}

// Explain rewrites a schema validation error as a short sentence in style.
func Explain(err error, style Style) string {
	p := parse(err)
	if style == Record {
		return p.record()
	}
	return p.arguments()
}

func (p problem) arguments() string {
	in := ""
	if p.field != "" {
		in = " in " + p.field
	}
	switch {
	case reMissing.MatchString(p.msg):
		return "missing required " + fieldList(splitNames(reMissing.FindStringSubmatch(p.msg)[1])) + in
	case reAdditional.MatchString(p.msg):
		return "unknown " + fieldList(splitNames(reAdditional.FindStringSubmatch(p.msg)[1])) + in
	case reType.MatchString(p.msg):
		m := reType.FindStringSubmatch(p.msg)
		if p.field != "" {
			return fmt.Sprintf("field %q must be %s, not %s", p.field, article(m[3]), article(m[2]))
		}
		return fmt.Sprintf("value must be %s, not %s", article(m[3]), article(m[2]))
	}
	if p.field != "" && p.parts {
		return fmt.Sprintf("field %q: %s", p.field, p.detail)
	}
	return p.msg
}

func (p problem) record() string {
	detail := p.detail
	switch {
	case reMissing.MatchString(p.msg):
		detail = "missing " + reMissing.FindStringSubmatch(p.msg)[1]
	case reAdditional.MatchString(p.msg):
		detail = "unknown fields " + reAdditional.FindStringSubmatch(p.msg)[1]
	}
	if p.field == "" {
		return detail
	}
	return fmt.Sprintf("field %s: %s", p.field, detail)
}

// Missing says that required fields are missing, in the Arguments style:
// `missing required field "quote" in citations[]`. in may be empty.
func Missing(names []string, in string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	msg := "missing required " + fieldList(quoted)
	if in != "" {
		msg += " in " + in
	}
	return msg
}

// fieldPath turns a schema location such as
// /properties/citations/items/properties/quote into citations[].quote.
func fieldPath(loc string) string {
	var b strings.Builder
	parts := strings.Split(strings.TrimPrefix(loc, "/"), "/")
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "properties":
			if i+1 < len(parts) {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(parts[i+1])
				i++
			}
		case "items":
			b.WriteString("[]")
		}
	}
	return b.String()
}

// splitNames splits `"a" "b"` or `"a", "b"` into its quoted names.
func splitNames(quoted string) []string {
	return strings.FieldsFunc(quoted, func(r rune) bool { return r == ' ' || r == ',' })
}

// fieldList turns quoted names into `field "a"` or `fields "a", "b"`.
func fieldList(quoted []string) string {
	if len(quoted) == 1 {
		return "field " + quoted[0]
	}
	return "fields " + strings.Join(quoted, ", ")
}

func article(typ string) string {
	switch typ {
	case "integer", "array", "object":
		return "an " + typ
	case "null":
		return "null"
	}
	return "a " + typ
}
