package workspace

import (
	"bytes"
	"io"
	"os"
)

// dropTornTail cuts a log file back to the end of its last whole line. A
// write of many pages can be cut short by SIGKILL, leaving part of a
// record at the end; the next append would put a whole record after it,
// and the torn one, no longer last, would read as damage. The torn part
// was never acknowledged to anyone: the write did not return.
func dropTornTail(f *os.File) error {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, fi.Size()-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	// Back to the last newline, a block at a time.
	const block = 64 << 10
	end := fi.Size()
	for end > 0 {
		start := max(end-block, 0)
		buf := make([]byte, end-start)
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return err
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			return f.Truncate(start + int64(i) + 1)
		}
		end = start
	}
	return f.Truncate(0)
}
