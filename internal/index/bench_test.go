package index

import (
	"context"
	"creator/internal/corpustest"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"creator/internal/document"
)

// benchWords are looked up by the index and by grep alike.
var benchWords = []string{
	"audit", "cryptographic", "authenticator", "incident", "boundary",
	"baseline", "privilege", "encryption", "malicious", "contingency",
	"sanitization", "portable", "wireless", "session", "backup",
	"maintenance", "supply", "physical", "tamper", "spam",
}

const (
	benchFiles     = 2000
	benchFileBytes = 5000
	// smokeFiles are the chunk files of a smoke run.
	smokeFiles = 200
)

// benchSmoke reports whether CREATOR_BENCH_SMOKE=1 asks for the run of
// every benchmark once that CI makes (make bench-smoke), in seconds: the
// benchmarks take smaller inputs, and their goals of time, which neither
// the smaller input nor a machine shared with other work can show, are
// reported but not held; each benchmark says which.
func benchSmoke() bool { return os.Getenv("CREATOR_BENCH_SMOKE") == "1" }

// benchFolder writes benchFiles chunk files of about benchFileBytes each
// (smokeFiles in a smoke run), cut from the text of NIST SP 800-53 Rev. 3
// at shifting offsets (about 10 MB in all), and returns the folder and the
// text.
func benchFolder(b *testing.B) (string, string) {
	b.Helper()
	pdf := corpustest.Path(b, "NIST.SP.800-53r3.pdf")
	doc, err := document.Extract(pdf, document.Options{})
	if err != nil {
		b.Fatal(err)
	}
	text := doc.Text()
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "chunks"), 0o755); err != nil {
		b.Fatal(err)
	}
	files := benchFiles
	if benchSmoke() {
		files = smokeFiles
	}
	total := 0
	for i := range files {
		piece := window(text, (i*benchFileBytes+i/150*1733)%len(text), benchFileBytes)
		total += len(piece)
		if err := os.WriteFile(filepath.Join(dir, "chunks", fmt.Sprintf("chunk_%04d.md", i+1)), []byte(piece), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%d files, %.1f MB", files, float64(total)/1e6)
	return dir, text
}

// window is about n bytes of whole lines of text from offset on, wrapping
// around at the end.
func window(text string, offset, n int) string {
	if i := strings.IndexByte(text[offset:], '\n'); i >= 0 {
		offset += i + 1
	}
	var b strings.Builder
	for b.Len() < n {
		if offset >= len(text) {
			offset = 0
		}
		line, _, _ := strings.Cut(text[offset:], "\n")
		b.WriteString(line + "\n")
		offset += len(line) + 1
	}
	return b.String()
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkSearchNIST80053 indexes 2,000 chunk files (about 10 MB) built
// from the text of NIST SP 800-53 Rev. 3, then measures a ranked query
// (goal: median ≤ 10 ms), `grep -rin` over the same files for the same
// words and the ratio (goal: at least 10× faster than grep), and indexing
// one 6 KB chunk written, the batch the next search runs first (goal:
// median ≤ 5 ms).
//
// A smoke run (CREATOR_BENCH_SMOKE=1, as CI's) indexes 200 files and holds
// none of the three goals, which are of time: each query and write must
// still succeed.
func BenchmarkSearchNIST80053(b *testing.B) {
	dir, text := benchFolder(b)
	start := time.Now()
	x, err := Open(context.Background(), dir, os.DirFS(dir))
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	b.Logf("indexed %d files in %s", x.Stats().Files, time.Since(start).Round(time.Millisecond))

	var queryMedian time.Duration
	b.Run("query", func(b *testing.B) {
		var ds []time.Duration
		for b.Loop() {
			for _, w := range benchWords {
				t := time.Now()
				res, err := x.Search(context.Background(), Query{Text: w})
				ds = append(ds, time.Since(t))
				if err != nil || len(res.Hits) == 0 {
					b.Fatalf("%s: %v, %d hits", w, err, len(res.Hits))
				}
			}
		}
		queryMedian = median(ds)
		b.ReportMetric(ms(queryMedian), "median-ms/query")
		b.ReportMetric(0, "ns/op")
		if queryMedian > 10*time.Millisecond && !benchSmoke() {
			b.Errorf("median query %s, goal ≤ 10 ms", queryMedian)
		}
	})

	b.Run("grep", func(b *testing.B) {
		grep, err := exec.LookPath("grep")
		if err != nil {
			b.Skip("grep is not installed")
		}
		var ds []time.Duration
		for b.Loop() {
			for _, w := range benchWords {
				cmd := exec.Command(grep, "-rin", w, filepath.Join(dir, "chunks"))
				// A pipe, not /dev/null: GNU grep stops at the first match
				// when its output is /dev/null. The C locale is grep's
				// fastest (about a third faster than a UTF-8 one).
				cmd.Stdout = io.Discard
				cmd.Env = append(os.Environ(), "LC_ALL=C")
				t := time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatalf("grep %s: %v", w, err)
				}
				ds = append(ds, time.Since(t))
			}
		}
		m := median(ds)
		b.ReportMetric(ms(m), "median-ms/query")
		b.ReportMetric(0, "ns/op")
		if queryMedian > 0 {
			ratio := float64(m) / float64(queryMedian)
			b.ReportMetric(ratio, "grep/index")
			b.Logf("grep -rin median %s, index median %s: %.0f× (LC_ALL=C)", m, queryMedian, ratio)
			if ratio < 10 && !benchSmoke() {
				b.Errorf("the index is %.1f× faster than grep, goal ≥ 10×", ratio)
			}
		}
	})

	b.Run("index-chunk", func(b *testing.B) {
		ds := timeWrites(b, dir, text, func(rel string) {
			x.FileChanged(rel)
			// FileChanged only notes the file: it is indexed in one
			// batch with the others written before the next search.
			// That batch, of one file here, is what a write costs.
			x.mu.Lock()
			x.refreshDirty()
			x.mu.Unlock()
		})
		x.mu.Lock()
		dirty := len(x.dirty)
		x.mu.Unlock()
		if dirty > 0 {
			b.Fatalf("indexing failed for %d files", dirty)
		}
		m := median(ds)
		b.ReportMetric(ms(m), "median-ms/chunk")
		if m > 5*time.Millisecond && !benchSmoke() {
			b.Errorf("median indexing of a 6 KB chunk %s, goal ≤ 5 ms", m)
		}
	})
}

// BenchmarkHybridNIST80053 embeds the 2,000 chunk files of
// BenchmarkSearchNIST80053 (384 dimensions), then measures a hybrid query,
// BM25 and cosine over every passage fused by rank (goal: median ≤ 10 ms
// besides the embedding call for the query), and indexing and embedding
// one 6 KB chunk on write.
//
// A smoke run (CREATOR_BENCH_SMOKE=1, as CI's) embeds 200 files and does
// not hold the goal of time.
func BenchmarkHybridNIST80053(b *testing.B) {
	dir, text := benchFolder(b)
	x, err := OpenWith(context.Background(), dir, os.DirFS(dir), Options{Embedder: &bagEmbedder{model: "bag", dim: 384}})
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	start := time.Now()
	if err := x.embedPending(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Logf("embedded %d passages in %s", len(x.vec.byKey), time.Since(start).Round(time.Millisecond))

	b.Run("query", func(b *testing.B) {
		var ds []time.Duration
		for b.Loop() {
			for _, w := range benchWords {
				t := time.Now()
				res, err := x.Search(context.Background(), Query{Text: w, Mode: ModeHybrid})
				ds = append(ds, time.Since(t))
				if err != nil || len(res.Hits) == 0 || res.Mode != ModeHybrid {
					b.Fatalf("%s: %v, %+v", w, err, res)
				}
			}
		}
		m := median(ds)
		b.ReportMetric(ms(m), "median-ms/query")
		b.ReportMetric(0, "ns/op")
		if m > 10*time.Millisecond && !benchSmoke() {
			b.Errorf("median hybrid query %s, goal ≤ 10 ms", m)
		}
	})

	b.Run("index-chunk", func(b *testing.B) {
		ds := timeWrites(b, dir, text, func(rel string) {
			x.FileChanged(rel)
			if err := x.embedPending(context.Background()); err != nil {
				b.Fatal(err)
			}
		})
		x.mu.Lock()
		dirty, unembedded := len(x.dirty), len(x.unembedded)
		x.mu.Unlock()
		if dirty > 0 || unembedded > 0 {
			b.Fatalf("%d files not indexed, %d not embedded", dirty, unembedded)
		}
		b.ReportMetric(ms(median(ds)), "median-ms/chunk")
	})
}

// timeWrites writes a 6 KB chunk of text into dir at every iteration and
// times what index does with it.
func timeWrites(b *testing.B, dir, text string, index func(rel string)) []time.Duration {
	var ds []time.Duration
	i := 0
	for b.Loop() {
		b.StopTimer()
		chunk := window(text, (i*7919)%len(text), 6000)
		rel := fmt.Sprintf("chunks/new_%03d.md", i%50)
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), []byte(chunk), 0o644); err != nil {
			b.Fatal(err)
		}
		i++
		b.StartTimer()
		t := time.Now()
		index(rel)
		ds = append(ds, time.Since(t))
	}
	return ds
}
