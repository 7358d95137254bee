package iostreams

import (
	"encoding/json"
	"fmt"

	"creator/internal/atomicfile"
)

// WriteOutput writes data to Out, or atomically to the file path (-o)
// when one is given other than "-"; toFile says which.
func (s *IOStreams) WriteOutput(path string, data []byte) (toFile bool, err error) {
	if path == "" || path == "-" {
		_, err := s.Out.Write(data)
		return false, err
	}
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return true, fmt.Errorf("cannot write %s: %w", path, err)
	}
	return true, nil
}

// WriteJSON writes v to Out as indented JSON (--json).
func (s *IOStreams) WriteJSON(v any) error {
	enc := json.NewEncoder(s.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
