package document

import (
	"archive/zip"
	"bytes"
	"creator/internal/corpustest"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"creator/internal/badfiles"
	"creator/internal/pdfwrite"
	"creator/internal/tokens"
)

// write puts data in a file named name in a fresh folder.
func write(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func extract(t *testing.T, name string, data []byte) *Document {
	t.Helper()
	doc, err := Extract(write(t, name, data), Options{})
	if err != nil {
		t.Fatalf("Extract(%s): %v", name, err)
	}
	return doc
}

func mustContain(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
}

func mustLack(t *testing.T, text string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if strings.Contains(text, b) {
			t.Errorf("text contains %q:\n%s", b, text)
		}
	}
}

func TestPDFRunningLinesPageMarksAndHyphenation(t *testing.T) {
	t.Parallel()
	var blocks []pdfwrite.Block
	for i := 1; i <= 24; i++ {
		blocks = append(blocks, pdfwrite.Block{Text: fmt.Sprintf("Clause %d: the operator must keep all booking records of category %d in the archive. ", i, i) +
			strings.Repeat(fmt.Sprintf("Records of category %d are reviewed every year. ", i), 4) +
			"Die Buchungs\u00adbelege sind zehn Jahre lang unver\u00adänder\u00adbar auf\u00adzu\u00adbe\u00adwah\u00adren."})
	}
	doc := &pdfwrite.Document{Compress: true, Pages: pdfwrite.Layout{Header: "ACME Retention Policy v2", Footer: "Page %d", Size: 11, Columns: 1}.Pages(blocks)}
	got := extract(t, "policy.pdf", doc.Bytes())
	text := got.Text()
	if len(got.Pages) < 3 || !got.Paged {
		t.Fatalf("%d pages, paged %v", len(got.Pages), got.Paged)
	}
	mustContain(t, text, "--- page 1 ---\n", "--- page 2 ---\n", "unveränderbar aufzubewahren", "Buchungsbelege")
	mustLack(t, text, "ACME Retention Policy", "Page 1", "Page 2", "aufzu-", "unver-")
	body := normalizeSpace(got.Body())
	for i := 1; i <= 24; i++ {
		if n := strings.Count(body, fmt.Sprintf("Records of category %d are reviewed every year.", i)); n != 4 {
			t.Errorf("clause %d: sentence found %d times, want 4", i, n)
		}
	}
}

func TestPDFTwoColumnsReadColumnByColumn(t *testing.T) {
	t.Parallel()
	var blocks []pdfwrite.Block
	var want []string
	for i := range 24 {
		p := fmt.Sprintf("Paragraph %02d begins here. It has enough words to run over several lines of its column, which are read in order. Paragraph %02d ends here.", i, i)
		blocks = append(blocks, pdfwrite.Block{Text: p})
		want = append(want, p)
	}
	doc := &pdfwrite.Document{Pages: pdfwrite.Layout{Columns: 2, Size: 10}.Pages(blocks)}
	text := normalizeSpace(extract(t, "cols.pdf", doc.Bytes()).Body())
	// Each paragraph stays whole, and they come in the order they were set:
	// down the left column, then down the right one, page by page.
	last := -1
	for _, p := range want {
		i := strings.Index(text, p)
		if i < 0 {
			t.Fatalf("paragraph not found whole: %q\nin %s", p, text)
		}
		if i < last {
			t.Fatalf("paragraph out of order: %q", p[:12])
		}
		last = i
	}
}

func TestPDFRotatedTextAndSuperscripts(t *testing.T) {
	t.Parallel()
	doc := &pdfwrite.Document{Pages: []pdfwrite.Page{{Texts: []pdfwrite.Text{
		{X: 72, Y: 700, Size: 12, S: "Records must be kept for ten years."},
		{X: 262, Y: 704, Size: 7, S: "12"}, // footnote mark after "years."
		{X: 72, Y: 686, Size: 12, S: "This sentence continues the paragraph."},
		{X: 540, Y: 100, Size: 10, Rotate: 90, S: "Rotated margin note must be read."},
	}}}}
	text := extract(t, "rot.pdf", doc.Bytes()).Body()
	mustContain(t, text, "Rotated margin note must be read.", "Records must be kept for ten years.")
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if !strings.HasPrefix(lines[0], "Records must be kept for ten years.") || !strings.Contains(lines[0], "12") {
		t.Errorf("the footnote mark is not on its line: %q", lines)
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	sample := (&pdfwrite.Document{Pages: []pdfwrite.Page{{Texts: []pdfwrite.Text{{X: 72, Y: 700, Size: 12, S: "Hello"}}}}}).Bytes()
	var docxNoBody bytes.Buffer
	zw := zip.NewWriter(&docxNoBody)
	w, _ := zw.Create("word/styles.xml")
	w.Write([]byte("<styles/>"))
	zw.Close()
	cases := []struct {
		name string
		data []byte
		opts Options
		want string
	}{
		{"empty.pdf", nil, Options{}, "is empty"},
		{"random.pdf", bytes.Repeat([]byte{0x13, 0x37, 0xde, 0xad}, 500), Options{}, "is named .pdf but is not a PDF"},
		{"truncated.pdf", sample[:len(sample)/2], Options{}, "PDF"},
		{"encrypted.pdf", (&pdfwrite.Document{Encrypted: true, Pages: []pdfwrite.Page{{Texts: []pdfwrite.Text{{X: 72, Y: 700, Size: 12, S: "Secret"}}}}}).Bytes(), Options{}, "this PDF needs a password"},
		{"scan.pdf", (&pdfwrite.Document{Pages: []pdfwrite.Page{{Image: true}, {Image: true}}}).Bytes(), Options{}, "no text layer — is it scanned?"},
		{"nounicode.pdf", (&pdfwrite.Document{Pages: []pdfwrite.Page{{Texts: []pdfwrite.Text{{X: 72, Y: 700, Size: 12, Font: pdfwrite.NoUnicode, S: "Invisible words"}}}}}).Bytes(), Options{}, "fonts without a Unicode map"},
		{"big.txt", bytes.Repeat([]byte("a"), 2000), Options{MaxBytes: 1000}, "documents over 1.0 KB are not read"},
		{"binary.txt", []byte("\x00\x01\x02ELF\x00\x00"), Options{}, "is not a text document"},
		{"fake.docx", []byte("just text, no zip"), Options{}, "is named .docx but is not a Word document"},
		{"nobody.docx", docxNoBody.Bytes(), Options{}, "word/document.xml is missing"},
		{"old.doc", []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, Options{}, ".doc files are not supported"},
		{"blank.txt", []byte("   \n\n \t\n"), Options{}, "no text could be extracted"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Extract(write(t, c.name, c.data), c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Extract(%s) = %v, want an error containing %q", c.name, err, c.want)
			}
			if !strings.HasPrefix(err.Error(), c.name) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
	t.Run("folder", func(t *testing.T) {
		if _, err := Extract(t.TempDir(), Options{}); err == nil || !strings.Contains(err.Error(), "is a folder") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestTextEncodings(t *testing.T) {
	t.Parallel()
	want := "Die Belege müssen aufbewahrt werden – Größe ≥ 5 €."
	utf16le := []byte{0xFF, 0xFE}
	utf16be := []byte{0xFE, 0xFF}
	for _, r := range want {
		utf16le = append(utf16le, byte(r), byte(r>>8))
		utf16be = append(utf16be, byte(r>>8), byte(r))
	}
	latin1 := []byte("Die Belege m\xfcssen aufbewahrt werden \x96 Gr\xf6\xdfe \x80 5.")
	cases := map[string][]byte{
		"utf8.txt":    []byte(want),
		"bom.txt":     append([]byte{0xEF, 0xBB, 0xBF}, want...),
		"utf16le.txt": utf16le,
		"utf16be.md":  utf16be,
	}
	for name, data := range cases {
		if got := strings.TrimSpace(extract(t, name, data).Text()); got != want {
			t.Errorf("%s: %q", name, got)
		}
	}
	if got := strings.TrimSpace(extract(t, "latin1.txt", latin1).Text()); got != "Die Belege müssen aufbewahrt werden – Größe € 5." {
		t.Errorf("latin1: %q", got)
	}
}

// rfcPages is paginated RFC text: each page ends with a footer and the next
// starts with a running header; a sentence crosses every page break.
func rfcPages(formFeeds bool) string {
	words := []string{"stream", "frame", "packet", "connection", "token"}
	var b strings.Builder
	for p := 1; p <= 5; p++ {
		if p > 1 {
			b.WriteString("RFC 9999                 Example Protocol                    May 2026\n\n\n")
			b.WriteString(fmt.Sprintf("   continues on page %d.  An endpoint MUST NOT send a %s\n", p, words[p-1]))
		} else {
			b.WriteString("   An endpoint MUST NOT send a " + words[0] + "\n")
		}
		b.WriteString("   before the handshake completes; receivers MUST treat this as\n")
		b.WriteString(fmt.Sprintf("   an error.  The %s rule on page %d is a sentence that\n\n\n\n", words[p-1], p))
		b.WriteString(fmt.Sprintf("Doe & Roe                    Standards Track                  [Page %d]\n", p))
		if formFeeds {
			b.WriteString("\f")
		}
	}
	b.WriteString("   continues on the last page and ends here.\n")
	return b.String()
}

func TestRFCPageFurniture(t *testing.T) {
	t.Parallel()
	for _, ff := range []bool{true, false} {
		doc := extract(t, "rfc9999.txt", []byte(rfcPages(ff)))
		text := doc.Text()
		mustLack(t, text, "Standards Track", "[Page", "Example Protocol")
		mustContain(t, text, "--- page 2 ---")
		body := normalizeSpace(doc.Body())
		mustContain(t, body, "The frame rule on page 2 is a sentence that continues on page 3.",
			"The token rule on page 5 is a sentence that continues on the last page and ends here.")
	}
}

func TestHTML(t *testing.T) {
	t.Parallel()
	html := `<!DOCTYPE html><html><head><title>T</title><style>p{color:red}</style><script>var x = "MUST NOT show";</script></head>
<body><h1>Retention <em>policy</em></h1><p>Records <b>must</b> be kept
for ten years.</p><ul><li>First item</li><li>Second item</li></ul>
<table><tr><th>Record</th><th>Period</th></tr><tr><td>Invoice</td><td>10 years</td></tr></table>
<h2>Details</h2><pre>line one
  line two
# grep -i umask /etc/login.defs</pre><p>Run this:<br># usbguard generate-policy</p><p>Soft&shy;hyphen word.</p></body></html>`
	text := extract(t, "page.html", []byte(html)).Text()
	mustContain(t, text, "# Retention policy\n", "Records must be kept for ten years.", "- First item\n- Second item",
		"\n| Record | Period |\n|---|---|\n| Invoice | 10 years |\n", "## Details", "line one\n  line two", "Softhyphen word.")
	mustLack(t, text, "MUST NOT show", "color:red")
	// A line of text that begins with "#", preformatted or not, is no
	// heading.
	chunks := ChunkText(text, 1000, wordCounter{})
	if len(chunks) != 1 || chunks[0].Heading != "Retention policy" || strings.Join(chunks[0].Sections, "|") != "Retention policy > Details" {
		t.Errorf("sections: %+v", chunks)
	}
}

func TestDOCX(t *testing.T) {
	t.Parallel()
	body := `<?xml version="1.0" encoding="UTF-8"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>
<w:p><w:pPr><w:pStyle w:val="berschrift1"/></w:pPr><w:r><w:t>Aufbewahrung</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">Belege sind zehn Jahre </w:t></w:r><w:r><w:t>aufzubewahren.</w:t></w:r></w:p>
<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/></w:numPr></w:pPr><w:r><w:t>Rechnungen</w:t></w:r></w:p>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Beleg</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Frist</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
<w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>Details</w:t></w:r></w:p>
</w:body></w:document>`
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("word/document.xml")
	w.Write([]byte(body))
	zw.Close()
	text := extract(t, "policy.docx", buf.Bytes()).Text()
	mustContain(t, text, "# Aufbewahrung\n", "Belege sind zehn Jahre aufzubewahren.", "- Rechnungen", "Beleg | Frist", "## Details")
}

// A paragraph after a list item ends the list: a group's title set as a
// paragraph ("R2: Location Services") is no part of the item above it.
func TestDOCXParagraphEndsList(t *testing.T) {
	t.Parallel()
	item := func(s string) string {
		return `<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/></w:numPr></w:pPr><w:r><w:t>` + s + `</w:t></w:r></w:p>`
	}
	para := func(s string) string { return `<w:p><w:r><w:t>` + s + `</w:t></w:r></w:p>` }
	body := `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
		para("R1: Accounts") + item("R1.1: Users must sign in with a password") + item("R1.2: Users must change their passwords") +
		para("R2: Location Services") + item("R2.1: The app must ask before it reads the location") + `</w:body></w:document>`
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("word/document.xml")
	w.Write([]byte(body))
	zw.Close()
	text := extract(t, "app.docx", buf.Bytes()).Text()
	mustContain(t, text, "- R1.2: Users must change their passwords\n\nR2: Location Services\n")
	spans := Sentences(text, SentenceOptions{ListsEnd: true})
	for _, sp := range spans {
		if s := text[sp.Start:sp.End]; strings.Contains(s, "passwords") && strings.Contains(s, "Location") {
			t.Errorf("the group's title is glued to the item before it: %q", s)
		}
	}
}

func TestSamplePDFMatchesItsSource(t *testing.T) {
	t.Parallel()
	doc, err := Extract("../../testdata/sample/retention-policy.pdf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile("../../testdata/sample/retention-policy.md")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.NewReplacer("*", "", "#", "").Replace(string(md))
	if p, r, f := wordF1(doc.Body(), src); f < 0.99 {
		t.Errorf("sample PDF text differs from its source: P %.3f R %.3f", p, r)
	}
	mustContain(t, normalizeSpace(doc.Body()), "5.1 Buchungsbelege und Rechnungen sind zehn Jahre lang unveränderbar aufzubewahren.")
}

func TestChunkSmallTexts(t *testing.T) {
	t.Parallel()
	counter := tokens.Default()
	if got := ChunkText("", 100, counter); len(got) != 0 {
		t.Errorf("empty text gave %d chunks", len(got))
	}
	text := "# Policy\n\nOne short paragraph.\n"
	got := ChunkText(text, 100, counter)
	if len(got) != 1 || got[0].Text != text || got[0].Heading != "Policy" || got[0].StartLine != 1 || got[0].EndLine != 3 {
		t.Fatalf("chunks = %+v", got)
	}
	// A sentence longer than a chunk is cut, nothing is lost.
	long := strings.Repeat("word ", 400) + "end.\n"
	got = ChunkText(long, 50, counter)
	var b strings.Builder
	for _, c := range got {
		if c.Tokens > 50 {
			t.Errorf("%s has %d tokens", c.ID, c.Tokens)
		}
		b.WriteString(c.Text)
	}
	if b.String() != long {
		t.Error("cut chunks do not add up to the text")
	}
}

func TestChunkNeverCutsASentence(t *testing.T) {
	t.Parallel()
	counter := tokens.Default()
	var b strings.Builder
	b.WriteString("1. Scope\n\n")
	for i := range 60 {
		b.WriteString("The operator must keep record number ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(" for ten years, z. B. in the archive. ")
	}
	b.WriteString("\n")
	for _, c := range ChunkText(b.String(), 120, counter) {
		body := strings.TrimSpace(c.Text)
		if !strings.HasSuffix(body, "archive.") {
			t.Errorf("%s ends inside a sentence: …%q", c.ID, body[max(0, len(body)-40):])
		}
	}
}

func TestPageOfChunks(t *testing.T) {
	t.Parallel()
	intro := strings.Repeat("An introduction that is long enough to fill half a chunk. ", 3)
	text := PageMarker(1) + "\n" + intro + "\n" + PageMarker(2) + "\n1. Scope\n\nBody on page two.\n" + PageMarker(3) + "\nMore.\n"
	got := ChunkText(text, 60, tokens.Default())
	if len(got) != 2 || got[0].FirstPage != 1 || got[0].LastPage != 1 || got[1].FirstPage != 2 || got[1].LastPage != 3 || got[1].Heading != "1. Scope" {
		t.Fatalf("chunks = %+v", got)
	}
}

// The project's hostile corpus: each document is refused with its error or
// read normally; a page tree that lists itself yields its page once.
func TestHostileCorpus(t *testing.T) {
	t.Parallel()
	for _, f := range badfiles.Files() {
		t.Run(f.Name, func(t *testing.T) {
			doc, err := Extract(write(t, f.Name, f.Data), Options{})
			if f.Refused {
				if err == nil || !strings.Contains(err.Error(), f.Error) {
					t.Fatalf("err = %v, want one containing %q", err, f.Error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(f.Name, ".pdf") && (len(doc.Pages) != 1 || !strings.Contains(doc.Body(), "Records must be kept for ten years.")) {
				t.Errorf("%d pages: %q", len(doc.Pages), doc.Body())
			}
		})
	}
}

// runningKey and isPageNumber give what their plain definitions give, on
// every line of the corpus's reference texts and on lines made to be hard.
func TestRunningKeyAndPageNumbers(t *testing.T) {
	t.Parallel()
	digits := regexp.MustCompile(`\d+`)
	lines := []string{"", " ", "12", "- 3 -", "Seite 4 von 9", "Page 7 of 120", "xii", "A-12", "p. 3", "S. 14 | 20",
		"ſeite 4", "\u212a", "Kapitel 4 — Überblick  12", "  NIST SP 800-53  Rev. 3 ", "Ärger\tim  Büro 2019", "\xff\xfe 12",
		"İstanbul 5", "a\u00a0b", "x\vy", "– ii –", "page 12 of", "abcdefghijklmnop 1", "i v x 3"}
	for _, name := range []string{"GoBD", "NIST.SP.800-63b", "NIST.SP.800-53r3", "shared-mime-info-spec"} {
		if p, ok := corpustest.Optional(t, name+".ref.txt"); ok {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, strings.Split(string(data), "\n")...)
		}
	}
	for _, l := range lines {
		if got, want := runningKey(l), strings.Join(strings.Fields(strings.ToLower(digits.ReplaceAllString(l, "#"))), " "); got != want {
			t.Errorf("runningKey(%q) = %q, want %q", l, got, want)
		}
		if got, want := isPageNumber(l), pageNumberRE.MatchString(l); got != want {
			t.Errorf("isPageNumber(%q) = %v, want %v", l, got, want)
		}
	}
}

// TestExtensionsAreRead checks that every extension a folder is searched
// for names a format Extract reads, not one it refuses by its name.
func TestExtensionsAreRead(t *testing.T) {
	heads := map[string]string{".pdf": "%PDF-1.7\n", ".docx": "PK\x03\x04rest"}
	for _, ext := range Extensions() {
		head, ok := heads[ext]
		if !ok {
			head = "Records must be kept.\n"
		}
		if _, err := detect("doc"+ext, []byte(head)); err != nil {
			t.Errorf("%s: %v", ext, err)
		}
	}
}

// A DOCX whose text unpacks past the part limit (a zip bomb) is refused
// with the limit named, not as damaged XML; one within it is read.
func TestDOCXPartLimit(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("word/document.xml")
	w.Write([]byte(`<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>`))
	w.Write(bytes.Repeat([]byte("a"), 4000))
	w.Write([]byte(`</w:t></w:r></w:p></w:body></w:document>`))
	zw.Close()
	if _, err := extractDOCXUpTo(buf.Bytes(), 1000); err == nil || !strings.Contains(err.Error(), "unpacks to more than 1.0 KB") {
		t.Errorf("a part over the limit: %v", err)
	}
	if doc, err := extractDOCXUpTo(buf.Bytes(), 10000); err != nil || !strings.Contains(doc.Text(), "aaaa") {
		t.Errorf("a part within the limit: %v", err)
	}
}
