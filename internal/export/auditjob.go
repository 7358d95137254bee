package export

import (
	"errors"
	"fmt"
	"io/fs"

	"creator/internal/job"
	"creator/internal/jsonl"
	"creator/internal/reviewlog"
)

// AuditOf renders job j's review log (review/decisions.jsonl) in an audit
// format, audit-json or audit-csv, and says how many changes it holds; a
// job nobody reviewed yet has an empty log.
func AuditOf(j *job.View, format string) (out []byte, changes int, err error) {
	data, err := j.ReadFile(reviewlog.DecisionsFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, 0, err
	}
	entries, err := jsonl.Parse[reviewlog.Entry](reviewlog.DecisionsFile, data)
	if err != nil {
		return nil, 0, fmt.Errorf("job '%s': %w", j.ID, err)
	}
	switch format {
	case "audit-json":
		out, err = AuditJSON(entries)
	case "audit-csv":
		out, err = AuditCSV(entries)
	default:
		err = fmt.Errorf("unknown audit format %q: use audit-json or audit-csv", format)
	}
	return out, len(entries), err
}
