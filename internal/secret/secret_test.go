package secret

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
)

const key = "sk-test-Zq8/uX+0123456789abcdef"

// A key a server echoes encoded — base64 in either alphabet, wherever it
// starts in a longer run, hex, percent-encoding — is replaced as the key
// itself is; text without it is left alone.
func TestEncodedSecrets(t *testing.T) {
	t.Parallel()
	var r Redactor
	r.Set(key)
	var cases []string
	for _, prefix := range []string{"", "a", "ab", "abc", "wxyz:"} {
		raw := []byte(prefix + key + "\" was refused")
		cases = append(cases, base64.StdEncoding.EncodeToString(raw), base64.URLEncoding.EncodeToString(raw), base64.RawStdEncoding.EncodeToString(raw))
	}
	cases = append(cases, hex.EncodeToString([]byte(key)), strings.ToUpper(hex.EncodeToString([]byte(key))), url.QueryEscape(key), "key="+url.PathEscape(key))
	for _, c := range cases {
		got := string(r.Apply([]byte("error: " + c + " end")))
		if !strings.Contains(got, Redacted) {
			t.Errorf("not redacted: %s", c)
		}
		if msg := Message("error: "+c, key); !strings.Contains(msg, Redacted) {
			t.Errorf("Message kept %s", c)
		}
	}
	text := "Backups must be encrypted with AES-256; keys are rotated every 90 days. c2stdGVzdC1acTgv"
	if got := string(r.Apply([]byte(text))); got != text {
		t.Errorf("text without the key changed: %q", got)
	}
}
