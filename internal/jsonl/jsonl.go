// Package jsonl reads and writes a job's logs of JSON lines — the
// transcript, the events, the review's decisions and comments — one record
// a line, each appended whole with its newline (workspace.AppendInternal).
//
// One rule holds for every log: a last line without its newline was torn
// by a kill during its write, never acknowledged, and is left out (the
// next append cuts it off); every complete line must be a record, and one
// that is not is damage, an error that names the file and the line.
package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Line is v as a line of a log: its JSON and a newline.
func Line(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// Complete is data without a torn last line: up to its last newline.
func Complete(data []byte) []byte {
	return data[:bytes.LastIndexByte(data, '\n')+1]
}

// maxLine bounds a line of a log: a transcript's record holds a whole
// tool result (a chunk, a saved result's head), never megabytes.
const maxLine = 64 << 20

// Scan calls fn with each complete line of r that is not blank, and its
// number from 1, in order, until fn returns an error, which Scan returns.
// A torn last line is left out.
func Scan(r io.Reader, fn func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) {
			return nil // the end, or a torn last line
		}
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
}

// readLine reads one complete line without its newline; io.EOF at the
// end, also after a last line that has no newline.
func readLine(br *bufio.Reader) ([]byte, error) {
	var long []byte
	for {
		part, err := br.ReadSlice('\n')
		switch {
		case err == nil:
			if long == nil {
				return part[:len(part)-1], nil
			}
			return append(long, part[:len(part)-1]...), nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(long)+len(part) > maxLine {
				return nil, fmt.Errorf("a line is over %d MB", maxLine>>20)
			}
			long = append(long, part...)
		default:
			return nil, err
		}
	}
}

// Read reads every record of the log file from r.
func Read[T any](file string, r io.Reader) ([]T, error) {
	var out []T
	err := Scan(r, func(n int, line []byte) error {
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			return fmt.Errorf("%s line %d is damaged: %v", file, n, err)
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// Parse reads every record of the log file's data.
func Parse[T any](file string, data []byte) ([]T, error) {
	return Read[T](file, bytes.NewReader(data))
}

// Last is the last record of the log's data that decodes into T and for
// which keep holds (nil: any), reading from the end; false when none does.
// Damaged lines are passed over: a reader that shows a job's latest
// state wants it even from a damaged log.
func Last[T any](data []byte, keep func(T) bool) (T, bool) {
	data = Complete(data)
	for len(data) > 0 {
		data = data[:len(data)-1] // its newline
		i := bytes.LastIndexByte(data, '\n')
		line := data[i+1:]
		data = data[:i+1]
		var v T
		if len(bytes.TrimSpace(line)) > 0 && json.Unmarshal(line, &v) == nil && (keep == nil || keep(v)) {
			return v, true
		}
	}
	var zero T
	return zero, false
}

// LogFile is a log opened for appending.
type LogFile interface {
	Stat() (os.FileInfo, error)
	ReadAt(p []byte, off int64) (int, error)
	Truncate(size int64) error
}

// CutTornTail cuts a torn last line off a log before the next record is
// appended, so that every line stays whole: what follows its last
// newline goes (the whole file, when it has none).
func CutTornTail(f LogFile) error {
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
