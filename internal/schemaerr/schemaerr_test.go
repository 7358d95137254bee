package schemaerr

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

const testSchema = `{"type":"object","required":["title","citations"],"additionalProperties":false,"properties":{
 "title":{"type":"string","minLength":1},
 "page":{"type":"integer"},
 "citations":{"type":"array","items":{"type":"object","required":["chunk","quote"],"additionalProperties":false,"properties":{
   "chunk":{"type":"string"},"quote":{"type":"string","minLength":1}}}}}}`

func validationError(t *testing.T, instance string) error {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(testSchema), &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal([]byte(instance), &v); err != nil {
		t.Fatal(err)
	}
	err = r.Validate(v)
	if err == nil {
		t.Fatalf("%s is valid", instance)
	}
	return err
}

func TestExplain(t *testing.T) {
	t.Parallel()
	cases := []struct {
		instance          string
		arguments, record string
	}{
		{`{"citations":[]}`, `missing required field "title"`, `missing "title"`},
		{`{}`, `missing required fields "title", "citations"`, `missing "title" "citations"`},
		{`{"title":"t","citations":[{"chunk":"c"}]}`, `missing required field "quote" in citations[]`, `field citations[]: missing "quote"`},
		{`{"title":"t","citations":[],"id":"x"}`, `unknown field "id"`, `unknown fields "id"`},
		{`{"title":"t","citations":[],"page":"one"}`, `field "page" must be an integer, not a string`, `field page: one has type "string", want "integer"`},
		{`{"title":"t","citations":[{"chunk":"c","quote":""}]}`, `field "citations[].quote": "" contains 0 Unicode code points, fewer than 1`, `field citations[].quote: "" contains 0 Unicode code points, fewer than 1`},
		{`[]`, `value must be an object, not an array`, `[] has type "array", want "object"`},
	}
	for _, c := range cases {
		err := validationError(t, c.instance)
		if got := Explain(err, Arguments); got != c.arguments {
			t.Errorf("%s: Arguments = %q, want %q (from %v)", c.instance, got, c.arguments, err)
		}
		if got := Explain(err, Record); got != c.record {
			t.Errorf("%s: Record = %q, want %q (from %v)", c.instance, got, c.record, err)
		}
	}
}

func TestMissing(t *testing.T) {
	t.Parallel()
	if got := Missing([]string{"quote"}, "citations[]"); got != `missing required field "quote" in citations[]` {
		t.Errorf("Missing = %q", got)
	}
	if got := Missing([]string{"a", "b"}, ""); got != `missing required fields "a", "b"` {
		t.Errorf("Missing = %q", got)
	}
}
