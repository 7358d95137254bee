package index

import (
	"bytes"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"
)

// readText reads a file as text. ok is false for files that are not text
// (a NUL byte in the first 8 KB) or too large to index.
func readText(fsys fs.FS, rel string, size int64) (text string, ok bool, err error) {
	if size > maxFileBytes {
		return "", false, nil
	}
	f, err := fsys.Open(rel)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return "", false, err
	}
	if len(data) > maxFileBytes || bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
		return "", false, nil
	}
	if !utf8.Valid(data) {
		return strings.ToValidUTF8(string(data), "\uFFFD"), true, nil
	}
	return string(data), true, nil
}

// passage is a run of lines of a file.
type passage struct {
	line int // first line, counting from 1
	text string
}

// passages splits text into runs of whole lines of about passageBytes,
// at most passageMaxLines lines each. A line longer than passageBytes is
// cut into passages of its own, each of at most passageBytes and the
// line break: a passage is analysed whole, holding its terms and positions in
// memory, and a document written as one line (16 MB of Markdown) made a
// passage of 16 MB. The split depends on the text alone, so a search can
// find a passage's lines again from its number.
func passages(text string) []passage {
	var out []passage
	start, lines, size := 1, 0, 0
	var b strings.Builder
	n := 0
	for len(text) > 0 {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		n++
		if len(line) > passageBytes {
			if lines > 0 {
				out = append(out, passage{line: start, text: b.String()})
				b.Reset()
			}
			for _, piece := range lineParts(line) {
				out = append(out, passage{line: n, text: piece})
			}
			start, lines, size = n+1, 0, 0
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
		lines++
		size += len(line) + 1
		if size >= passageBytes || lines >= passageMaxLines {
			out = append(out, passage{line: start, text: b.String()})
			b.Reset()
			start, lines, size = n+1, 0, 0
		}
	}
	if lines > 0 {
		out = append(out, passage{line: start, text: b.String()})
	}
	return out
}

// lineParts cuts a long line into parts of at most passageBytes, after a
// space in the second half of a part where there is one, else at a
// character boundary; the last part ends with the line's line break.
// The parts are copies: a passage's text outlives the file's.
func lineParts(line string) []string {
	var parts []string
	for len(line) > passageBytes {
		cut := passageBytes
		if sp := strings.LastIndexByte(line[passageBytes/2:passageBytes], ' '); sp >= 0 {
			cut = passageBytes/2 + sp + 1
		} else {
			for cut > 1 && !utf8.RuneStart(line[cut]) {
				cut--
			}
		}
		parts = append(parts, strings.Clone(line[:cut]))
		line = line[cut:]
	}
	return append(parts, line+"\n")
}

// lines returns the lines of text.
func lines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}
