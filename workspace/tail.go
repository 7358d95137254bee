package workspace

import (
	"bytes"
	"sync"
)

// A write of many pages can be cut short by SIGKILL, leaving part of a
// record at the end of a log; the next append would put a whole record
// after it, and the torn one, no longer last, would read as damage. The
// torn part was never acknowledged to anyone (the write did not return):
// jsonl.CutTornTail cuts it off before the next append.

// wholeLogs remembers the JSON-lines logs whose tail this process has
// checked (jsonl.CutTornTail) and to which it has since written only whole
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
