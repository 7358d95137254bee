package review

import (
	"cmp"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"creator/internal/export"
	"creator/internal/job"
)

// serveExport answers GET /api/export?format=F[&reviewed_only=true] with
// the job's export in format F (json when none) as a download, made as
// 'creator export' makes it; audit-json and audit-csv are the review log.
func serveExport(w http.ResponseWriter, r *http.Request, s *Service, j *job.View, version string) {
	q := r.URL.Query()
	format := strings.ToLower(q.Get("format"))
	if format == "" {
		format = "json"
	}
	audit := slices.Contains(export.AuditFormats, format)
	if !slices.Contains(export.AllFormats, format) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("unknown format %q: use %s", format, strings.Join(export.AllFormats, ", ")))
		return
	}
	reviewedOnly := false
	if v := q.Get("reviewed_only"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("reviewed_only=%q: use true or false", v))
			return
		}
		reviewedOnly = b
	}
	var data []byte
	ext, mediaType, _ := export.FileType(format)
	name := "requirements-" + j.ID + ext
	if audit {
		// The log of every change, made before any output too.
		if reviewedOnly {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("reviewed_only is for the requirements; %s is the review log, every change of every requirement", format))
			return
		}
		var err error
		if data, _, err = export.AuditOf(j, format); err != nil {
			respond(w, nil, err)
			return
		}
		name = "review-log-" + j.ID + ext
	} else {
		if _, from, _, err := s.Records(); err != nil {
			respond(w, nil, err)
			return
		} else if from != "output" {
			writeError(w, http.StatusConflict, fmt.Sprintf("job '%s' has no output yet: an export is made of output/requirements.json, written when the job completes or stops at a budget", j.ID))
			return
		}
		src, err := export.ForJob(j, s.cfg.Now(), version)
		if err != nil {
			respond(w, nil, err)
			return
		}
		if reviewedOnly {
			src.Records, _ = export.Approved(src.Records)
		}
		if data, err = export.Render(format, src); err != nil {
			respond(w, nil, err)
			return
		}
	}
	h := w.Header()
	h.Set("Content-Type", mediaType)
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(data)))
	_, _ = w.Write(data)
}

// serveDocument answers GET /api/documents/{name} with the job's copy of
// its source document name, and nothing else of the job.
func serveDocument(w http.ResponseWriter, r *http.Request, j *job.View) {
	name := r.PathValue("name")
	f, err := j.OpenInput(name)
	if errors.Is(err, fs.ErrNotExist) {
		names := "none"
		if info, err := j.Info(); err == nil && len(info.Inputs) > 0 {
			names = strings.Join(info.InputNames(), ", ")
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("%q is not a document of job '%s'; its documents: %s", name, j.ID, names))
		return
	}
	if err != nil {
		// A link out of the job, or a file that cannot be read: the
		// document is not there to serve, and the job's paths are no
		// one's business.
		writeError(w, http.StatusNotFound, fmt.Sprintf("document %q of job '%s' cannot be opened: it is no readable file of the job's input folder", name, j.ID))
		return
	}
	defer f.Close()
	content, ok := f.(io.ReadSeeker)
	fi, statErr := f.Stat()
	if !ok || statErr != nil {
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("cannot read document %s", name))
		return
	}
	ctype := mime.TypeByExtension(strings.ToLower(path.Ext(name)))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	if mt, _, _ := mime.ParseMediaType(ctype); mt != "application/pdf" {
		// A document of the job may be HTML or SVG, with scripts of its
		// own: shown sandboxed, they cannot reach the API of this origin.
		// (Chromium shows no PDF under a sandbox; a PDF's scripts run in
		// the viewer, not in this origin.)
		h.Set("Content-Security-Policy", "sandbox; default-src 'none'; img-src 'self' data:; style-src 'self' 'unsafe-inline'")
	}
	h.Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": name}))
	h.Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, name, fi.ModTime().Truncate(time.Second), content)
}

// documentLinks make and check the addresses that open one document of
// the job without a reviewer's token: /documents/KEY/NAME, KEY an HMAC of
// NAME under a secret of this server. A tab cannot send a token, and a
// document must not be opened from memory (a blob: address is of the
// page's origin, unsandboxed: an HTML document there reads the token the
// page keeps and posts forms anywhere); from this address it comes as
// /api/documents/NAME does, sandboxed unless a PDF. The address opens
// that document and nothing else — what a document reads of its own
// address gives it nothing — and none once the review stops.
type documentLinks struct{ secret []byte }

func newDocumentLinks() documentLinks { return documentLinks{secret: []byte(rand.Text())} }

func (d documentLinks) key(name string) []byte {
	mac := hmac.New(sha256.New, d.secret)
	mac.Write([]byte(name))
	return mac.Sum(nil)
}

// link is the address that opens document name.
func (d documentLinks) link(name string) string {
	return "/documents/" + hex.EncodeToString(d.key(name)) + "/" + url.PathEscape(name)
}

// opens reports whether key is that of document name's address.
func (d documentLinks) opens(key, name string) bool {
	k, err := hex.DecodeString(key)
	return err == nil && hmac.Equal(k, d.key(name))
}

// serveDocumentLink answers GET /api/documents/{name}/link with the
// address that opens the document without a token: {"url": "/documents/…"}.
func serveDocumentLink(w http.ResponseWriter, r *http.Request, j *job.View, links documentLinks) {
	name := r.PathValue("name")
	info, err := j.Info()
	if err != nil {
		respond(w, nil, err)
		return
	}
	if !slices.Contains(info.InputNames(), name) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("%q is not a document of job '%s'; its documents: %s", name, j.ID, cmp.Or(strings.Join(info.InputNames(), ", "), "none")))
		return
	}
	writeJSON(w, http.StatusOK, struct {
		URL string `json:"url"`
	}{links.link(name)})
}

// serveLinkedDocument answers GET /documents/{key}/{name}, an address of
// documentLinks, with the document as serveDocument serves it.
func serveLinkedDocument(w http.ResponseWriter, r *http.Request, j *job.View, links documentLinks) {
	if !links.opens(r.PathValue("key"), r.PathValue("name")) {
		writeError(w, http.StatusNotFound, "this address opens no document: open the document from the review page")
		return
	}
	serveDocument(w, r, j)
}

// serveSections answers GET /api/sections with the heading path of the
// place each requirement's first citation quotes, as exports place it:
// {"sections": {"REQ-001": ["4 Retention", "4.1 Invoices"], …}}.
func serveSections(w http.ResponseWriter, s *Service, j *job.View) {
	recs, _, _, err := s.Records()
	if err != nil {
		respond(w, nil, err)
		return
	}
	src, err := export.SourceOf(j, recs)
	if err != nil {
		respond(w, nil, err)
		return
	}
	sections := make(map[string][]string, len(recs))
	for _, r := range recs {
		sections[r.ID] = src.SectionsOf(r)
		if sections[r.ID] == nil {
			sections[r.ID] = []string{}
		}
	}
	writeJSON(w, http.StatusOK, struct {
		Sections map[string][]string `json:"sections"`
	}{sections})
}
