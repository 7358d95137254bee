package main

import (
	"archive/zip"
	"bytes"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"creator/internal/document"
	"creator/internal/pdfwrite"
	"creator/internal/requirement"
)

// sectionsDocuments writes one small document with headings in each input
// format: three requirements under three headings, below a line before
// the first heading. It returns the documents' paths and, by document,
// the section path each requirement's quote stands in. Their names differ
// before the extension too: the extracted texts are named by it.
func sectionsDocuments(t *testing.T) (paths []string, want map[string]map[string]string) {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, data []byte) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	const (
		intro     = "Acme staff handbook, third edition, for every office."
		passwords = "Users must choose passwords of at least twelve characters."
		backups   = "Backups must be encrypted at rest with approved ciphers."
		retention = "Backup media shall be kept for one year after their last use."
	)
	named := map[string]string{passwords: "Acme Security Policy › Passwords", backups: "Acme Security Policy › Backups", retention: "Acme Security Policy › Backups › Retention"}
	numbered := map[string]string{passwords: "1 Acme Security Policy › 1.1 Passwords", backups: "1 Acme Security Policy › 1.2 Backups", retention: "1 Acme Security Policy › 1.2 Backups › 1.2.1 Retention"}
	want = map[string]map[string]string{"policy-md.md": named, "policy-html.html": named, "policy-docx.docx": named, "policy-txt.txt": numbered, "policy-pdf.pdf": numbered}

	write("policy-md.md", []byte(intro+"\n\n# Acme Security Policy\n\n## Passwords\n\n"+passwords+"\n\n## Backups\n\n"+backups+"\n\n### Retention\n\n"+retention+"\n"))
	write("policy-html.html", []byte("<!DOCTYPE html><html><head><title>Policy</title></head><body><p>"+intro+"</p><h1>Acme Security Policy</h1><h2>Passwords</h2><p>"+passwords+
		"</p><h2>Backups</h2><p>"+backups+"</p><h3>Retention</h3><p>"+retention+"</p></body></html>"))
	para := func(style, text string) string {
		p := "<w:p>"
		if style != "" {
			p += `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
		}
		return p + "<w:r><w:t>" + text + "</w:t></w:r></w:p>"
	}
	var docx bytes.Buffer
	zw := zip.NewWriter(&docx)
	w, _ := zw.Create("word/document.xml")
	w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
		para("", intro) + para("Heading1", "Acme Security Policy") + para("Heading2", "Passwords") + para("", passwords) +
		para("Heading2", "Backups") + para("", backups) + para("Heading3", "Retention") + para("", retention) + `</w:body></w:document>`))
	zw.Close()
	write("policy-docx.docx", docx.Bytes())
	write("policy-txt.txt", []byte(intro+"\n\n1 Acme Security Policy\n\n1.1 Passwords\n\n"+passwords+"\n\n1.2 Backups\n\n"+backups+"\n\n1.2.1 Retention\n\n"+retention+"\n"))
	blocks := []pdfwrite.Block{{Text: intro}, {Heading: true, Text: "1 Acme Security Policy"}, {Heading: true, Text: "1.1 Passwords"}, {Text: passwords},
		{Heading: true, Text: "1.2 Backups"}, {Text: backups}, {Heading: true, Text: "1.2.1 Retention"}, {Text: retention}}
	write("policy-pdf.pdf", (&pdfwrite.Document{Pages: pdfwrite.Layout{}.Pages(blocks)}).Bytes())
	return paths, want
}

// TestSectionsInEveryFormat runs the built-in model on a document with
// headings in each input format and checks that the Markdown export puts
// each requirement under the heading its quote stands under, named
// without Markdown hashes, never under "(no section)", and that the
// rationale and summary.md name the same section.
func TestSectionsInEveryFormat(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a whole job")
	}
	paths, want := sectionsDocuments(t)
	root := filepath.Join(t.TempDir(), "ws")
	if code, _, stderr := cli(t, append([]string{"run", "--workspace", root, "--job", "secs", "--quiet"}, paths...)...); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	code, md, stderr := cli(t, "export", "--workspace", root, "--job", "secs", "--format", "md")
	if code != 0 {
		t.Fatalf("export: exit %d\n%s", code, stderr)
	}
	if strings.Contains(md, "(no section)") || regexp.MustCompile(`(?m)^### .*#`).MatchString(md) {
		t.Errorf("a requirement without its section, or a section named with hashes:\n%s", md)
	}
	// The export: "## document", "### section", "> quote", "Why: … Section: …".
	doc, section := "", ""
	found := map[string]map[string]bool{}
	for _, l := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(l, "## "):
			doc = strings.TrimPrefix(l, "## ")
		case strings.HasPrefix(l, "### "):
			section = strings.TrimPrefix(l, "### ")
		case strings.HasPrefix(l, "> ") && !strings.HasPrefix(l, "> —"):
			quote := strings.TrimPrefix(l, "> ")
			w, ok := want[doc][quote]
			if !ok {
				continue
			}
			if found[doc] == nil {
				found[doc] = map[string]bool{}
			}
			found[doc][quote] = true
			if section != w {
				t.Errorf("%s: %q stands under %q, want %q", doc, quote, section, w)
			}
		case strings.HasPrefix(l, "Why: "):
			l = html.UnescapeString(l) // the export writes text as written: "&gt;" for ">"
			if i := strings.Index(l, "Section: "); i < 0 || strings.ReplaceAll(strings.TrimSuffix(l[i+len("Section: "):], "."), " > ", " › ") != section {
				t.Errorf("%s: the rationale %q does not name the section %q", doc, l, section)
			}
		}
	}
	for doc, quotes := range want {
		if len(found[doc]) != len(quotes) {
			t.Errorf("%s: %d of %d requirements in the export:\n%s", doc, len(found[doc]), len(quotes), md)
		}
	}
	// summary.md names each requirement's section in its table:
	// | id | title | type | priority | section | source |.
	summary, err := os.ReadFile(filepath.Join(root, "job_secs", "output", "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(summary), "| id | title | type | priority | section | source |") {
		t.Fatalf("summary.md has no section column:\n%s", summary)
	}
	rows := 0
	for _, l := range strings.Split(string(summary), "\n") {
		cells := strings.Split(strings.Trim(l, "| "), " | ")
		if len(cells) != 6 || !strings.HasPrefix(cells[0], "REQ-") {
			continue
		}
		doc := strings.Fields(cells[5])[0]
		for quote, w := range want[doc] {
			if strings.HasPrefix(quote, cells[1]) {
				rows++
				if cells[4] != w {
					t.Errorf("summary.md: %s %q in section %q, want %q", doc, cells[1], cells[4], w)
				}
			}
		}
	}
	if rows != 15 {
		t.Errorf("summary.md: %d of 15 requirements found:\n%s", rows, summary)
	}
}

// assertRationaleSections checks that each rationale that names a section
// ("… Section: 4 Levels > 4.1 One.") names the one the export gives the
// requirement's quote: the nearest heading above it in its chunk.
func assertRationaleSections(t *testing.T, dir string, recs []requirement.Record) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, document.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	man, err := document.ParseManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	named, wrong := 0, 0
	for _, r := range recs {
		i := strings.LastIndex(r.Rationale, "Section: ")
		if i < 0 || len(r.Citations) == 0 {
			continue
		}
		named++
		cit := r.Citations[0]
		c, ok := man.Find(cit.Chunk)
		if !ok {
			t.Fatalf("%s cites %s, not in the manifest", r.ID, cit.Chunk)
		}
		file, err := os.ReadFile(filepath.Join(dir, c.File))
		if err != nil {
			t.Fatal(err)
		}
		body := document.ChunkBody(string(file))
		got := strings.TrimSuffix(r.Rationale[i+len("Section: "):], ".")
		// The quote may stand more than once (a sentence inside a longer
		// one): the section of any place it stands in will do.
		want := ""
		for from := 0; ; {
			at, end, found := requirement.Find(body[from:], cit.Quote)
			if !found {
				if from == 0 {
					want = strings.Join(c.SectionAt(body, -1), document.SectionSeparator)
				}
				break
			}
			want = strings.Join(c.SectionAt(body, from+at), document.SectionSeparator)
			if want == got {
				break
			}
			from += end
		}
		if got != want {
			if wrong++; wrong <= 5 {
				t.Errorf("%s: the rationale names section %q, the quote stands in %q", r.ID, got, want)
			}
		}
	}
	t.Logf("%d of %d rationales name a section, %d another than the quote's", named, len(recs), wrong)
}
