package review

import (
	"io"
	"net/http"
	"net/http/httptest"
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
	var inputs []string
	for name, body := range docs {
		p := filepath.Join(base, name)
		os.WriteFile(p, []byte(body), 0o644)
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
