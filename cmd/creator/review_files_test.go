package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// get fetches a path of the review and returns its status, headers and body.
func (s *reviewServer) get(t *testing.T, path string) (int, http.Header, []byte) {
	t.Helper()
	res, err := http.Get(s.url + strings.TrimPrefix(path, "/"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, body
}

// TestReviewExportsAndDocuments: the review serves the job's export in
// every format as 'creator export' writes it, the job's source documents
// and nothing else of the job folder, and the section of each requirement.
func TestReviewExportsAndDocuments(t *testing.T) {
	t.Parallel()
	dir := runBuiltin(t, "../../testdata/sample/retention-policy.pdf", "files")
	root := filepath.Dir(dir)
	srv := startReview(t, "--workspace", root, "--job", "files")
	srv.decide(t, "REQ-002", `{"decision": "rejected", "note": "covered by REQ-001"}`)

	for _, format := range []string{"json", "csv", "md", "cypher"} {
		code, h, body := srv.get(t, "/api/export?format="+format)
		_, want, _ := cli(t, "export", "--workspace", root, "--job", "files", "--format", format)
		if code != 200 || string(body) != want {
			t.Errorf("export %s: %d, %d bytes; creator export writes %d bytes", format, code, len(body), len(want))
		}
		if cd := h.Get("Content-Disposition"); cd != `attachment; filename=requirements-files.`+format {
			t.Errorf("export %s: Content-Disposition %q", format, cd)
		}
	}
	// The review log, as 'creator export --format audit-csv' writes it.
	for _, format := range []string{"audit-csv", "audit-json"} {
		code, h, body := srv.get(t, "/api/export?format="+format)
		_, want, _ := cli(t, "export", "--workspace", root, "--job", "files", "--format", format)
		if code != 200 || string(body) != want || !strings.Contains(want, "covered by REQ-001") {
			t.Errorf("export %s: %d %s; creator export writes %s", format, code, body, want)
		}
		if cd := h.Get("Content-Disposition"); cd != `attachment; filename=review-log-files.`+strings.TrimPrefix(format, "audit-") {
			t.Errorf("export %s: Content-Disposition %q", format, cd)
		}
	}
	for format, want := range map[string]string{"xlsx": "PK\x03\x04", "reqif": "<?xml"} {
		code, h, body := srv.get(t, "/api/export?format="+format)
		if code != 200 || !strings.HasPrefix(string(body), want) || !strings.HasPrefix(h.Get("Content-Disposition"), "attachment;") {
			t.Errorf("export %s: %d %q %.20q", format, code, h.Get("Content-Disposition"), body)
		}
	}
	if _, h, _ := srv.get(t, "/api/export?format=xlsx"); h.Get("Content-Type") != "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" {
		t.Errorf("xlsx Content-Type %q", h.Get("Content-Type"))
	}
	// An OSCAL catalog downloads as a file export and diff take for one.
	if code, h, _ := srv.get(t, "/api/export?format=oscal"); code != 200 || h.Get("Content-Type") != "application/json; charset=utf-8" ||
		h.Get("Content-Disposition") != "attachment; filename=requirements-files.oscal.json" {
		t.Errorf("oscal: %d, Content-Type %q, Content-Disposition %q", code, h.Get("Content-Type"), h.Get("Content-Disposition"))
	}
	_, _, body := srv.get(t, "/api/export?format=json&reviewed_only=true")
	_, want, _ := cli(t, "export", "--workspace", root, "--job", "files", "--reviewed-only")
	if string(body) != want {
		t.Errorf("reviewed_only export:\n%s\nwant\n%s", body, want)
	}
	for _, q := range []string{"format=pdf", "format=csv&reviewed_only=maybe", "format=audit-csv&reviewed_only=true"} {
		if code, _, body := srv.get(t, "/api/export?"+q); code != 400 || !strings.Contains(string(body), `"error"`) {
			t.Errorf("export %s: %d %s", q, code, body)
		}
	}

	// The source document, with its type; ranges, as PDF viewers ask.
	pdf, _ := os.ReadFile("../../testdata/sample/retention-policy.pdf")
	code, h, body := srv.get(t, "/api/documents/retention-policy.pdf")
	if code != 200 || string(body) != string(pdf) || h.Get("Content-Type") != "application/pdf" {
		t.Errorf("document: %d %q, %d bytes of %d", code, h.Get("Content-Type"), len(body), len(pdf))
	}
	req, _ := http.NewRequest("GET", srv.url+"api/documents/retention-policy.pdf", nil)
	req.Header.Set("Range", "bytes=0-3")
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusPartialContent {
		t.Errorf("range request: %v %v", err, res)
	} else {
		part, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if string(part) != "%PDF" {
			t.Errorf("range 0-3: %q", part)
		}
	}
	// Other files of the job, and paths out of it, are not documents.
	for _, name := range []string{"job.json", "instructions.md", "..%2Finstructions.md", "..%2F..%2Fjob_files%2Finstructions.md",
		"%2E%2E%2F.agent%2Fjob.json", "output%2Frequirements.json", "..", "%2Fetc%2Fpasswd"} {
		code, _, body := srv.get(t, "/api/documents/"+name)
		if code == 200 || strings.Contains(string(body), "retention") && !strings.Contains(string(body), `"error"`) {
			t.Errorf("document %s: %d %.200s", name, code, body)
		}
	}
	if code, _, body := srv.get(t, "/api/documents/instructions.md"); code != 404 || !strings.Contains(string(body), "its documents: retention-policy.pdf") {
		t.Errorf("instructions.md: %d %s", code, body)
	}

	// The page's icon.
	_, _, page := srv.get(t, "/")
	if code, h, _ := srv.get(t, "/assets/favicon.svg"); code != 200 || h.Get("Content-Type") != "image/svg+xml" ||
		!strings.Contains(string(page), `<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">`) {
		t.Errorf("favicon: %d %q", code, h.Get("Content-Type"))
	}

	// The section of each requirement, as the Markdown export groups them.
	code, _, body = srv.get(t, "/api/sections")
	var sections struct{ Sections map[string][]string }
	if err := json.Unmarshal(body, &sections); code != 200 || err != nil || len(sections.Sections) != 16 {
		t.Fatalf("sections: %d %v %s", code, err, body)
	}
	_, md, _ := cli(t, "export", "--workspace", root, "--job", "files", "--format", "md")
	for id, path := range sections.Sections {
		if len(path) == 0 || !strings.Contains(md, path[len(path)-1]) {
			t.Errorf("%s: section %q is not a heading of the Markdown export", id, path)
		}
	}
}
