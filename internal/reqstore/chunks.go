package reqstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"creator/internal/document"
	"creator/internal/requirement"
)

var errNoChunks = errors.New("there are no chunks yet: split the document with chunk_document first")

// chunks gives access to the chunk files of the job, each read and
// normalised once per operation. A store keeps its chunks from one
// operation to the next (reload): the manifest is parsed again and a
// chunk normalised again only when its file changed.
type chunks struct {
	files   FS
	manData []byte // the manifest file man was parsed from
	man     document.Manifest
	read    map[string]bool   // chunks whose file this operation has read
	raw     map[string]string // chunk file each body was taken from, by id
	bodies  map[string]string
	norm    map[string]requirement.Normalized
}

func loadChunks(files FS) (*chunks, error) {
	return (*chunks)(nil).reload(files)
}

// reload is loadChunks for the next operation, reusing what c (nil: none)
// parsed and normalised of files that have not changed since.
func (c *chunks) reload(files FS) (*chunks, error) {
	data, err := files.ReadInternal(document.ManifestFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoChunks
	}
	if err != nil {
		return nil, err
	}
	next := &chunks{files: files, manData: data, read: map[string]bool{}}
	if c != nil {
		next.raw, next.bodies, next.norm = c.raw, c.bodies, c.norm
	} else {
		next.raw, next.bodies, next.norm = map[string]string{}, map[string]string{}, map[string]requirement.Normalized{}
	}
	if c != nil && bytes.Equal(c.manData, data) {
		next.man = c.man
		return next, nil
	}
	if next.man, err = document.ParseManifest(data); err != nil {
		return nil, err
	}
	return next, nil
}

// find looks for a quote in the body of chunk id (requirement.Find).
func (c *chunks) find(id, body, quote string) (start, end int, ok bool) {
	n, done := c.norm[id]
	if !done {
		n = requirement.Normalize(body)
		c.norm[id] = n
	}
	return requirement.FindIn(n, body, quote)
}

func (c *chunks) body(id string) (document.ManifestChunk, string, error) {
	mc, ok := c.man.Find(id)
	if !ok {
		return mc, "", c.unknown(id)
	}
	if c.read[id] {
		return mc, c.bodies[id], nil
	}
	data, err := c.files.ReadInternal(mc.File)
	if err != nil {
		return mc, "", fmt.Errorf("cannot read %s: %v", mc.File, err)
	}
	if raw, ok := c.raw[id]; !ok || raw != string(data) {
		c.raw[id] = string(data)
		c.bodies[id] = document.ChunkBody(c.raw[id])
		delete(c.norm, id)
	}
	c.read[id] = true
	return mc, c.bodies[id], nil
}

func (c *chunks) unknown(id string) error {
	if len(c.man.Chunks) == 0 {
		return fmt.Errorf("chunk %q does not exist: there are no chunks", id)
	}
	return fmt.Errorf("chunk %q does not exist; the chunks are %s to %s", id, c.man.Chunks[0].ID, c.man.Chunks[len(c.man.Chunks)-1].ID)
}

// check verifies a citation: the chunk exists and belongs to the document,
// and the quote is in it. It returns the citation as stored (the chunk id
// and document name in their canonical form, the quote as it stands in the
// source with whitespace collapsed, and its page), the quote's offset in
// the chunk, and what was read how or corrected.
func (c *chunks) check(cit requirement.Citation) (requirement.Citation, int, []Correction, error) {
	var corrections []Correction
	id, corr, err := c.resolve(cit.Chunk)
	if err != nil {
		return cit, 0, nil, err
	}
	if corr != nil {
		corrections = append(corrections, *corr)
	}
	cit.Chunk = id
	mc, body, err := c.body(cit.Chunk)
	if err != nil {
		return cit, 0, nil, err
	}
	doc, corr, err := documentOf(cit.Document, mc)
	if err != nil {
		return cit, 0, nil, err
	}
	if corr != nil {
		corrections = append(corrections, *corr)
	}
	cit.Document = doc
	start, end, ok := c.find(cit.Chunk, body, cit.Quote)
	if !ok {
		return cit, 0, nil, c.notFound(cit, body)
	}
	page := requirement.PageAt(body, start, mc.FirstPage)
	if cit.Page != 0 && cit.Page != page && page != 0 {
		corrections = append(corrections, Correction{Kind: Page, Chunk: cit.Chunk, Given: strconv.Itoa(cit.Page), Stored: strconv.Itoa(page)})
	}
	cit.Page = page
	cit.Quote = requirement.Clean(body[start:end])
	return cit, start, corrections, nil
}

// notFound says where a quote that is not in its chunk is instead: in
// another chunk of the document, or nowhere.
func (c *chunks) notFound(cit requirement.Citation, body string) error {
	for _, other := range c.man.Chunks {
		if other.ID == cit.Chunk || other.Document != cit.Document {
			continue
		}
		if _, ob, err := c.body(other.ID); err == nil {
			if _, _, found := c.find(other.ID, ob, cit.Quote); found {
				return fmt.Errorf("the quote is in %s, not in %s; cite that chunk", other.ID, cit.Chunk)
			}
		}
	}
	return quoteNotFound(cit, body)
}

// resolve finds the chunk an id names (document.Manifest.Lookup).
func (c *chunks) resolve(id string) (string, *Correction, error) {
	mc, ok := c.man.Lookup(id)
	switch {
	case !ok:
		return "", nil, c.unknown(id)
	case mc.ID != id:
		return mc.ID, &Correction{Kind: ChunkName, Chunk: mc.ID, Given: id, Stored: mc.ID}, nil
	}
	return id, nil, nil
}

// documentOf checks the document a citation names against the chunk's:
// the same name, given as a path in input/, in another case, as the text
// extracted from it, or left out, all name it.
func documentOf(given string, mc document.ManifestChunk) (string, *Correction, error) {
	if given == mc.Document {
		return given, nil, nil
	}
	if given == "" {
		return mc.Document, nil, nil
	}
	name := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(given), "./"), "input/")
	switch {
	case name == mc.Document, strings.EqualFold(name, mc.Document):
		return mc.Document, &Correction{Kind: DocumentName, Chunk: mc.ID, Given: given, Stored: mc.Document}, nil
	case mc.Source != "" && (name == path.Base(mc.Source) || strings.TrimPrefix(given, "./") == mc.Source):
		return mc.Document, &Correction{Kind: DocumentSource, Chunk: mc.ID, Given: given, Stored: mc.Document}, nil
	}
	return "", nil, fmt.Errorf("%s is part of %s, not %s", mc.ID, mc.Document, given)
}

// quoteNotFound says why a quote is not in its chunk and what to do: cite
// the parts of a quote shortened with an ellipsis separately; copy the
// passage that resembles the quote; or, when none does (a translation, a
// paraphrase), copy a sentence of the chunk as it stands.
func quoteNotFound(cit requirement.Citation, body string) error {
	if requirement.Ellipsis(cit.Quote) {
		return fmt.Errorf("the quote leaves words out with an ellipsis, and a quote must be verbatim: cite each part as a separate citation (several citations of %s are fine), or copy the whole passage without leaving anything out", cit.Chunk)
	}
	if passage, ok := requirement.Closest(body, cit.Quote); ok {
		return fmt.Errorf("the quote was not found in %s. The closest passage there is: «%s». Copy the text exactly from the chunk", cit.Chunk, passage)
	}
	return fmt.Errorf("the quote was not found in %s, and no passage of %s resembles it. Copy a sentence from the chunk word for word, in the document's own language: do not translate, paraphrase or combine sentences", cit.Chunk, cit.Chunk)
}

// sections returns, by requirement id, the section path the first quote
// of each record stands in: the nearest heading above it in its chunk.
func (c *chunks) sections(recs []requirement.Record) map[string]string {
	if c == nil {
		return nil
	}
	out := map[string]string{}
	for _, r := range recs {
		if len(r.Citations) == 0 {
			continue
		}
		cit := r.Citations[0]
		mc, body, err := c.body(cit.Chunk)
		if err != nil {
			continue
		}
		at, _, ok := c.find(cit.Chunk, body, cit.Quote)
		if !ok {
			at = -1
		}
		out[r.ID] = strings.Join(mc.SectionAt(body, at), " › ")
	}
	return out
}
