package review

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"creator/internal/job"
	"creator/internal/reqstore"
	"creator/workspace"
)

// TestDocumentsSandboxed: a document of the job that a browser would run
// scripts of (HTML, SVG) is served under a sandbox, away from the API of
// this origin; a PDF is not, as Chromium shows no PDF in a sandbox.
func TestDocumentsSandboxed(t *testing.T) {
	base := t.TempDir()
	docs := map[string]string{
		"policy.pdf": "%PDF-1.4\n",
		"page.html":  "<html><script>fetch('/api/requirements')</script></html>",
		"figure.svg": `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`,
	}
	ws, view := jobOfDocuments(t, base, docs)
	srv := httptest.NewServer(Handler(New(Config{JobID: "d", Store: reqstore.Open(ws), Files: ws}), HandlerOptions{Job: view}))
	t.Cleanup(srv.Close)

	for name, body := range docs {
		res, err := http.Get(srv.URL + "/api/documents/" + name)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		csp := res.Header.Get("Content-Security-Policy")
		if res.StatusCode != 200 || string(got) != body {
			t.Errorf("%s: %d %q", name, res.StatusCode, got)
		}
		if sandboxed := strings.HasPrefix(csp, "sandbox;"); sandboxed == (name == "policy.pdf") {
			t.Errorf("%s (%s): Content-Security-Policy %q", name, res.Header.Get("Content-Type"), csp)
		}
	}
}

// TestDocumentLinks: with tokens, the page opens a document at the
// address GET /api/documents/{name}/link gives (asked with a token),
// which opens that document without one, sandboxed as /api/documents
// serves it, and no other document.
func TestDocumentLinks(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	docs := map[string]string{"page one.html": "<html><script>alert(1)</script></html>", "policy.pdf": "%PDF-1.4\n"}
	ws, view := jobOfDocuments(t, base, docs)
	svc := New(Config{JobID: "d", Store: reqstore.Open(ws), Files: ws, Reviewer: "alice"})
	srv := serve(t, svc, HandlerOptions{Job: view, Tokens: map[string]string{"tok-alice": "alice"}})

	if status, _, _ := call(t, srv, "GET", "/api/documents/page%20one.html/link", ""); status != 401 {
		t.Errorf("a link without a token: %d", status)
	}
	if status, _, v := call(t, srv, "GET", "/api/documents/job.json/link", "", "Authorization", "Bearer tok-alice"); status != 404 {
		t.Errorf("a link to job.json: %d %v", status, v)
	}
	links := map[string]string{}
	for name := range docs {
		status, _, v := call(t, srv, "GET", "/api/documents/"+url.PathEscape(name)+"/link", "", "Authorization", "Bearer tok-alice")
		link, _ := obj(v)["url"].(string)
		if status != 200 || !strings.HasPrefix(link, "/documents/") || !strings.HasSuffix(link, "/"+url.PathEscape(name)) {
			t.Fatalf("link of %s: %d %v", name, status, v)
		}
		links[name] = link
	}
	get := func(path string) (int, string, string) {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Content-Security-Policy"), string(body)
	}
	for name, body := range docs {
		status, csp, got := get(links[name])
		if status != 200 || got != body {
			t.Errorf("%s at %s: %d %q", name, links[name], status, got)
		}
		if sandboxed := strings.HasPrefix(csp, "sandbox;"); sandboxed == (name == "policy.pdf") {
			t.Errorf("%s at its link: Content-Security-Policy %q", name, csp)
		}
	}
	// A link opens its own document only, and no link is made up.
	key := strings.Split(links["policy.pdf"], "/")[2]
	for _, path := range []string{"/documents/" + key + "/page%20one.html", "/documents/" + key + "/job.json",
		"/documents/" + strings.Repeat("0", len(key)) + "/policy.pdf", "/documents/x/policy.pdf"} {
		if status, _, got := get(path); status != 404 || strings.Contains(got, "PDF") {
			t.Errorf("%s: %d %q", path, status, got)
		}
	}
}

// A document of the job that is a link out of it is no document to serve:
// 404, and no path of the machine in the answer.
func TestDocumentLinkingOut(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	doc := filepath.Join(base, "policy.txt")
	os.WriteFile(doc, []byte("Backups must be encrypted.\n"), 0o644)
	secret := filepath.Join(base, "secret-elsewhere.txt")
	os.WriteFile(secret, []byte("not the job's"), 0o644)
	root := filepath.Join(base, "ws")
	ws, err := workspace.Create(root, workspace.CreateOptions{ID: "d", Inputs: []string{doc}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	input := filepath.Join(ws.Dir, "input", "policy.txt")
	os.Chmod(input, 0o644)
	if err := os.Remove(input); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, input); err != nil {
		t.Fatal(err)
	}
	view, err := job.OpenView(root, "d")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { view.Close() })
	srv := httptest.NewServer(Handler(New(Config{JobID: "d", Store: reqstore.Open(ws), Files: ws}), HandlerOptions{Job: view}))
	t.Cleanup(srv.Close)
	res, err := http.Get(srv.URL + "/api/documents/policy.txt")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound || strings.Contains(string(body), base) || strings.Contains(string(body), "not the job's") {
		t.Errorf("%d %s", res.StatusCode, body)
	}
}

// jobOfDocuments makes job "d" in base/ws of the documents docs (name →
// content) and opens a view of it; the test's cleanup closes both.
func jobOfDocuments(t *testing.T, base string, docs map[string]string) (*workspace.Job, *job.View) {
	t.Helper()
	var inputs []string
	for name, body := range docs {
		p := filepath.Join(base, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, p)
	}
	root := filepath.Join(base, "ws")
	ws, err := workspace.Create(root, workspace.CreateOptions{ID: "d", Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	view, err := job.OpenView(root, "d")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { view.Close() })
	return ws, view
}
