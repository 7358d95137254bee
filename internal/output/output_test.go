package output

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

func TestReadValid(t *testing.T) {
	files := map[string]string{}
	read := func(name string) ([]byte, error) {
		if d, ok := files[name]; ok {
			return []byte(d), nil
		}
		return nil, fs.ErrNotExist
	}
	if _, err := ReadValid("j", read); err == nil || err.Error() != "job 'j' has no output/requirements.json yet: it is written when the job completes or stops at a budget; continue the job with 'creator resume --job j'" {
		t.Errorf("missing: %v", err)
	}
	files[RequirementsFile] = `{"not": "a list"}`
	if _, err := ReadValid("j", read); err == nil || !strings.HasPrefix(err.Error(), "job 'j': output/requirements.json is not valid: output/requirements.json: ") {
		t.Errorf("invalid: %v", err)
	}
	files[RequirementsFile] = `[]`
	if data, err := ReadValid("j", read); err != nil || string(data) != "[]" {
		t.Errorf("valid: %q %v", data, err)
	}
	broken := errors.New("disk on fire")
	if _, err := ReadValid("j", func(string) ([]byte, error) { return nil, broken }); err != broken {
		t.Errorf("read error: %v", err)
	}
}
