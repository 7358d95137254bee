package index

import (
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
// 4500 pages; its extracted text, with page lines, just under the limit).
const (
	hugeTextBytes = document.DefaultMaxText
	hugePDFText   = 28_000_000
	// hugeChunkTokens is the chunk size the agent asks for by default.
	hugeChunkTokens = 1500
	hugeChunkBytes  = 6000 // about hugeChunkTokens
	// phaseEnv names the phase a child process runs, phaseDirEnv its folder.
	phaseEnv    = "CREATOR_HUGE_PHASE"
	phaseDirEnv = "CREATOR_HUGE_DIR"
)

func BenchmarkHuge(b *testing.B) {
	dir := b.TempDir()
	text := hugeText(hugeTextBytes)
	writeFile(b, filepath.Join(dir, "huge.md"), []byte(text))
	writeFile(b, filepath.Join(dir, "huge.txt"), []byte(text))
	writeFile(b, filepath.Join(dir, "huge.pdf"), hugePDF(hugePDFText))
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
	for _, phase := range []string{"extract-markdown", "extract-text", "extract-pdf", "chunk", "index"} {
		b.Run(phase, func(b *testing.B) {
			var peak int64
			var took time.Duration
			for range b.N {
				rss, d := runPhase(b, phase, dir)
				peak, took = max(peak, rss), took+d
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
			b.ReportMetric(took.Seconds()/float64(b.N), "phase-s")
		})
	}
}

// runPhase runs the phase in a child process (this test binary, running
// TestHugePhase) and returns its peak resident memory in bytes and how
// long the phase itself took. The child reports its own peak (VmHWM):
// the ru_maxrss of a child started by os/exec also counts the parent's,
// whose memory it shares until it executes.
func runPhase(b *testing.B, phase, dir string) (int64, time.Duration) {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHugePhase$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), phaseEnv+"="+phase, phaseDirEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("phase %s: %v\n%s", phase, err, out)
	}
	var ns, kb int64
	if _, after, ok := strings.Cut(string(out), "phase took "); ok {
		fmt.Sscanf(after, "%d ns, peak %d kB", &ns, &kb)
	}
	if ns == 0 || kb == 0 {
		b.Fatalf("phase %s said nothing of its time and memory:\n%s", phase, out)
	}
	return kb << 10, time.Duration(ns)
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
	switch phase {
	case "extract-markdown", "extract-text", "extract-pdf":
		name := map[string]string{"extract-markdown": "huge.md", "extract-text": "huge.txt", "extract-pdf": "huge.pdf"}[phase]
		run = func() error {
			doc, err := document.ExtractContext(ctx, filepath.Join(dir, name), document.Options{})
			if err == nil {
				_ = doc.Text() // what extract_document writes next
			}
			return err
		}
	case "chunk":
		data, err := os.ReadFile(filepath.Join(dir, "huge.md"))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		run = func() error {
			_, err := document.ChunkTextContext(ctx, text, hugeChunkTokens, tokens.Default())
			return err
		}
	case "index":
		job := filepath.Join(dir, "job")
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

func writeFile(b *testing.B, path string, data []byte) {
	b.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
}
