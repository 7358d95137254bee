package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"creator/internal/humanize"
	"creator/internal/schemaerr"
)

// Models send arguments that mean one thing unambiguously but do not match
// the schema to the letter: "Obligation" for an enumeration value
// "obligation", "12" for an integer, null for a field they leave out, one
// object where a list of one is expected, fields the tool does not have.
// The reader below walks the arguments along the tool's schema, takes such
// variants in their canonical form and notes each change, so the result can
// tell the model what was read how. A value that is still wrong gets a
// message that says what the field allows.

// argReader reads arguments leniently along a schema.
type argReader struct {
	// commaLists are the list-of-string fields (by schema path, such as
	// "frameworks" or "citations[].tags") whose value, sent as one string,
	// is split at commas and semicolons; other lists split a string at
	// line breaks only, since their items are sentences.
	commaLists map[string]bool
}

// argPath names a place in the arguments twice: for the model, with list
// positions counted from 1 ("citations[2].chunk"), and as a schema path
// ("citations[].chunk").
type argPath struct{ shown, schema string }

func (p argPath) field(name string) argPath {
	if p.shown == "" {
		return argPath{name, name}
	}
	return argPath{p.shown + "." + name, p.schema + "." + name}
}

func (p argPath) item(i int) argPath {
	return argPath{fmt.Sprintf("%s[%d]", p.shown, i+1), p.schema + "[]"}
}

// read returns v in the form the schema describes, adding a note for every
// change of meaningful form to notes.
func (r *argReader) read(s *jsonschema.Schema, v any, at argPath, notes *[]string) (any, error) {
	if s == nil {
		return v, nil
	}
	switch s.Type {
	case "object":
		return r.readObject(s, v, at, notes)
	case "array":
		return r.readArray(s, v, at, notes)
	case "string":
		return r.readString(s, v, at, notes)
	case "integer", "number":
		return readNumber(s.Type == "integer", v, at, notes)
	case "boolean":
		return readBool(v, at, notes)
	}
	return v, nil
}

func (r *argReader) readObject(s *jsonschema.Schema, v any, at argPath, notes *[]string) (any, error) {
	if isMap(s) {
		return r.readMap(s, v, at, notes)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		if str, isString := v.(string); isString {
			if parsed, ok := jsonOf[map[string]any](str); ok {
				*notes = append(*notes, fmt.Sprintf("read %s, sent as a JSON string, as an object", describe(at, "the arguments")))
				obj = parsed
			}
		}
		if obj == nil {
			if at.shown == "" {
				return nil, fmt.Errorf("they must be a JSON object, not %s", jsonKind(v))
			}
			return nil, fmt.Errorf("field %q must be an object, not %s", at.shown, jsonKind(v))
		}
	}
	var unknown []string
	for k := range obj {
		if _, known := s.Properties[k]; !known {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		delete(obj, k)
		*notes = append(*notes, fmt.Sprintf("ignored unknown field %q", at.field(k).shown))
	}
	var missing []string
	for _, name := range propertyNames(s) {
		val, present := obj[name]
		if present && val == nil {
			delete(obj, name) // null means "not given"
			present = false
		}
		if !present {
			if slices.Contains(s.Required, name) {
				missing = append(missing, name)
			}
			continue
		}
		nv, err := r.read(s.Properties[name], val, at.field(name), notes)
		if err != nil {
			return nil, err
		}
		obj[name] = nv
	}
	if len(missing) > 0 {
		return nil, errors.New(schemaerr.Missing(missing, at.shown))
	}
	return obj, nil
}

// isMap reports whether s is an object of any names with values of one
// schema (a Go map), not one with named fields.
func isMap(s *jsonschema.Schema) bool {
	return len(s.Properties) == 0 && s.AdditionalProperties != nil && s.AdditionalProperties.Type != ""
}

// readMap reads an object of names to values. Besides an object (or one
// in a JSON string) it takes what models send for one when the meaning is
// plain: a list of "name: value" (or "name=value") strings, a list of
// {"name"|"key": …, "value": …} objects, a list of one-field objects, and
// one string of "name: value" parts on lines or between semicolons. A null
// value is a value not given.
func (r *argReader) readMap(s *jsonschema.Schema, v any, at argPath, notes *[]string) (any, error) {
	var obj map[string]any
	switch x := v.(type) {
	case map[string]any:
		obj = x
	case string:
		if parsed, ok := jsonOf[map[string]any](x); ok {
			*notes = append(*notes, fmt.Sprintf("read %s, sent as a JSON string, as an object", at.shown))
			obj = parsed
		} else if parsed, ok := jsonOf[[]any](x); ok {
			obj = pairsOf(parsed)
		} else {
			obj = pairsOf(splitPairs(x))
			if obj != nil {
				*notes = append(*notes, fmt.Sprintf("read %s %s as %s", at.shown, quoteShort(x), objectText(obj)))
			}
		}
	case []any:
		obj = pairsOf(x)
		if obj != nil {
			*notes = append(*notes, fmt.Sprintf("read %s, sent as a list, as %s", at.shown, objectText(obj)))
		}
	}
	if obj == nil {
		return nil, fmt.Errorf("field %q must be an object of names and values, e.g. {\"level\": \"2\"}, not %s", at.shown, describeValue(v))
	}
	out := make(map[string]any, len(obj))
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		if obj[name] == nil {
			continue // null means "not given"
		}
		nv, err := r.read(s.AdditionalProperties, obj[name], at.field(name), notes)
		if err != nil {
			return nil, err
		}
		out[name] = nv
	}
	return out, nil
}

// splitPairs cuts a string of "name: value" parts at line breaks and
// semicolons (not at commas, which values hold).
func splitPairs(s string) []any { return splitItems(s, "\n;") }

// pairsOf reads a list sent for an object of names and values; nil unless
// every item is a "name: value" or "name=value" string, a {"name"|"key",
// "value"} object or an object of one field, and no name comes twice.
func pairsOf(list []any) map[string]any {
	if len(list) == 0 {
		return nil
	}
	out := map[string]any{}
	for _, item := range list {
		var name string
		var value any
		switch x := item.(type) {
		case string:
			i := strings.IndexAny(x, ":=")
			if i <= 0 {
				return nil
			}
			name, value = strings.TrimSpace(x[:i]), strings.TrimSpace(x[i+1:])
		case map[string]any:
			n, hasName := x["name"]
			if !hasName {
				n, hasName = x["key"]
			}
			if val, hasValue := x["value"]; hasName && hasValue && len(x) == 2 {
				s, ok := n.(string)
				if !ok {
					return nil
				}
				name, value = s, val
			} else if len(x) == 1 {
				for k, val := range x {
					name, value = k, val
				}
			} else {
				return nil
			}
		default:
			return nil
		}
		if _, twice := out[name]; twice || strings.TrimSpace(name) == "" {
			return nil
		}
		out[name] = value
	}
	return out
}

// objectText renders an object read from another form for a note.
func objectText(obj map[string]any) string {
	data, _ := json.Marshal(obj)
	return humanize.Clip(string(data), 120)
}

func (r *argReader) readArray(s *jsonschema.Schema, v any, at argPath, notes *[]string) (any, error) {
	items := s.Items
	itemType := ""
	if items != nil {
		itemType = items.Type
	}
	list, ok := v.([]any)
	if !ok {
		switch x := v.(type) {
		case string:
			if parsed, ok := jsonOf[[]any](x); ok {
				*notes = append(*notes, fmt.Sprintf("read %s, sent as a JSON string, as a list", at.shown))
				list = parsed
			} else if itemType == "string" {
				list = r.splitList(x, at)
				*notes = append(*notes, fmt.Sprintf("read %s %s as %s", at.shown, quoteShort(x), listText(list)))
			} else if itemType == "object" {
				if parsed, ok := jsonOf[map[string]any](x); ok {
					*notes = append(*notes, fmt.Sprintf("read %s, sent as one object in a JSON string, as a list of one", at.shown))
					list = []any{parsed}
				}
			}
		case map[string]any:
			if itemType == "object" {
				*notes = append(*notes, fmt.Sprintf("read %s, sent as one object, as a list of one", at.shown))
				list = []any{x}
			}
		case float64, bool:
			if itemType == "integer" || itemType == "number" || itemType == "boolean" || itemType == "string" {
				*notes = append(*notes, fmt.Sprintf("read %s, sent as one value, as a list of one", at.shown))
				list = []any{x}
			}
		}
		if list == nil {
			return nil, fmt.Errorf("field %q must be an array, not %s", at.shown, jsonKind(v))
		}
	}
	out := make([]any, 0, len(list))
	for i, item := range list {
		if item == nil {
			continue // a null in a list holds nothing
		}
		nv, err := r.read(items, item, at.item(i), notes)
		if err != nil {
			return nil, err
		}
		out = append(out, nv)
	}
	return out, nil
}

// splitList cuts a string sent for a list of strings into its items: at
// line breaks, and for lists of names also at commas and semicolons. List
// markers at the start of a line ("- ", "* ") are dropped.
func (r *argReader) splitList(s string, at argPath) []any {
	seps := "\n"
	if r.commaLists[at.schema] {
		seps = "\n,;"
	}
	return splitItems(s, seps)
}

// splitItems cuts s at any of seps into its items, trimmed, with list
// markers ("- ", "* ", "• ") at their start dropped; empty items are left out.
func splitItems(s, seps string) []any {
	var out []any
	for _, part := range strings.FieldsFunc(s, func(c rune) bool { return strings.ContainsRune(seps, c) }) {
		if part = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(part), "-*•")); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func (r *argReader) readString(s *jsonschema.Schema, v any, at argPath, notes *[]string) (any, error) {
	var str string
	switch x := v.(type) {
	case string:
		str = x
	case float64, bool:
		str = fmt.Sprint(x)
		if f, ok := x.(float64); ok {
			str = strconv.FormatFloat(f, 'f', -1, 64)
		}
		if len(s.Enum) == 0 {
			*notes = append(*notes, fmt.Sprintf("read %s %v as %q", at.shown, x, str))
		}
	default:
		return nil, fmt.Errorf("field %q must be a string, not %s", at.shown, jsonKind(v))
	}
	if len(s.Enum) == 0 {
		return str, nil
	}
	var allowed []string
	for _, e := range s.Enum {
		if es, ok := e.(string); ok {
			allowed = append(allowed, es)
		}
	}
	if slices.Contains(allowed, str) {
		return str, nil
	}
	for _, e := range allowed {
		if foldEnum(e) == foldEnum(str) {
			*notes = append(*notes, fmt.Sprintf("read %s %s as %q", at.shown, quoteShort(v), e))
			return e, nil
		}
	}
	return nil, fmt.Errorf("field %q must be one of %s (got %s)", at.shown, strings.Join(allowed, ", "), quoteShort(v))
}

// foldEnum compares enumeration values regardless of case, surrounding
// space, and the choice of hyphen, space or underscore between words.
func foldEnum(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.NewReplacer("-", "_", " ", "_").Replace(s)
}

func readNumber(integer bool, v any, at argPath, notes *[]string) (any, error) {
	want := "a number"
	if integer {
		want = "an integer"
	}
	var f float64
	note := ""
	switch x := v.(type) {
	case float64:
		f = x
	case string:
		parsed, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return nil, fmt.Errorf("field %q must be %s, not a string (got %s)", at.shown, want, quoteShort(x))
		}
		f = parsed
		note = fmt.Sprintf("read %s %s as %s", at.shown, quoteShort(x), strconv.FormatFloat(f, 'f', -1, 64))
	default:
		return nil, fmt.Errorf("field %q must be %s, not %s", at.shown, want, jsonKind(v))
	}
	if integer && f != float64(int64(f)) {
		return nil, fmt.Errorf("field %q must be a whole number (got %s)", at.shown, strconv.FormatFloat(f, 'f', -1, 64))
	}
	if note != "" {
		*notes = append(*notes, note)
	}
	return f, nil
}

func readBool(v any, at argPath, notes *[]string) (any, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true":
			*notes = append(*notes, fmt.Sprintf("read %s %s as true", at.shown, quoteShort(x)))
			return true, nil
		case "false":
			*notes = append(*notes, fmt.Sprintf("read %s %s as false", at.shown, quoteShort(x)))
			return false, nil
		}
	}
	return nil, fmt.Errorf("field %q must be true or false, not %s", at.shown, describeValue(v))
}

// jsonOf parses s as JSON of type T, when s (trimmed) is one.
func jsonOf[T any](s string) (T, bool) {
	var out T
	s = strings.TrimSpace(s)
	if s == "" || (s[0] != '{' && s[0] != '[') {
		return out, false
	}
	if json.Unmarshal([]byte(s), &out) != nil {
		return out, false
	}
	return out, true
}

func propertyNames(s *jsonschema.Schema) []string {
	if len(s.PropertyOrder) > 0 {
		return s.PropertyOrder
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func describe(at argPath, whole string) string {
	if at.shown == "" {
		return whole
	}
	return at.shown
}

// quoteShort renders a value the model sent for a message, clipped.
func quoteShort(v any) string {
	s, ok := v.(string)
	if !ok {
		data, _ := json.Marshal(v)
		return string(data)
	}
	return strconv.Quote(humanize.Clip(s, 61))
}

func describeValue(v any) string {
	if _, ok := v.(string); ok {
		return "a string (got " + quoteShort(v) + ")"
	}
	return jsonKind(v)
}

func listText(list []any) string {
	parts := make([]string, len(list))
	for i, x := range list {
		parts[i] = quoteShort(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// commaListFields finds the fields of an arguments struct tagged
// `list:"names"`: lists of short names, which a model may send as one
// comma-separated string.
func commaListFields(t reflect.Type, prefix string, out map[string]bool) {
	for {
		switch t.Kind() {
		case reflect.Pointer:
			t = t.Elem()
			continue
		case reflect.Slice, reflect.Array:
			t = t.Elem()
			prefix += "[]"
			continue
		}
		break
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		if f.Tag.Get("list") == "names" {
			out[path] = true
		}
		commaListFields(f.Type, path, out)
	}
}
