package document

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"testing"

	"creator/internal/pdfwrite"
	"creator/internal/tokens"
)

// requirementRows are the rows of the tables below: a header and three
// rows, one with an empty cell, one with a bar in its text.
var requirementRows = [][]string{
	{"ID", "Requirement", "Priority", "Owner"},
	{"BK-01", "The system shall keep a copy of every backup in a second region.", "High", "Operations"},
	{"BK-02", "Encrypt all backups with a key held in the key management service.", "High", ""},
	{"BK-03", "Users must choose read | write access for each share.", "Medium", "Security"},
}

const requirementTable = "| ID | Requirement | Priority | Owner |\n|---|---|---|---|\n" +
	"| BK-01 | The system shall keep a copy of every backup in a second region. | High | Operations |\n" +
	"| BK-02 | Encrypt all backups with a key held in the key management service. | High | |\n" +
	`| BK-03 | Users must choose read \| write access for each share. | Medium | Security |` + "\n"

// TestDOCXTable checks that a Word table is one line a row, its cells
// apart: a cell of two paragraphs and two runs is one cell, the header
// (not marked as such) gets its rule line, so does a header marked as
// one, a cell merged across two columns keeps the next cell in its column,
// a table nested in a cell stays in that cell, and a table of names and
// values gets no header.
func TestDOCXTable(t *testing.T) {
	t.Parallel()
	cell := func(s string) string {
		if i := strings.Index(s, " "); i > 0 {
			// Two runs and two paragraphs.
			return `<w:tc><w:p><w:r><w:t xml:space="preserve">` + s[:i+1] + `</w:t></w:r></w:p><w:p><w:r><w:t>` + s[i+1:] + `</w:t></w:r></w:p></w:tc>`
		}
		return "<w:tc><w:p><w:r><w:t>" + s + "</w:t></w:r></w:p></w:tc>"
	}
	var tbl strings.Builder
	tbl.WriteString("<w:tbl>")
	for _, r := range requirementRows {
		tbl.WriteString("<w:tr>")
		for _, c := range r {
			tbl.WriteString(cell(c))
		}
		tbl.WriteString("</w:tr>")
	}
	tbl.WriteString("</w:tbl>")
	marked := `<w:tbl><w:tr><w:trPr><w:tblHeader/></w:trPr>` + cell("Level 1") + cell("Level 2") + cell("Note") + `</w:tr><w:tr>` + cell("Yes") + cell("No") + cell("-") + `</w:tr>` +
		`<w:tr><w:tc><w:tcPr><w:gridSpan w:val="2"/></w:tcPr><w:p><w:r><w:t>Both</w:t></w:r></w:p></w:tc>` + cell("Merged") + `</w:tr></w:tbl>`
	nested := `<w:tbl><w:tr>` + cell("Severity") + `<w:tc><w:tbl><w:tr>` + cell("CAT") + cell("II") + `</w:tr></w:tbl></w:tc></w:tr>` +
		`<w:tr>` + cell("CCI") + cell("CCI-000048") + `</w:tr></w:tbl>`
	body := `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
		`<w:p><w:r><w:t>Backups are taken every night.</w:t></w:r></w:p>` + tbl.String() + marked + nested +
		`<w:p><w:r><w:t>After the tables.</w:t></w:r></w:p></w:body></w:document>`
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("word/document.xml")
	w.Write([]byte(body))
	zw.Close()
	text := extract(t, "reqs.docx", buf.Bytes()).Text()
	mustContain(t, text, "Backups are taken every night.\n\n"+requirementTable+"\n| Level 1 | Level 2 | Note |\n|---|---|---|\n| Yes | No | - |\n| Both | | Merged |\n\n| Severity | CAT II |\n| CCI | CCI-000048 |\n\nAfter the tables.")
}

// TestHTMLTable checks HTML tables: a <thead> header, cells with markup
// and line breaks on one line, a cell spanning two columns, a table of names and values (<th> in the
// first column) without a header; and tables that lay out a page, which
// are no tables.
func TestHTMLTable(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("<p>Backups are taken every night.</p><table><thead><tr>")
	for _, c := range requirementRows[0] {
		b.WriteString("<td>" + c + "</td>")
	}
	b.WriteString("</tr></thead><tbody>")
	for _, r := range requirementRows[1:] {
		b.WriteString("<tr>")
		for i, c := range r {
			if i == 1 {
				c = strings.Replace(c, " ", "<br>\n", 1)
				c = "<p><b>" + c + "</b></p>"
			}
			b.WriteString("<td>" + c + "</td>")
		}
		b.WriteString("</tr>")
	}
	b.WriteString("<tr><td colspan=\"2\">Merged</td><td>Low</td><td>Ops</td></tr>")
	b.WriteString("</tbody></table><table><tr><th>Severity</th><td>CAT II</td></tr><tr><th>CCI</th><td>CCI-000048</td></tr></table>")
	text := extract(t, "reqs.html", []byte(b.String())).Text()
	mustContain(t, text, "Backups are taken every night.\n\n"+requirementTable+"| Merged | | Low | Ops |\n\n| Severity | CAT II |\n| CCI | CCI-000048 |\n")

	// Tables that lay out a page are read as its blocks.
	layout := `<table><tr><td><h1>Site</h1><ul><li>Home</li><li>About</li></ul></td><td><h2>Policy</h2><p>Records must be kept.</p><p>Second para.</p></td></tr></table>
<table><tr><td>Only one column here.</td></tr><tr><td>And another row.</td></tr></table>`
	text = extract(t, "layout.html", []byte(layout)).Text()
	mustContain(t, text, "# Site\n\n- Home\n- About\n\n## Policy\n\nRecords must be kept.\n\nSecond para.\n\nOnly one column here.\n\nAnd another row.")
	mustLack(t, text, "|")
}

// tablePDF sets a paragraph, then rows of cells at the given column
// starts, a cell's text wrapped at width characters, then a paragraph.
func tablePDF(rows [][]string, xs []float64, width int) []byte {
	var texts []pdfwrite.Text
	y := 760.0
	texts = append(texts, pdfwrite.Text{X: 56, Y: y, Size: 10, S: "Backups are taken every night, and each of them is kept in two regions."})
	y -= 26
	for _, r := range rows {
		lines := 1
		for j, c := range r {
			parts := wrapAt(c, width)
			lines = max(lines, len(parts))
			for k, p := range parts {
				texts = append(texts, pdfwrite.Text{X: xs[j], Y: y - float64(k)*12, Size: 10, S: p})
			}
		}
		y -= float64(lines)*12 + 4
	}
	texts = append(texts, pdfwrite.Text{X: 56, Y: y - 14, Size: 10, S: "After the table."})
	return (&pdfwrite.Document{Pages: []pdfwrite.Page{{Texts: texts}}}).Bytes()
}

func wrapAt(s string, n int) []string {
	var out []string
	cur := ""
	for _, w := range strings.Fields(strings.ReplaceAll(s, `\|`, "|")) {
		if cur != "" && len(cur)+1+len(w) > n {
			out = append(out, cur)
			cur = ""
		}
		cur = strings.TrimSpace(cur + " " + w)
	}
	return append(out, cur)
}

// TestPDFTable checks that a PDF table with clear columns is read as a
// table, a cell wrapped over lines as one cell; and that what only looks
// like columns is not: numbered paragraphs and headings set apart from
// their numbers, and two columns of prose.
func TestPDFTable(t *testing.T) {
	t.Parallel()
	xs := []float64{56, 120, 420, 480}
	text := extract(t, "table.pdf", tablePDF(requirementRows, xs, 45)).Text()
	mustContain(t, text, "every night, and each of them is kept in two regions.\n\n"+requirementTable+"\nAfter the table.")

	// Cells centred in their columns (the id and the level), the header
	// set apart from the rows.
	centred := func(s string, mid float64) pdfwrite.Text {
		return pdfwrite.Text{X: mid - pdfwrite.Width(s, 10)/2, Size: 10, S: s}
	}
	var texts []pdfwrite.Text
	y := 700.0
	for i, r := range [][]string{{"#", "Description", "Level"}, {"1.1.1", "Verify that input is decoded once.", "2"},
		{"1.1.10", "Verify that output is encoded for its context.", "1"}, {"1.1.11", "Verify that files are scanned.", "3"}} {
		for j, c := range r {
			tx := centred(c, []float64{80, 0, 520}[j])
			if j == 1 {
				tx = pdfwrite.Text{X: 120, Size: 10, S: c}
			}
			tx.Y = y
			texts = append(texts, tx)
		}
		y -= 16
		if i == 0 {
			y -= 12
		}
	}
	text = extract(t, "centred.pdf", (&pdfwrite.Document{Pages: []pdfwrite.Page{{Texts: texts}}}).Bytes()).Text()
	mustContain(t, text, "| # | Description | Level |\n|---|---|---|\n| 1.1.1 | Verify that input is decoded once. | 2 |\n| 1.1.10 | Verify that output is encoded for its context. | 1 |\n")

	numbered := [][]string{
		{"3.2.1", "Completeness of the records kept by the taxpayer in every one of the systems."},
		{"3.2.2", "Correctness of every record, checked against the document it was made from."},
		{"3.2.3", "Timeliness: records are made soon after the event they record, in order."},
	}
	text = extract(t, "numbered.pdf", tablePDF(numbered, []float64{56, 110}, 40)).Text()
	mustLack(t, text, "|")
	mustContain(t, text, "3.2.1 Completeness of the records")

	prose := [][]string{
		{"The first column of this page goes on with its sentence", "while the second column tells another story in"},
		{"and ends it in the line below, as columns of text do", "words of its own, set as wide as the first one"},
		{"on every page that is set in two of them side by side.", "and read only after the first column is done."},
	}
	text = extract(t, "columns.pdf", tablePDF(prose, []float64{56, 310}, 80)).Text()
	mustLack(t, text, "|")
}

// TestChunkTableRows checks that a table too long for one chunk is cut
// between rows, never inside one, and that a chunk starting in the middle
// of the table carries the table's header.
func TestChunkTableRows(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("# Requirements\n\nThe rows below are the service's requirements.\n\n| ID | Requirement | Priority |\n|---|---|---|\n")
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&b, "| R-%02d | The service shall keep record %d of the audit trail for ten years. It shall also copy it to a second region. | High |\n", i, i)
	}
	b.WriteString("\nAfter the table.\n")
	text := b.String()
	chunks := ChunkText(text, 300, tokens.Default())
	if len(chunks) < 3 {
		t.Fatalf("%d chunks, want the table cut", len(chunks))
	}
	var whole strings.Builder
	for i, c := range chunks {
		whole.WriteString(c.Text)
		if !strings.HasSuffix(c.Text, "\n") {
			t.Errorf("chunk %d ends inside a line: %q", i+1, c.Text[max(0, len(c.Text)-60):])
		}
		first := strings.SplitN(strings.TrimLeft(c.Text, "\n"), "\n", 2)[0]
		switch {
		case i > 0 && strings.HasPrefix(first, "| R-"):
			if c.TableHeader != "| ID | Requirement | Priority |\n|---|---|---|" {
				t.Errorf("chunk %d starts in the table with header %q", i+1, c.TableHeader)
			}
		case c.TableHeader != "":
			t.Errorf("chunk %d does not start in the table, header %q", i+1, c.TableHeader)
		}
	}
	if whole.String() != text {
		t.Error("the chunks do not add up to the text")
	}
	mc := ManifestChunk{ID: "chunk_002", Document: "reqs.md", TableHeader: "| ID | Requirement |\n|---|---|"}
	if got := ChunkBody(ChunkFile(mc, "| R-09 | The service shall … |\n")); got != "| ID | Requirement |\n|---|---|\n| R-09 | The service shall … |\n" {
		t.Errorf("chunk file body %q", got)
	}
}

// TestTableHeaderOverPages checks the header a chunk starting at a line
// gets: the table's, across a page marker; none for a table that starts
// with its own header (repeated on a new page) or for text.
func TestTableHeaderOverPages(t *testing.T) {
	t.Parallel()
	text := "Intro.\n\n| # | Description | Level |\n|---|---|---|\n| 1.1 | Verify that a thing is done. | 1 |\n" +
		"--- page 2 ---\n| 1.2 | Verify that another thing is done. | 2 |\n" +
		"--- page 3 ---\n| # | Description | Level |\n|---|---|---|\n| 1.3 | Verify that a third thing is done. | 1 |\n\nAfter.\n"
	c := &chunker{text: text, count: tokens.Default()}
	c.index()
	header := "| # | Description | Level |\n|---|---|---|"
	for line, want := range map[int]string{0: "", 2: "", 3: "", 4: header, 5: header, 6: header, 7: "", 8: "", 10: header, 12: ""} {
		if got := c.tableHeader(line); got != want {
			t.Errorf("line %d (%q): header %q, want %q", line+1, strings.TrimSpace(c.lines[line]), got, want)
		}
	}
}

// TestTablePieces checks the pieces a paragraph with a table is cut into
// when it is too long for a chunk: its sentences, then one a row, the
// header with its rule line.
func TestTablePieces(t *testing.T) {
	t.Parallel()
	text := "The rows follow. They are short.\n| ID | Requirement |\n|---|---|\n| R-1 | The service shall log. It shall also alert. |\n| R-2 | Keep logs. |\n"
	c := &chunker{text: text, count: tokens.Default()}
	c.index()
	var got []string
	for _, sp := range c.sentencesAndRows(span{0, len(text)}) {
		got = append(got, text[sp.start:sp.end])
	}
	want := []string{"The rows follow. ", "They are short.\n", "| ID | Requirement |\n|---|---|\n",
		"| R-1 | The service shall log. It shall also alert. |\n", "| R-2 | Keep logs. |\n"}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("pieces %q\nwant %q", got, want)
	}
}
