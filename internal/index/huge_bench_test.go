package index

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"creator/internal/document"
	"creator/internal/pdfwrite"
	"creator/internal/tokens"
)

// The phases a large document goes through before the agent reads it, each
// measured in a process of its own, so that its peak resident memory
// (getrusage's ru_maxrss) is the phase's alone:
//
//	go test ./internal/index -run '^$' -bench Huge -benchtime 1x
//
// The inputs are made by the benchmark: a Markdown text of hugeTextBytes
// (the default --max-text) and a PDF of hugePDFText bytes of text (about
// 4500 pages; its extracted text, with page lines, just under the limit);
// and the shapes that are large by the length or the number of their
// lines or pages rather than by their text, each the largest the limits
// accept: the Markdown text written as one line (extracted, its tokens
// counted as extract_document_text counts them, chunked, and indexed as
// large as the index reads a file: 16 MB), a DOCX of one-letter
// paragraphs (the lines the limit allows), a PDF of a sentence a page (the
// pages it allows). Two more are over the limits, and refused: a DOCX of
// 7.3 million paragraphs (743 KB) and a PDF of 800,000 pages.
const (
	hugeTextBytes = document.DefaultMaxText
	hugePDFText   = 28_000_000
	// hugeChunkTokens is the chunk size the agent asks for by default.
	hugeChunkTokens = 1500
	hugeChunkBytes  = 6000 // about hugeChunkTokens
	// The lines and pages the default limit allows: a line for each 16
	// bytes of --max-text, a page for each 320.
	hugeLines = hugeTextBytes / 16
	hugePages = hugeTextBytes / 320
	// phaseEnv names the phase a child process runs, phaseDirEnv its folder.
	phaseEnv    = "CREATOR_HUGE_PHASE"
	phaseDirEnv = "CREATOR_HUGE_DIR"
)

// hugeInputs are the files of the extraction phases, by phase.
var hugeInputs = map[string]string{
	"extract-markdown": "huge.md", "extract-text": "huge.txt", "extract-pdf": "huge.pdf",
	"extract-oneline": "oneline.md", "extract-docx": "tiny.docx", "extract-pages": "pages.pdf",
	"refuse-docx": "tinier.docx", "refuse-pages": "pages-over.pdf",
}

// hugeTexts are the texts of the chunking phases, by phase.
var hugeTexts = map[string]string{"chunk": "huge.md", "chunk-oneline": "oneline.md", "chunk-docx": "tiny.txt"}

// hugeScale divides every size of BenchmarkHuge, and the text limit the
// phases run under: 1, or 64 in CI's smoke run of every benchmark (make
// bench-smoke), which then checks that each phase runs, the refusals
// included, in seconds — its memory says nothing of the limits'.
func hugeScale() int {
	if benchSmoke() {
		return 64
	}
	return 1
}

func BenchmarkHuge(b *testing.B) {
	dir := b.TempDir()
	scale := hugeScale()
	text := hugeText(hugeTextBytes / scale)
	writeFile(b, filepath.Join(dir, "huge.md"), []byte(text))
	writeFile(b, filepath.Join(dir, "huge.txt"), []byte(text))
	writeFile(b, filepath.Join(dir, "huge.pdf"), hugePDF(hugePDFText/scale))
	oneLine := strings.ReplaceAll(strings.TrimSpace(text), "\n", " ") + "\n"
	writeFile(b, filepath.Join(dir, "oneline.md"), []byte(oneLine))
	writeFile(b, filepath.Join(dir, "tiny.docx"), tinyDOCX(b, hugeLines/2/scale))
	writeFile(b, filepath.Join(dir, "tiny.txt"), []byte(strings.TrimSuffix(strings.Repeat("a\n\n", hugeLines/2/scale), "\n")))
	writeFile(b, filepath.Join(dir, "tinier.docx"), tinyDOCX(b, 7_300_000/scale))
	writeFile(b, filepath.Join(dir, "pages.pdf"), pagesPDF(hugePages/scale, false))
	writeFile(b, filepath.Join(dir, "pages-over.pdf"), pagesPDF(800_000/scale, true))
	// The job folder of the index phase of the one line: the Markdown
	// source as large as the index reads a file, one line.
	oneJob := filepath.Join(dir, "job-oneline")
	if err := os.MkdirAll(filepath.Join(oneJob, "input"), 0o755); err != nil {
		b.Fatal(err)
	}
	writeFile(b, filepath.Join(oneJob, "input", "oneline.md"), []byte(strings.TrimSpace(oneLine[:min(len(oneLine), maxFileBytes-1024)])+"\n"))
	// The job folder the index phase reads: the text in chunk files of
	// about the size chunk_document writes (cut at paragraphs here, which
	// is quicker than chunking it and as good for the index).
	job := filepath.Join(dir, "job")
	if err := os.MkdirAll(filepath.Join(job, "chunks"), 0o755); err != nil {
		b.Fatal(err)
	}
	for i, rest := 1, text; rest != ""; i++ {
		cut := len(rest)
		if cut > hugeChunkBytes {
			cut = hugeChunkBytes + strings.Index(rest[hugeChunkBytes:]+"\n\n", "\n\n")
		}
		writeFile(b, filepath.Join(job, "chunks", fmt.Sprintf("chunk_%03d.md", i)), []byte(rest[:cut]))
		rest = rest[cut:]
	}
	for _, phase := range []string{"extract-markdown", "extract-text", "extract-pdf", "chunk", "index",
		"extract-oneline", "count-oneline", "chunk-oneline", "index-oneline", "extract-docx", "chunk-docx", "extract-pages",
		"refuse-docx", "refuse-pages"} {
		b.Run(phase, func(b *testing.B) {
			var peak int64
			var took time.Duration
			for range b.N {
				rss, d, refused := runPhase(b, phase, dir)
				peak, took = max(peak, rss), took+d
				if want := strings.HasPrefix(phase, "refuse-"); refused != want {
					b.Errorf("phase %s: refused %v, want %v", phase, refused, want)
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
			b.ReportMetric(took.Seconds()/float64(b.N), "phase-s")
			if peak > 1<<30 {
				b.Errorf("phase %s peaked at %d MB resident, more than 1 GB", phase, peak>>20)
			}
		})
	}
}

// runPhase runs the phase in a child process (this test binary, running
// TestHugePhase) and returns its peak resident memory in bytes, how long
// the phase itself took, and whether the document was refused. The child
// reports its own peak (VmHWM): the ru_maxrss of a child started by
// os/exec also counts the parent's, whose memory it shares until it
// executes.
func runPhase(b *testing.B, phase, dir string) (int64, time.Duration, bool) {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHugePhase$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), phaseEnv+"="+phase, phaseDirEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("phase %s: %v\n%s", phase, err, out)
	}
	_, after, refused := strings.Cut(string(out), "phase refused: ")
	if refused {
		msg, _, _ := strings.Cut(after, "\n")
		b.Logf("%s: refused: %s", phase, msg)
	}
	var ns, kb int64
	if _, after, ok := strings.Cut(string(out), "phase took "); ok {
		fmt.Sscanf(after, "%d ns, peak %d kB", &ns, &kb)
	}
	if ns == 0 || kb == 0 {
		b.Fatalf("phase %s said nothing of its time and memory:\n%s", phase, out)
	}
	return kb << 10, time.Duration(ns), refused
}

// peakRSS is the process's peak resident memory in kilobytes (VmHWM).
func peakRSS() int64 {
	data, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}

// TestHugePhase is the child of BenchmarkHuge: it runs the phase named in
// its environment, and is skipped otherwise.
func TestHugePhase(t *testing.T) {
	phase, dir := os.Getenv(phaseEnv), os.Getenv(phaseDirEnv)
	if phase == "" {
		t.Skip("run by BenchmarkHuge")
	}
	ctx := context.Background()
	var run func() error
	switch {
	case hugeInputs[phase] != "":
		run = func() error {
			doc, err := document.ExtractContext(ctx, filepath.Join(dir, hugeInputs[phase]), document.Options{MaxText: int64(hugeTextBytes / hugeScale())})
			if err != nil {
				// A refusal is the phase's outcome, said to the benchmark.
				fmt.Printf("phase refused: %v\n", err)
				return nil
			}
			_ = doc.Text() // what extract_document writes next
			return nil
		}
	case hugeTexts[phase] != "":
		data, err := os.ReadFile(filepath.Join(dir, hugeTexts[phase]))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		counter := tokens.Default()
		run = func() error {
			// chunk_document chunks the text and surveys it.
			if _, err := document.ChunkTextContext(ctx, text, hugeChunkTokens, counter); err != nil {
				return err
			}
			_ = document.Survey(text)
			return nil
		}
	case phase == "count-oneline":
		// extract_document_text's token count of the text it wrote.
		data, err := os.ReadFile(filepath.Join(dir, "oneline.md"))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		counter := tokens.Default()
		run = func() error {
			_, err := counter.CountContext(ctx, text)
			return err
		}
	case phase == "index" || phase == "index-oneline":
		job := filepath.Join(dir, map[string]string{"index": "job", "index-oneline": "job-oneline"}[phase])
		if err := os.RemoveAll(filepath.Join(job, filepath.FromSlash(Dir))); err != nil {
			t.Fatal(err)
		}
		run = func() error {
			x, err := OpenWith(ctx, job, os.DirFS(job), Options{PersistAtOnce: true})
			if err != nil {
				return err
			}
			return x.Close()
		}
	default:
		t.Fatalf("no phase %q", phase)
	}
	start := time.Now()
	if err := run(); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("phase took %d ns, peak %d kB\n", time.Since(start).Nanoseconds(), peakRSS())
}

// hugeText is a Markdown document of about n bytes: numbered sections of
// paragraphs whose sentences vary, as a long standard's do.
func hugeText(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	subjects := []string{"The operator", "Each record", "The archive", "An auditor", "The system", "Every backup", "The supplier", "A user account"}
	verbs := []string{"shall keep", "must check", "should encrypt", "shall report", "must retain", "may delete", "shall protect", "must log"}
	objects := []string{"the audit trail", "all invoices", "the access keys", "each change", "the incident log", "personal data", "the configuration", "every session"}
	var b strings.Builder
	b.Grow(n + 4096)
	section := 0
	for b.Len() < n-8192 { // a section is far shorter than 8 kB
		section++
		fmt.Fprintf(&b, "\n## %d.%d Requirements of area %d\n\n", section/20+1, section%20+1, section)
		for range 3 + r.IntN(6) {
			for range 2 + r.IntN(6) {
				fmt.Fprintf(&b, "%s %s %s for %d years after step %d. ", subjects[r.IntN(len(subjects))],
					verbs[r.IntN(len(verbs))], objects[r.IntN(len(objects))], 1+r.IntN(12), r.IntN(100000))
			}
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// hugePDF is a PDF of about n bytes of text, set in two columns.
func hugePDF(n int) []byte {
	text := hugeText(n)
	var blocks []pdfwrite.Block
	for _, para := range strings.Split(text, "\n\n") {
		para = strings.TrimSpace(para)
		if h, ok := strings.CutPrefix(para, "## "); ok {
			blocks = append(blocks, pdfwrite.Block{Heading: true, Text: h})
		} else if para != "" {
			blocks = append(blocks, pdfwrite.Block{Text: para})
		}
	}
	doc := pdfwrite.Document{Pages: pdfwrite.Layout{Footer: "Page %d", Columns: 2, Size: 8}.Pages(blocks), Compress: true}
	return doc.Bytes()
}

// tinyDOCX is a DOCX of n paragraphs of one letter each.
func tinyDOCX(b *testing.B, n int) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("word/document.xml")
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`)
	for range n {
		bw.WriteString(`<w:p><w:r><w:t>a</w:t></w:r></w:p>`)
	}
	bw.WriteString(`</w:body></w:document>`)
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// pagesPDF is a PDF of n pages, each a sentence of its own at one of a
// few heights (none a running header), written as small as pages can be:
// the pages' dictionaries are 50 bytes, their text a stream of its own —
// or, shared, one stream for all, so that 800,000 pages stay under the
// size limit of a document.
func pagesPDF(n int, shared bool) []byte {
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
	kids := make([]string, 0, n)
	for i := range n {
		if i == 0 || !shared {
			content := fmt.Sprintf("BT /F1 11 Tf 72 %d Td (Clause %d: records of kind %c are kept for %d years.) Tj ET", 400+i%7*20, i+1, 'A'+i%26, 1+i%12)
			objs = append(objs, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
		}
		contents := len(objs)
		if shared {
			contents = 4
		}
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /Contents %d 0 R >>", contents))
		kids = append(kids, fmt.Sprintf("%d 0 R", len(objs)))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> >>", strings.Join(kids, " "), n)
	return pdfwrite.Objects(objs, "")
}

func writeFile(b *testing.B, path string, data []byte) {
	b.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
}
