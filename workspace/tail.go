package workspace

import (
	"bytes"
	"io"
	"os"
	"sync"
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

// wholeLogs remembers the JSON-lines logs whose tail this process has
// checked (dropTornTail) and to which it has since written only whole
// lines: a torn tail comes from a kill, so a later append by the same
// process need not read the file again.
type wholeLogs struct{ m sync.Map }

// checked reports whether rel needs no check before the next append.
func (w *wholeLogs) checked(rel string) bool {
	_, ok := w.m.Load(rel)
	return ok
}

// wrote records a write of data to rel after its tail was checked: one
// that failed, or ended within a line, leaves the tail to check again.
func (w *wholeLogs) wrote(rel string, data []byte, err error) {
	if err == nil && bytes.HasSuffix(data, []byte("\n")) {
		if !w.checked(rel) { // a load costs less than a store, per record
			w.m.Store(rel, struct{}{})
		}
	} else {
		w.m.Delete(rel)
	}
}
