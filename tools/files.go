package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"creator/internal/humanize"
	"creator/internal/llm"
	"creator/workspace"
)

// Bounds of read_file, so that one read cannot flood the model's context.
const (
	DefaultReadLines = 400
	MaxReadLines     = 2000
	MaxReadBytes     = 100_000 // of one read_file result
	MaxLineChars     = 2000    // longer lines are cut
	maxListEntries   = 500
)

// WorkspaceTools returns the tools that read and change the job's files.
func WorkspaceTools(files *workspace.Files) []Tool {
	w := &fileTools{files: files}
	return []Tool{
		FuncResult("read_file", "Read lines of a text file in the job folder, numbered. Use offset and limit to page through long files; the result says how many lines remain.", w.readFile),
		Func("write_file", "Create or replace a text file in the job folder with the given content. Parent folders are created. input/, .agent/, plan.json and progress.md cannot be written.", w.writeFile),
		Func("edit_file", "Replace exact text in a file: old_text must occur exactly once unless replace_all is true. Copy old_text from the file including whitespace and line breaks.", w.editFile),
		FuncResult("list_files", "List a folder of the job: files with sizes, folders (ending in '/') with their number of entries.", w.listFiles),
		Func("delete_file", "Delete a file or an empty folder.", w.deleteFile),
		Func("create_folder", "Create a folder (and its parents) in the job folder.", w.createFolder),
	}
}

type fileTools struct{ files *workspace.Files }

type readFileArgs struct {
	Path   string `json:"path" jsonschema:"file to read, relative to the job folder, e.g. chunks/chunk_001.md"`
	Offset int    `json:"offset,omitempty" jsonschema:"first line to return, counting from 1 (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"number of lines to return (default 400, at most 2000)"`
}

func (w *fileTools) readFile(ctx context.Context, a readFileArgs) (llm.ToolResult, error) {
	if a.Offset < 0 || a.Limit < 0 {
		return llm.ToolResult{}, errors.New("offset and limit cannot be negative")
	}
	offset, limit := max(a.Offset, 1), a.Limit
	if limit == 0 {
		limit = DefaultReadLines
	}
	limit = min(limit, MaxReadLines)

	f, rel, err := w.files.OpenFile(a.Path)
	if err != nil {
		return llm.ToolResult{}, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	if head, _ := r.Peek(8 << 10); bytes.IndexByte(head, 0) >= 0 {
		return llm.ToolResult{}, fmt.Errorf("'%s' is a binary file; read_file shows text only (for source documents use extract_document_text)", rel)
	}

	var out strings.Builder
	data := FileLines{Path: rel, First: offset}
	last, total, capped := 0, 0, false
	for {
		line, err := r.ReadString('\n')
		if line == "" && err != nil {
			if err != io.EOF {
				return llm.ToolResult{}, fmt.Errorf("reading '%s': %w", rel, err)
			}
			break
		}
		total++
		if total >= offset && total < offset+limit && !capped {
			text := strings.TrimRight(line, "\r\n")
			text = strings.ToValidUTF8(text, "\uFFFD")
			if n := utf8.RuneCountInString(text); n > MaxLineChars {
				text = string([]rune(text)[:MaxLineChars]) + fmt.Sprintf(" %s %s characters]", LineCut, humanize.Int(n))
			}
			entry := fmt.Sprintf("%6d\t%s\n", total, text)
			if out.Len()+len(entry) > MaxReadBytes && last >= offset {
				capped = true
			} else {
				out.WriteString(entry)
				data.Lines = append(data.Lines, text)
				last = total
			}
		}
		if err := ctx.Err(); err != nil {
			return llm.ToolResult{}, err
		}
	}
	data.Total = total
	switch {
	case total == 0:
		return llm.ToolResult{Text: fmt.Sprintf("'%s' is empty", rel), Data: data}, nil
	case offset > total:
		return llm.ToolResult{}, fmt.Errorf("'%s' has %s; offset %d is past the end", rel, humanize.Plural(total, "line"), offset)
	}
	if last < total {
		fmt.Fprintf(&out, "[lines %d-%d of %s in %s; %s more %s: read_file(path=%q, offset=%d)]",
			offset, last, humanize.Int(total), rel, humanize.Int(total-last), humanize.Noun(total-last, "line"), rel, last+1)
	} else if offset > 1 {
		fmt.Fprintf(&out, "[lines %d-%d of %s in %s; end of file]", offset, last, humanize.Int(total), rel)
	} else {
		fmt.Fprintf(&out, "[%s, whole file]", humanize.Plural(total, "line"))
	}
	return llm.ToolResult{Text: out.String(), Data: data}, nil
}

type writeFileArgs struct {
	Path    string `json:"path" jsonschema:"file to create or replace, relative to the job folder, e.g. notes/document.md"`
	Content string `json:"content" jsonschema:"the complete new content of the file"`
}

func (w *fileTools) writeFile(ctx context.Context, a writeFileArgs) (string, error) {
	if strings.IndexByte(a.Content, 0) >= 0 {
		return "", errors.New("the content contains NUL bytes; only text can be written")
	}
	res, err := w.files.WriteFile(a.Path, []byte(a.Content))
	if err != nil {
		return "", err
	}
	verb := "replaced"
	if res.Created {
		verb = "created"
	}
	return fmt.Sprintf("%s %s: %s, %s", verb, res.Path, humanize.Bytes(int64(len(a.Content))), humanize.Plural(countLines(a.Content), "line")), nil
}

type editFileArgs struct {
	Path       string `json:"path" jsonschema:"file to change, relative to the job folder"`
	OldText    string `json:"old_text" jsonschema:"the exact text to replace, including whitespace and line breaks"`
	NewText    string `json:"new_text" jsonschema:"the text to put in its place; empty to delete old_text"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence instead of requiring exactly one"`
}

func (w *fileTools) editFile(ctx context.Context, a editFileArgs) (string, error) {
	if a.OldText == "" {
		return "", errors.New("old_text is empty; give the exact text to replace")
	}
	if a.OldText == a.NewText {
		return "", errors.New("old_text and new_text are the same; nothing to change")
	}
	if strings.IndexByte(a.NewText, 0) >= 0 {
		return "", errors.New("new_text contains NUL bytes; only text can be written")
	}
	// Refuse a protected file before reading it.
	if _, err := w.files.Resolve(a.Path, workspace.Write); err != nil {
		return "", err
	}
	data, rel, err := w.files.ReadFile(a.Path, w.files.MaxWriteBytes)
	if err != nil {
		return "", err
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return "", fmt.Errorf("'%s' is a binary file; only text files can be edited", rel)
	}
	text := string(data)
	n := strings.Count(text, a.OldText)
	switch {
	case n == 0:
		msg := fmt.Sprintf("old_text was not found in %s; read the file again and copy the text exactly", rel)
		if line := fuzzyLine(text, a.OldText); line > 0 {
			msg += fmt.Sprintf(" (text that differs only in whitespace or line breaks starts at line %d)", line)
		}
		return "", errors.New(msg)
	case n > 1 && !a.ReplaceAll:
		return "", fmt.Errorf("old_text occurs %d times in %s (lines %s); include more of the surrounding text to make it unique, or set replace_all to true",
			n, rel, strings.Join(occurrenceLines(text, a.OldText, 10), ", "))
	}
	first := lineOf(text, strings.Index(text, a.OldText))
	if a.ReplaceAll {
		text = strings.ReplaceAll(text, a.OldText, a.NewText)
	} else {
		text = strings.Replace(text, a.OldText, a.NewText, 1)
	}
	if _, err := w.files.WriteFile(rel, []byte(text)); err != nil {
		return "", err
	}
	where := fmt.Sprintf("line %d", first)
	if n > 1 {
		where = "first at line " + fmt.Sprint(first)
	}
	return fmt.Sprintf("replaced %s in %s (%s); the file now has %s",
		humanize.Plural(n, "occurrence"), rel, where, humanize.Plural(countLines(text), "line")), nil
}

type listFilesArgs struct {
	Path string `json:"path,omitempty" jsonschema:"folder to list, relative to the job folder; default: the job folder itself"`
}

func (w *fileTools) listFiles(ctx context.Context, a listFilesArgs) (llm.ToolResult, error) {
	p := a.Path
	if p == "" {
		p = "."
	}
	rel, entries, err := w.files.ReadDir(p)
	if err != nil {
		return llm.ToolResult{}, err
	}
	name := rel + "/"
	if rel == "." {
		name = "job folder"
	}
	data := Listing{Path: rel, Entries: []ListEntry{}}
	if len(entries) == 0 {
		return llm.ToolResult{Text: name + " is empty", Data: data}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s):\n", name, humanize.Plural(len(entries), "entry"))
	width := 0
	for _, e := range entries {
		width = max(width, len(e.Name)+1)
	}
	width = min(width, 60)
	for i, e := range entries {
		if i == maxListEntries {
			fmt.Fprintf(&b, "… and %s more; list a subfolder or use search_files\n", humanize.Int(len(entries)-i))
			break
		}
		// A link that leads nowhere is no folder to look into.
		data.Entries = append(data.Entries, ListEntry{Name: e.Name, Dir: e.IsDir && !(e.Link && e.Dangling)})
		label, size := e.Name, humanize.Bytes(e.Size)
		if e.IsDir {
			label, size = e.Name+"/", humanize.Plural(int(e.Size), "entry")
		}
		switch {
		case e.Link && e.Dangling:
			label, size = e.Name, "link that leads outside the job or nowhere"
		case e.Link:
			size += " (link)"
		}
		fmt.Fprintf(&b, "  %-*s  %s\n", width, label, size)
	}
	return llm.ToolResult{Text: strings.TrimRight(b.String(), "\n"), Data: data}, nil
}

type pathArgs struct {
	Path string `json:"path" jsonschema:"path relative to the job folder"`
}

func (w *fileTools) deleteFile(ctx context.Context, a pathArgs) (string, error) {
	rel, wasDir, err := w.files.Remove(a.Path)
	if err != nil {
		return "", err
	}
	if wasDir {
		return fmt.Sprintf("deleted empty folder %s/", rel), nil
	}
	return "deleted " + rel, nil
}

func (w *fileTools) createFolder(ctx context.Context, a pathArgs) (string, error) {
	rel, created, err := w.files.Mkdir(a.Path)
	if err != nil {
		return "", err
	}
	if !created {
		return fmt.Sprintf("folder %s/ already exists", rel), nil
	}
	return fmt.Sprintf("created folder %s/", rel), nil
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// lineOf returns the 1-based line number of byte offset i.
func lineOf(s string, i int) int { return strings.Count(s[:i], "\n") + 1 }

func occurrenceLines(text, sub string, most int) []string {
	var lines []string
	for i, from := 0, 0; i < most; i++ {
		j := strings.Index(text[from:], sub)
		if j < 0 {
			break
		}
		lines = append(lines, fmt.Sprint(lineOf(text, from+j)))
		from += j + len(sub)
	}
	return lines
}

// fuzzyLine finds old in text ignoring differences in whitespace and returns
// the line where it starts, or 0.
func fuzzyLine(text, old string) int {
	want := strings.Fields(old)
	if len(want) == 0 {
		return 0
	}
	type span struct{ start, end int }
	var words []span
	start := -1
	for i, r := range text {
		switch {
		case unicode.IsSpace(r) && start >= 0:
			words = append(words, span{start, i})
			start = -1
		case !unicode.IsSpace(r) && start < 0:
			start = i
		}
	}
	if start >= 0 {
		words = append(words, span{start, len(text)})
	}
	for i := 0; i+len(want) <= len(words); i++ {
		k := 0
		for k < len(want) && text[words[i+k].start:words[i+k].end] == want[k] {
			k++
		}
		if k == len(want) {
			return lineOf(text, words[i].start)
		}
	}
	return 0
}
