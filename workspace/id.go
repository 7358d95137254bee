package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"time"
)

var idPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// ValidateID checks a job id against the allowed form [A-Za-z0-9._-]{1,64}.
// An id may not start with '-', where it would be taken for a flag.
func ValidateID(id string) error {
	if !idPattern.MatchString(id) || strings.HasPrefix(id, "-") {
		return fmt.Errorf("invalid job id %q: use 1 to 64 letters, digits, '.', '_' or '-', not starting with '-'", id)
	}
	return nil
}

// NewID makes a job id that sorts by creation time and is unique in practice:
// 20261121-053412-9f3a.
func NewID(now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// dirName is the folder name of a job under the root.
func dirName(id string) string { return "job_" + id }
