package document

import (
	"context"
	"creator/internal/corpustest"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"creator/internal/tokens"
)

// corpusFile is a file of the shared corpus of real documents, read in
// place.
func corpusFile(t testing.TB, name string) string {
	t.Helper()
	return corpustest.Path(t, name)
}

// wordBag counts the words of a text. Punctuation around a word is not part
// of it, and neither are hyphens inside it: pdftotext joins every word
// divided at a line end ("out-ofband"), while the extractor keeps real
// hyphens ("out-of-band"); comparing without hyphens compares the words.
func wordBag(s string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.Fields(s) {
		// Bars are a table's markup, no words.
		w = strings.ReplaceAll(strings.Trim(w, ".,;:()[]\"'“”‘’|"), "-", "")
		if w != "" {
			m[w]++
		}
	}
	return m
}

func wordF1(got, want string) (p, r, f float64) {
	g, w := wordBag(got), wordBag(want)
	var common, ng, nw int
	for k, v := range g {
		ng += v
		common += min(v, w[k])
	}
	for _, v := range w {
		nw += v
	}
	p, r = float64(common)/float64(ng), float64(common)/float64(nw)
	return p, r, 2 * p * r / (p + r)
}

// referenceBody is pdftotext's text without the running headers, footers
// and page numbers the extractor recognised in the same document: both
// sides are compared on the body text.
func referenceBody(ref string, running map[string]bool) string {
	var b strings.Builder
	for _, page := range strings.Split(ref, "\f") {
		for _, l := range strings.Split(page, "\n") {
			if !partOfRunning(runningKey(l), running) {
				b.WriteString(l + "\n")
			}
		}
	}
	return b.String()
}

func partOfRunning(k string, running map[string]bool) bool {
	if !strings.ContainsFunc(k, unicode.IsLetter) && len(k) < 5 {
		return false // a bare number: a page number or a table cell
	}
	if running[k] {
		return true
	}
	if len(k) < 8 {
		return false
	}
	for r := range running {
		if strings.Contains(r, k) {
			return true
		}
	}
	return false
}

// TestPDFWordF1 compares the extracted text of each corpus PDF with the text
// pdftotext gets from it. Goal: word-level F1 ≥ 0.98 for each.
func TestPDFWordF1(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"GoBD", "NIST.SP.800-63b", "NIST.SP.800-53r3", "shared-mime-info-spec"} {
		t.Run(name, func(t *testing.T) {
			path := corpusFile(t, name+".pdf")
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fi, _ := f.Stat()
			read, err := readPDF(context.Background(), f, fi.Size(), Options{}.workers(), "", nil, Options{}.maxPages())
			if err != nil {
				t.Fatal(err)
			}
			pages := read.lines
			running, _ := removeRunningLinesOf(pages, read.furniture)
			dehyphenate(pages)
			var got strings.Builder
			for _, p := range pages {
				got.WriteString(strings.Join(p, "\n") + "\n")
			}
			ref, err := os.ReadFile(corpusFile(t, name+".ref.txt"))
			if err != nil {
				t.Fatal(err)
			}
			p, r, f1 := wordF1(got.String(), referenceBody(string(ref), running))
			t.Logf("%s: precision %.4f recall %.4f F1 %.4f", name, p, r, f1)
			if f1 < 0.98 {
				t.Errorf("%s: word F1 %.4f < 0.98", name, f1)
			}
		})
	}
}

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// bodyText is the extracted text without page markers, whitespace collapsed.
func bodyText(doc *Document) string { return normalizeSpace(doc.Body()) }

func goldQuotes(t *testing.T, name string) []string {
	data, err := os.ReadFile(corpusFile(t, name))
	if err != nil {
		t.Fatal(err)
	}
	var gold []struct{ Quote string }
	if err := json.Unmarshal(data, &gold); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(gold))
	for i, g := range gold {
		out[i] = g.Quote
	}
	return out
}

func foundShare(t *testing.T, text string, quotes []string) float64 {
	n := 0
	for _, q := range quotes {
		if strings.Contains(text, normalizeSpace(q)) {
			n++
		}
	}
	t.Logf("%d of %d quotes found verbatim (%.1f%%)", n, len(quotes), 100*float64(n)/float64(len(quotes)))
	return float64(n) / float64(len(quotes))
}

// TestNIST63bSentences: at least 80% of the normative sentences of SP
// 800-63B are found verbatim, whitespace-normalised, in the extracted text
// (pdftotext's text: 81.7%).
func TestNIST63bSentences(t *testing.T) {
	t.Parallel()
	doc, err := Extract(corpusFile(t, "NIST.SP.800-63b.pdf"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if share := foundShare(t, bodyText(doc), goldQuotes(t, "NIST.SP.800-63b.gold.json")); share < 0.80 {
		t.Errorf("only %.1f%% of the gold sentences found", 100*share)
	}
}

// TestRFC9000Quotes: at least 99% of the 532 normative quotes of RFC 9000
// are found verbatim, whitespace-normalised, in its extracted text.
func TestRFC9000Quotes(t *testing.T) {
	t.Parallel()
	doc, err := Extract(corpusFile(t, "rfc9000.txt"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if share := foundShare(t, bodyText(doc), goldQuotes(t, "rfc9000.gold.json")); share < 0.99 {
		t.Errorf("only %.1f%% of the gold quotes found", 100*share)
	}
}

func TestChunkCorpus(t *testing.T) {
	t.Parallel()
	counter := tokens.Default()
	cases := []struct {
		doc   string
		paths []string // heading paths that some chunk must carry
	}{
		{"GoBD.pdf", []string{
			"1. Allgemeines",
			"3. Allgemeine Anforderungen > 3.2 Grundsätze der Wahrheit, Klarheit und fortlaufenden Aufzeichnung > 3.2.1 Vollständigkeit (§ 146 Absatz 1 AO, § 239 Absatz 2 HGB)",
			"4. Belegwesen (Belegfunktion) > 4.3 Erfassungsgerechte Aufbereitung der Buchungsbelege",
			"9. Aufbewahrung > 9.1 Maschinelle Auswertbarkeit (§ 147 Absatz 2 Nummer 2 AO)",
			"11. Datenzugriff > 11.1 Umfang und Ausübung des Rechts auf Datenzugriff nach § 147 Absatz 6",
		}},
		{"rfc9000.txt", []string{
			"2. Streams",
			"5. Connections > 5.1. Connection ID > 5.1.1. Issuing Connection IDs",
			"8. Address Validation > 8.1. Address Validation during Connection Establishment > 8.1.3. Address Validation for Future Connections",
			"Appendix A. Pseudocode > A.1. Sample Variable-Length Integer Decoding",
		}},
	}
	for _, c := range cases {
		doc, err := Extract(corpusFile(t, c.doc), Options{})
		if err != nil {
			t.Fatal(err)
		}
		text := doc.Text()
		for _, limit := range []int{DefaultChunkTokens, 300} {
			chunks := ChunkText(text, limit, counter)
			var joined strings.Builder
			headings := map[string]bool{}
			lastLine := 0
			for _, ch := range chunks {
				if ch.Tokens > limit || counter.Count(ch.Text) != ch.Tokens {
					t.Errorf("%s/%d: %s has %d tokens (counted %d), limit %d", c.doc, limit, ch.ID, ch.Tokens, counter.Count(ch.Text), limit)
				}
				if ch.StartLine < lastLine || ch.EndLine < ch.StartLine {
					t.Errorf("%s/%d: %s spans lines %d-%d after line %d", c.doc, limit, ch.ID, ch.StartLine, ch.EndLine, lastLine)
				}
				lastLine = ch.EndLine
				joined.WriteString(ch.Text)
				headings[ch.Heading] = true
				for _, s := range ch.Sections {
					headings[s] = true
				}
			}
			if joined.String() != text {
				t.Errorf("%s/%d: the chunks do not add up to the text", c.doc, limit)
			}
			for _, p := range c.paths {
				if !headings[p] {
					t.Errorf("%s/%d: no chunk has heading path %q", c.doc, limit, p)
				}
			}
			t.Logf("%s: %d chunks at %d tokens", c.doc, len(chunks), limit)
		}
	}
}

// TestPDFWorkersGiveTheSameText extracts every corpus PDF, and the
// project's own, page after page and with pages read at once by more
// workers than there are cores: the text must be the same, byte for byte.
func TestPDFWorkersGiveTheSameText(t *testing.T) {
	t.Parallel()
	// The project's PDF first, and each corpus PDF looked for in its own
	// subtest: without the corpus only those subtests skip.
	paths := []string{filepath.Join("..", "..", "testdata", "sample", "retention-policy.pdf")}
	for _, name := range corpusPDFs {
		paths = append(paths, filepath.Join(corpustest.Dir(), name+".pdf"))
	}
	for k, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			if k > 0 {
				corpusFile(t, filepath.Base(path))
			}
			serial, err := Extract(path, Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{2, 5} {
				parallel, err := Extract(path, Options{Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				if parallel.Text() != serial.Text() || strings.Join(parallel.Notes, "\n") != strings.Join(serial.Notes, "\n") {
					t.Errorf("%d workers: the text differs from one worker's", workers)
				}
			}
		})
	}
}

// TestDamagedPDF reads a PDF whose cross-reference table a download cut
// off: its text is the text of the same file repaired, and a note says
// what was done. A file cut in half, which no tool can repair, is refused
// with what is wrong and what may repair it.
func TestDamagedPDF(t *testing.T) {
	t.Parallel()
	damaged, err := Extract(corpusFile(t, "mqtt-v3.1.1-os.truncated.pdf"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Extract(corpusFile(t, "mqtt-v3.1.1-os.pdf"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if damaged.Text() != whole.Text() {
		t.Error("the damaged copy's text differs from the repaired copy's")
	}
	if len(damaged.Notes) != 1 || !strings.Contains(damaged.Notes[0], "cross-reference table is damaged") || len(whole.Notes) != 0 {
		t.Errorf("notes: damaged %q, whole %q", damaged.Notes, whole.Notes)
	}
	half := filepath.Join(t.TempDir(), "half.pdf")
	data, _ := os.ReadFile(corpusFile(t, "mqtt-v3.1.1-os.pdf"))
	os.WriteFile(half, data[:len(data)/3], 0o644)
	if _, err := Extract(half, Options{}); err == nil || !strings.Contains(err.Error(), "not a readable PDF") || !strings.Contains(err.Error(), "qpdf") {
		t.Errorf("a third of a PDF: %v", err)
	}
}
