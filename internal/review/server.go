package review

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"

	"creator/internal/job"
	"creator/internal/reqstore"
)

//go:embed web
var webFiles embed.FS

// HandlerOptions configure the web page and API.
type HandlerOptions struct {
	// AnyHost accepts requests for any host name. Without it only
	// loopback names are served, so that a web site the reviewer visits
	// cannot reach the API through a host name of its own that resolves
	// to 127.0.0.1.
	AnyHost bool
	// Log, when set, gets a line for each decision taken.
	Log io.Writer
	// Job, when set, serves the job's exports, its source documents and
	// the sections of its requirements.
	Job *job.View
	// Version is creator's version, which exports name.
	Version string
}

// Handler serves the review page and its JSON API:
//
//	GET  /                                 the page
//	GET  /api/requirements                 the Listing
//	GET  /api/requirements/{id}            a Detail
//	POST /api/requirements/{id}/review     a Decision; answers {requirement, progress}
//	GET  /api/sections                     each requirement's section (with Job)
//	GET  /api/export?format=F              the job's export, a download (with Job)
//	GET  /api/documents/{name}             a source document of the job (with Job)
//
// Errors are JSON objects {"error": "..."}: 400 for a bad request (nothing
// is changed), 404 for an unknown requirement, 403 for another origin.
func Handler(s *Service, opts HandlerOptions) http.Handler {
	web, _ := fs.Sub(webFiles, "web")
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", serveFile(web, "index.html"))
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(web)))
	mux.HandleFunc("GET /api/requirements", func(w http.ResponseWriter, r *http.Request) {
		l, err := s.List()
		respond(w, l, err)
	})
	mux.HandleFunc("GET /api/requirements/{id}", func(w http.ResponseWriter, r *http.Request) {
		d, err := s.Detail(r.PathValue("id"))
		respond(w, d, err)
	})
	mux.HandleFunc("POST /api/requirements/{id}/review", func(w http.ResponseWriter, r *http.Request) {
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
			writeError(w, http.StatusBadRequest, "send the decision as JSON, with the header Content-Type: application/json")
			return
		}
		d, err := ParseDecision(r.Body)
		if err != nil {
			respond(w, nil, err)
			return
		}
		id := r.PathValue("id")
		item, progress, err := s.Decide(id, d)
		if err == nil && opts.Log != nil {
			fmt.Fprintf(opts.Log, "%s %s (%d of %d reviewed)\n", id, item.ReviewStatus, progress.Reviewed, progress.Total)
		}
		respond(w, struct {
			Requirement Item     `json:"requirement"`
			Progress    Progress `json:"progress"`
		}{item, progress}, err)
	})
	allowed := map[string]string{
		"/api/requirements": "GET", "/api/requirements/{id}": "GET", "/api/requirements/{id}/review": "POST",
	}
	if j := opts.Job; j != nil {
		mux.HandleFunc("GET /api/sections", func(w http.ResponseWriter, r *http.Request) { serveSections(w, s, j) })
		mux.HandleFunc("GET /api/export", func(w http.ResponseWriter, r *http.Request) { serveExport(w, r, s, j, opts.Version) })
		mux.HandleFunc("GET /api/documents/{name}", func(w http.ResponseWriter, r *http.Request) { serveDocument(w, r, j) })
		allowed["/api/sections"], allowed["/api/export"], allowed["/api/documents/{name}"] = "GET", "GET", "GET"
	}
	for path, allow := range allowed {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: use %s", r.Method, r.URL.Path, allow))
		})
	}
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such API: %s %s", r.Method, r.URL.Path))
	})
	return guard(mux, opts.AnyHost)
}

// guard refuses requests for other host names (unless anyHost) and
// changes from other origins, and sets the headers every answer carries.
func guard(next http.Handler, anyHost bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !anyHost && !LoopbackHost(r.Host) {
			writeError(w, http.StatusForbidden, fmt.Sprintf("host %q is not served: open the page at the loopback address the review prints", r.Host))
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if origin := r.Header.Get("Origin"); origin != "" && origin != "http://"+r.Host {
				writeError(w, http.StatusForbidden, fmt.Sprintf("requests from %s are refused: decisions come from the review page itself", origin))
				return
			}
		}
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'")
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

// LoopbackHost reports whether a host, or a Host header's host:port, names
// this machine by a loopback name or address; an empty host (every
// interface) does not.
func LoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Serve serves h on ln until ctx is done, then lets the requests under way
// finish (for up to 5 seconds).
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func serveFile(fsys fs.FS, name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		http.ServeFileFS(w, r, fsys, name)
	})
}

// respond writes v as JSON, or err with its status.
func respond(w http.ResponseWriter, v any, err error) {
	var input *InputError
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, v)
	case errors.As(err, &input):
		writeError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, reqstore.ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error())
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, struct {
		Error string `json:"error"`
	}{msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
