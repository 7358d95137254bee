package review

import (
	"bytes"
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"strconv"
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
	// Tokens, when given, are the bearer tokens of the reviewers (token →
	// reviewer's name): every API request needs one, and its changes are
	// the token's reviewer's. The page and its assets need none.
	Tokens map[string]string
	// Log, when set, gets a line for each decision taken.
	Log io.Writer
	// Job, when set, serves the job's exports, its source documents and
	// the sections of its requirements.
	Job *job.View
	// Version is creator's version, which exports name.
	Version string
}

// Handler serves the review page and its JSON API (docs/review.md):
//
//	GET  /                                   the page
//	GET  /api/session                        the reviewers, and who the request's token names
//	GET  /api/requirements                   the Listing
//	GET  /api/requirements/{id}              a Detail, with ETag "version"
//	POST /api/requirements/{id}/review       a Decision; answers {requirement, progress}
//	POST /api/requirements/{id}/undo         takes back the last change; answers {requirement, progress}
//	GET  /api/requirements/{id}/history      the decision log of the requirement
//	GET  /api/requirements/{id}/comments     its comments
//	POST /api/requirements/{id}/comments     a comment {reviewer, text}
//	POST /api/review/bulk                    one decision on many requirements
//	GET  /api/outputs                        whether the output files wait for decisions
//	POST /api/outputs                        writes the output files now
//	GET  /api/sections                       each requirement's section (with Job)
//	GET  /api/export?format=F                the job's export, a download (with Job)
//	GET  /api/documents/{name}               a source document of the job (with Job)
//	GET  /api/documents/{name}/link          {url}: the address that opens it without a token (with Job)
//	GET  /documents/{key}/{name}             the document, at that address (with Job)
//
// Errors are JSON objects {"error": "..."}: 400 for a bad request (nothing
// is changed), 401 without a valid token, 403 for another origin or
// another reviewer than the token's, 404 for an unknown requirement, 409
// for a change on an old version (with the requirement as it stands).
func Handler(s *Service, opts HandlerOptions) http.Handler {
	web, _ := fs.Sub(webFiles, "web")
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", serveFile(web, "index.html"))
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(web)))
	handleReads(mux, s, opts.Tokens)
	handleChanges(mux, s, opts.Log)
	allowed := map[string]string{
		"/api/session": "GET", "/api/requirements": "GET", "/api/requirements/{id}": "GET",
		"/api/requirements/{id}/review": "POST", "/api/requirements/{id}/undo": "POST",
		"/api/requirements/{id}/history": "GET", "/api/requirements/{id}/comments": "GET, POST",
		"/api/review/bulk": "POST", "/api/outputs": "GET, POST",
	}
	if j := opts.Job; j != nil {
		links := newDocumentLinks()
		mux.HandleFunc("GET /api/sections", func(w http.ResponseWriter, r *http.Request) { serveSections(w, s, j) })
		mux.HandleFunc("GET /api/export", func(w http.ResponseWriter, r *http.Request) { serveExport(w, r, s, j, opts.Version) })
		mux.HandleFunc("GET /api/documents/{name}", func(w http.ResponseWriter, r *http.Request) { serveDocument(w, r, j) })
		mux.HandleFunc("GET /api/documents/{name}/link", func(w http.ResponseWriter, r *http.Request) { serveDocumentLink(w, r, j, links) })
		mux.HandleFunc("GET /documents/{key}/{name}", func(w http.ResponseWriter, r *http.Request) { serveLinkedDocument(w, r, j, links) })
		allowed["/api/sections"], allowed["/api/export"], allowed["/api/documents/{name}"], allowed["/api/documents/{name}/link"] = "GET", "GET", "GET", "GET"
	}
	handleUnrouted(mux, allowed)
	return guard(authenticate(mux, opts.Tokens), opts.AnyHost)
}

// handleReads registers the API's GET routes, which change nothing;
// tokens are the reviewers' (HandlerOptions.Tokens).
func handleReads(mux *http.ServeMux, s *Service, tokens map[string]string) {
	mux.HandleFunc("GET /api/session", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, Session{Reviewers: nonNil(s.Reviewers()), Auth: len(tokens) > 0,
			Reviewer: tokenReviewer(r), DefaultReviewer: s.DefaultReviewer()})
	})
	mux.HandleFunc("GET /api/requirements", func(w http.ResponseWriter, r *http.Request) {
		l, err := s.List()
		respond(w, l, err)
	})
	mux.HandleFunc("GET /api/requirements/{id}", func(w http.ResponseWriter, r *http.Request) {
		d, err := s.Detail(r.PathValue("id"))
		if err == nil {
			w.Header().Set("ETag", etag(d.Version))
		}
		respond(w, d, err)
	})
	mux.HandleFunc("GET /api/requirements/{id}/history", func(w http.ResponseWriter, r *http.Request) {
		h, err := s.History(r.PathValue("id"))
		respond(w, nonNil(h), err)
	})
	mux.HandleFunc("GET /api/requirements/{id}/comments", func(w http.ResponseWriter, r *http.Request) {
		c, err := s.Comments(r.PathValue("id"))
		respond(w, c, err)
	})
	mux.HandleFunc("GET /api/outputs", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, outputsState{Pending: s.OutputsPending()})
	})
}

// handleChanges registers the API's POST routes; log, when set, gets a
// line for each decision taken.
func handleChanges(mux *http.ServeMux, s *Service, log io.Writer) {
	mux.HandleFunc("POST /api/requirements/{id}/review", func(w http.ResponseWriter, r *http.Request) { serveDecision(w, r, s, log) })
	mux.HandleFunc("POST /api/requirements/{id}/undo", func(w http.ResponseWriter, r *http.Request) { serveUndo(w, r, s, log) })
	mux.HandleFunc("POST /api/requirements/{id}/comments", func(w http.ResponseWriter, r *http.Request) { serveComment(w, r, s) })
	mux.HandleFunc("POST /api/review/bulk", func(w http.ResponseWriter, r *http.Request) { serveBulk(w, r, s, log) })
	mux.HandleFunc("POST /api/outputs", func(w http.ResponseWriter, r *http.Request) {
		err := s.Flush()
		respond(w, outputsState{Pending: s.OutputsPending()}, err)
	})
}

// handleUnrouted answers the API's paths with another method than allowed
// (path → its methods) with 405, and every other API path with 404.
func handleUnrouted(mux *http.ServeMux, allowed map[string]string) {
	for path, allow := range allowed {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: use %s", r.Method, r.URL.Path, allow))
		})
	}
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such API: %s %s", r.Method, r.URL.Path))
	})
}

// serveDecision takes a Decision on one requirement: POST
// /api/requirements/{id}/review. Without a version in the body, If-Match
// gives it.
func serveDecision(w http.ResponseWriter, r *http.Request, s *Service, log io.Writer) {
	if !jsonBody(w, r) {
		return
	}
	d, err := ParseDecision(r.Body)
	if err != nil {
		respond(w, nil, err)
		return
	}
	if d.Reviewer, err = requestReviewer(r, d.Reviewer); err != nil {
		respond(w, nil, err)
		return
	}
	if d.Version == nil {
		if d.Version, err = ifMatch(r); err != nil {
			respond(w, nil, err)
			return
		}
	}
	id := r.PathValue("id")
	item, progress, err := s.Decide(id, d)
	logChange(log, id, item, progress, err)
	respondChanged(w, item, progress, err)
}

// serveUndo takes back the last change of one requirement: POST
// /api/requirements/{id}/undo. Without a version in the body, If-Match
// gives it.
func serveUndo(w http.ResponseWriter, r *http.Request, s *Service, log io.Writer) {
	var body struct {
		Reviewer string `json:"reviewer"`
		Version  *int   `json:"version"`
	}
	if !jsonBody(w, r) || !readBody(w, r, &body, `an undo has "reviewer" and "version"`, true) {
		return
	}
	who, err := requestReviewer(r, strings.TrimSpace(body.Reviewer))
	if err == nil && body.Version == nil {
		body.Version, err = ifMatch(r)
	}
	if err != nil {
		respond(w, nil, err)
		return
	}
	id := r.PathValue("id")
	item, progress, err := s.Undo(id, who, body.Version)
	logChange(log, id, item, progress, err)
	respondChanged(w, item, progress, err)
}

// serveComment adds a comment to one requirement: POST
// /api/requirements/{id}/comments.
func serveComment(w http.ResponseWriter, r *http.Request, s *Service) {
	var body struct {
		Reviewer string  `json:"reviewer"`
		Text     *string `json:"text"`
	}
	if !jsonBody(w, r) || !readBody(w, r, &body, `a comment has "reviewer" and "text"`, false) {
		return
	}
	if body.Text == nil {
		respond(w, nil, inputErrorf("\"text\" is missing: a comment needs its text"))
		return
	}
	who, err := requestReviewer(r, strings.TrimSpace(body.Reviewer))
	if err != nil {
		respond(w, nil, err)
		return
	}
	c, err := s.Comment(r.PathValue("id"), who, *body.Text)
	respond(w, c, err)
}

// serveBulk takes one decision on many requirements: POST
// /api/review/bulk.
func serveBulk(w http.ResponseWriter, r *http.Request, s *Service, log io.Writer) {
	var body struct {
		IDs      []string       `json:"ids"`
		Decision *string        `json:"decision"`
		Note     string         `json:"note"`
		Reviewer string         `json:"reviewer"`
		Versions map[string]int `json:"versions"`
	}
	if !jsonBody(w, r) || !readBody(w, r, &body, `a bulk decision has "ids", "decision", "note", "reviewer" and "versions"`, false) {
		return
	}
	if body.Decision == nil {
		respond(w, nil, inputErrorf("\"decision\" is missing: use one of accepted, rejected, pending"))
		return
	}
	who, err := requestReviewer(r, strings.TrimSpace(body.Reviewer))
	if err != nil {
		respond(w, nil, err)
		return
	}
	d := Decision{Decision: decisionName(*body.Decision), Note: strings.TrimSpace(body.Note), Reviewer: who}
	results, progress, err := s.Bulk(body.IDs, d, body.Versions)
	if err == nil && log != nil {
		fmt.Fprintf(log, "%d requirements %s in bulk (%d of %d reviewed)\n", len(body.IDs), d.Decision, progress.Reviewed, progress.Total)
	}
	respond(w, struct {
		Results  []BulkResult `json:"results"`
		Progress Progress     `json:"progress"`
	}{results, progress}, err)
}

// Session says who reviews: GET /api/session.
type Session struct {
	// Reviewers are the names a change may carry; empty when any goes.
	Reviewers []string `json:"reviewers"`
	// Auth says whether the API needs a reviewer's token.
	Auth bool `json:"auth"`
	// Reviewer is the reviewer the request's token names; empty without.
	Reviewer string `json:"reviewer"`
	// DefaultReviewer makes the changes that name nobody.
	DefaultReviewer string `json:"default_reviewer"`
}

// changed is the answer to a change of one requirement.
type changed struct {
	Requirement Item     `json:"requirement"`
	Progress    Progress `json:"progress"`
}

// outputsState is the answer of /api/outputs.
type outputsState struct {
	// Pending says decisions are not in the output files yet.
	Pending bool `json:"pending"`
}

// respondChanged answers a change of one requirement, with its new
// version as the ETag.
func respondChanged(w http.ResponseWriter, item Item, p Progress, err error) {
	if err == nil {
		w.Header().Set("ETag", etag(item.Version))
	}
	respond(w, changed{item, p}, err)
}

func logChange(log io.Writer, id string, item Item, p Progress, err error) {
	if err == nil && log != nil {
		fmt.Fprintf(log, "%s %s (%d of %d reviewed)\n", id, item.ReviewStatus, p.Reviewed, p.Total)
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func etag(version int) string { return fmt.Sprintf("%q", strconv.Itoa(version)) }

// ifMatch is the version the header If-Match names ("3", W/"3" or 3);
// nil without the header or with *.
func ifMatch(r *http.Request) (*int, error) {
	h := strings.TrimSpace(r.Header.Get("If-Match"))
	if h == "" || h == "*" { // * is any version
		return nil, nil
	}
	v, err := strconv.Atoi(strings.Trim(strings.TrimPrefix(h, "W/"), `"`))
	if err != nil || v < 0 {
		return nil, inputErrorf("If-Match %s is not a version: send the ETag of the requirement, such as \"3\"", h)
	}
	return &v, nil
}

// jsonBody refuses a change not sent as JSON: a form of another site
// cannot send JSON without the browser asking first.
func jsonBody(w http.ResponseWriter, r *http.Request) bool {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		writeError(w, http.StatusBadRequest, "send the request as JSON, with the header Content-Type: application/json")
		return false
	}
	return true
}

// readBody reads a request's JSON object strictly into v; fields names
// what the object holds, for the error. With mayBeEmpty an empty body is
// an empty object.
func readBody(w http.ResponseWriter, r *http.Request, v any, fields string, mayBeEmpty bool) bool {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	switch {
	case err != nil:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("cannot read the request body: %v", err))
		return false
	case len(data) > maxBody:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("the request body is over %d bytes", maxBody))
		return false
	case len(bytes.TrimSpace(data)) == 0 && mayBeEmpty:
		return true
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		msg := jsonProblem(err)
		if strings.HasPrefix(err.Error(), "json: unknown field ") {
			msg = fmt.Sprintf("unknown field %s; %s", strings.TrimPrefix(err.Error(), "json: unknown field "), fields)
		}
		writeError(w, http.StatusBadRequest, "the request body is not valid: "+msg)
		return false
	}
	if dec.More() {
		writeError(w, http.StatusBadRequest, "the request body holds more than one JSON value")
		return false
	}
	return true
}

// reviewerKey is the context key of the reviewer a request's token names.
type reviewerKey struct{}

// tokenReviewer is the reviewer the request's token names; empty without
// tokens.
func tokenReviewer(r *http.Request) string {
	name, _ := r.Context().Value(reviewerKey{}).(string)
	return name
}

// ForbiddenError is a change in the name of another reviewer than the
// request's token's.
type ForbiddenError struct{ msg string }

func (e *ForbiddenError) Error() string { return e.msg }

// requestReviewer is who makes the request's change: the token's
// reviewer, who may not name another, or else the name the body gives.
func requestReviewer(r *http.Request, named string) (string, error) {
	bound := tokenReviewer(r)
	switch {
	case bound == "":
		return named, nil
	case named != "" && named != bound:
		return "", &ForbiddenError{fmt.Sprintf("this token is %s's: it cannot act as %q", bound, named)}
	}
	return bound, nil
}

// authenticate asks every API request for a reviewer's token when tokens
// are given, and binds the request to the token's reviewer. The tokens
// are compared in constant time, each of them, so that the time of an
// answer does not tell how much of a token was right.
func authenticate(next http.Handler, tokens map[string]string) http.Handler {
	if len(tokens) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			next.ServeHTTP(w, r)
			return
		}
		given, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		name := ""
		for token, reviewer := range tokens {
			if subtle.ConstantTimeCompare([]byte(strings.TrimSpace(given)), []byte(token)) == 1 {
				name = reviewer
			}
		}
		if !ok || name == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="creator review"`)
			writeError(w, http.StatusUnauthorized, "this review needs a reviewer's token: open the address with #token=… that creator review printed, or send Authorization: Bearer TOKEN")
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), reviewerKey{}, name)))
	})
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
	var conflict *ConflictError
	var forbidden *ForbiddenError
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, v)
	case errors.As(err, &conflict):
		w.Header().Set("ETag", etag(conflict.Requirement.Version))
		writeJSON(w, http.StatusConflict, struct {
			Error       string `json:"error"`
			Requirement Item   `json:"requirement"`
		}{err.Error(), conflict.Requirement})
	case errors.As(err, &forbidden):
		writeError(w, http.StatusForbidden, err.Error())
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
