package output

import (
	"strings"
	"testing"
)

func TestValidateRequirements(t *testing.T) {
	good := `[{"id":"REQ-001","text":"The operator must keep records.","citations":[{"document":"d","chunk":"chunk_001","page":1,"quote":"Records must be kept."}]}]`
	cases := []struct {
		data, want string
	}{
		{good, ""},
		{`[]`, ""},
		{`{"id":"REQ-001"}`, "not a JSON array"},
		{`not json`, "not a JSON array"},
		{`[{"text":"x","citations":[{"quote":"q"}]}]`, "requirement 1 has no id"},
		{`[{"id":"REQ-002","text":" ","citations":[{"quote":"q"}]}]`, "REQ-002 has no text"},
		{`[{"id":"REQ-003","text":"x"}]`, "REQ-003 has no citations"},
		{`[{"id":"REQ-004","text":"x","citations":[{"quote":""}]}]`, "REQ-004 has a citation without a quote"},
	}
	for _, c := range cases {
		err := ValidateRequirements([]byte(c.data))
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("ValidateRequirements(%s) = %v, want %q", c.data, err, c.want)
		}
	}
}
