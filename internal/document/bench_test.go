package document

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"creator/internal/pdfcrypt"
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

// corpusPDFs are the PDFs of the shared corpus, by name without .pdf.
var corpusPDFs = []string{"GoBD", "NIST.SP.800-63b", "NIST.SP.800-53r3", "shared-mime-info-spec"}

// BenchmarkExtractPDF extracts each corpus PDF in a child process, and
// pdftotext the same file right after it when it is installed, so that
// both see the same machine load. It reports the median time of each
// (ms), the ratio of the medians (goal: at most 1 on NIST.SP.800-53r3) and
// the extraction's peak memory in MB. ns/op is the extraction alone.
// Medians need several runs: -benchtime 21x.
func BenchmarkExtractPDF(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	pdftotext, _ := exec.LookPath("pdftotext")
	if pdftotext == "" {
		b.Log("pdftotext is not installed (make bench installs poppler-utils); no ratio")
	}
	for _, name := range corpusPDFs {
		b.Run(name, func(b *testing.B) {
			path := corpusFile(b, name+".pdf")
			var ours, theirs []time.Duration
			var peakKB int64
			for b.Loop() {
				cmd := exec.Command(exe, "-test.run=^$")
				cmd.Env = append(os.Environ(), benchHelperEnv+"="+path)
				start := time.Now()
				if out, err := cmd.Output(); err != nil || len(out) == 0 {
					b.Fatalf("extraction failed: %v", err)
				}
				ours = append(ours, time.Since(start))
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
					peakKB = max(peakKB, ru.Maxrss)
				}
				if pdftotext != "" {
					b.StopTimer()
					start = time.Now()
					if err := exec.Command(pdftotext, path, os.DevNull).Run(); err != nil {
						b.Fatalf("pdftotext: %v", err)
					}
					theirs = append(theirs, time.Since(start))
					b.StartTimer()
				}
			}
			b.ReportMetric(float64(peakKB)/1024, "peak-MB")
			b.ReportMetric(ms(median(ours)), "ms")
			if len(theirs) > 0 {
				b.ReportMetric(ms(median(theirs)), "pdftotext-ms")
				b.ReportMetric(float64(median(ours))/float64(median(theirs)), "x-pdftotext")
			}
		})
	}
}

// BenchmarkExtractPDFInProcess extracts each corpus PDF in the benchmark's
// own process, for go test -cpuprofile and -memprofile.
func BenchmarkExtractPDFInProcess(b *testing.B) {
	for _, name := range corpusPDFs {
		b.Run(name, func(b *testing.B) {
			path := corpusFile(b, name+".pdf")
			for b.Loop() {
				if _, err := Extract(path, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

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

// BenchmarkExtractEncryptedPDF extracts corpus PDFs encrypted with AES-256
// and an owner password only, in process: the cost of decrypting the file
// before it is read, next to BenchmarkExtractPDFInProcess on the same PDFs.
func BenchmarkExtractEncryptedPDF(b *testing.B) {
	for _, name := range []string{"GoBD", "NIST.SP.800-53r3"} {
		b.Run(name, func(b *testing.B) {
			plain, err := os.ReadFile(corpusFile(b, name+".pdf"))
			if err != nil {
				b.Fatal(err)
			}
			data, err := pdfcrypt.Encrypt(plain, pdfcrypt.AES256, "", "owner")
			if err != nil {
				b.Fatal(err)
			}
			path := write(b, name+".pdf", data)
			for b.Loop() {
				if _, err := Extract(path, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
