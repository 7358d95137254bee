package document

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

const benchHelperEnv = "DOCUMENT_BENCH_EXTRACT"

// TestMain lets the test binary extract one document as a child process,
// so that the benchmark can measure its peak memory.
func TestMain(m *testing.M) {
	if path := os.Getenv(benchHelperEnv); path != "" {
		doc, err := Extract(path, Options{})
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString(doc.Text())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// BenchmarkExtractNIST80053 extracts the 237-page NIST SP 800-53 rev. 3 in a
// child process, and pdftotext the same file when it is installed. It
// reports the extraction time (ns/op), pdftotext's time, their ratio (goal:
// at most 2) and the extraction's peak memory in MB (goal: under 300).
func BenchmarkExtractNIST80053(b *testing.B) {
	path := corpusFile(b, "NIST.SP.800-53r3.pdf")
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	pdftotext, _ := exec.LookPath("pdftotext")
	var ours, theirs time.Duration
	var peakKB int64
	for b.Loop() {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), benchHelperEnv+"="+path)
		start := time.Now()
		if out, err := cmd.Output(); err != nil || len(out) == 0 {
			b.Fatalf("extraction failed: %v", err)
		}
		ours += time.Since(start)
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peakKB = max(peakKB, ru.Maxrss)
		}
		if pdftotext != "" {
			start = time.Now()
			if err := exec.Command(pdftotext, path, os.DevNull).Run(); err != nil {
				b.Fatalf("pdftotext: %v", err)
			}
			theirs += time.Since(start)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(peakKB)/1024, "peak-MB")
	if pdftotext == "" {
		b.Log("pdftotext is not installed (make bench installs poppler-utils); no ratio")
		return
	}
	b.ReportMetric(float64(theirs.Nanoseconds())/float64(b.N), "pdftotext-ns/op")
	b.ReportMetric(float64(ours)/float64(theirs), "x-pdftotext")
}

// BenchmarkSentencesLongLine splits one line of about 200 KB, as a text
// extracted without line breaks gives, into sentences: the work per full
// stop must not grow with the rest of the line.
func BenchmarkSentencesLongLine(b *testing.B) {
	text := strings.Repeat("Revenue rose by 12 percent in 2019. The report lists 5 items: see Section 5.2.8. It took 3 weeks, i.e. 21 days. ", 1800)
	opts := SentenceOptions{ListsEnd: true, NumbersEnd: true}
	want := len(Sentences(text, opts))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if got := len(Sentences(text, opts)); got != want {
			b.Fatalf("%d sentences, then %d", want, got)
		}
	}
	b.ReportMetric(float64(want), "sentences")
}
