package document

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/ledongthuc/pdf"
)

// pdfPages is the text of a PDF's pages.
type pdfPages struct {
	lines [][]string // per page
	// furniture are, per page, the indexes of the lines that are running
	// headers, footers or page numbers (findFurniture).
	furniture [][]int
	// unmapped counts the glyphs that could not be turned into text, and
	// unreadable the pages whose content could not be read at all.
	unmapped, unreadable int
	// repaired: the file's cross-reference table was damaged and rebuilt
	// (repairPDF).
	repaired bool
}

// readPDF extracts the lines of every page, with up to workers pages read
// at once; an encrypted PDF is decrypted first, with password (see
// decryptPDF). When ctx ends, no page is begun any more and it returns
// ctx's error once the pages under way are done. Its furniture holds, for
// each page, the indexes of its lines that are running headers, footers or
// page numbers by their place on the pages (findFurniture). The PDF
// library panics on some malformed files; a panic becomes an error, and a
// page whose content fails part of the way is kept with what could be read
// of it.
//
// A PDF with more than maxPages pages is refused with a *TooManyError
// before its pages are read: by the count its page tree gives, and else
// once the pages listed pass it, so that no more page objects than that are
// read (a PDF of 800,000 pages took 2.5 GB).
func readPDF(ctx context.Context, r io.ReaderAt, size int64, workers int, password string, pageRead func(int), maxPages int64) (out pdfPages, err error) {
	defer func() {
		if v := recover(); v != nil {
			out, err = pdfPages{}, fmt.Errorf("the PDF is damaged and cannot be read (%v)", v)
		}
	}()
	rd, repaired, err := openPDF(r, size, password)
	if err != nil {
		return pdfPages{}, err
	}
	out.repaired = repaired
	first := &pageWorker{objects: newObjectCache()}
	root := rd.Trailer().Key("Root").Key("Pages")
	if n := root.Key("Count").Int64(); n > maxPages {
		return pdfPages{}, &TooManyError{What: "pages", Count: n}
	}
	room := int(min(maxPages, math.MaxInt32))
	list := pageList(first.objects, root, 0, map[uint64]bool{}, workers, &room)
	if room < 0 {
		return pdfPages{}, &TooManyError{What: "pages", Count: maxPages + 1}
	}
	if len(list) == 0 {
		return pdfPages{}, errors.New("the PDF has no pages")
	}
	laid := make([][][]line, len(list))
	counts := make([]int, len(list))
	unreadable := make([]bool, len(list))
	failures := make([]any, len(list))
	// The library's reader only reads once it is open, and os.File's ReadAt
	// may be called at once from several goroutines; each worker keeps its
	// own objects and fonts. A page's text depends on nothing read for
	// other pages, so the order in which workers take pages does not matter.
	ws := make([]*pageWorker, max(1, min(workers, len(list))))
	ws[0] = first
	for k := 1; k < len(ws); k++ {
		ws[k] = &pageWorker{objects: newObjectCache()}
	}
	inParallel(len(list), len(ws), func(w, i int) {
		if ctx.Err() != nil {
			return
		}
		defer func() { failures[i] = recover() }()
		laid[i], counts[i], unreadable[i] = ws[w].read(list[i])
		if pageRead != nil {
			pageRead(i)
		}
	})
	if err := ctx.Err(); err != nil {
		return pdfPages{}, err
	}
	for i, v := range failures {
		if v != nil {
			return pdfPages{}, fmt.Errorf("the PDF is damaged and cannot be read (%v)", v)
		}
		out.unmapped += counts[i]
		if unreadable[i] {
			out.unreadable++
		}
	}
	removeLaidLineNumbers(laid)
	flags := findFurniture(laid)
	out.lines, out.furniture = make([][]string, len(laid)), make([][]int, len(laid))
	for i, runs := range laid {
		out.lines[i], out.furniture[i] = renderPage(runs, flags[i])
	}
	return out, nil
}

// openPDF opens the PDF in r, decrypted when it is encrypted. A file
// without encryption is opened once, as before there was decryption.
func openPDF(r io.ReaderAt, size int64, password string) (rd *pdf.Reader, repaired bool, err error) {
	rd, err = pdf.NewReader(r, size)
	switch {
	case err == nil && rd.Trailer().Key("Encrypt").IsNull():
		return rd, false, nil
	case err != nil && !mentionsEncrypt(r, size):
		fixed, rerr := repairPDF(r, size)
		if rerr != nil {
			return nil, false, fmt.Errorf("not a readable PDF: %v; rebuilding its cross-reference table failed too (%v) — if another program opens it, save it from there as a new PDF (qpdf in.pdf out.pdf repairs many such files)", err, rerr)
		}
		if rd, rerr = pdf.NewReader(bytes.NewReader(fixed), int64(len(fixed))); rerr != nil {
			return nil, false, fmt.Errorf("not a readable PDF: %v; its rebuilt form cannot be read either (%v) — if another program opens it, save it from there as a new PDF", err, rerr)
		}
		return rd, true, nil
	}
	// Encrypted: the library may have refused its encryption, or opened
	// it with a key it then uses wrongly (see decryptPDF).
	plain, err := decryptPDF(r, size, password)
	if err != nil {
		return nil, false, err
	}
	rd, err = pdf.NewReader(bytes.NewReader(plain), int64(len(plain)))
	if err != nil {
		return nil, false, fmt.Errorf("not a readable PDF once decrypted: %v", err)
	}
	return rd, false, nil
}

// pageWorker reads pages one after another and keeps what the next page
// can use: the objects and fonts read, and its buffers.
type pageWorker struct {
	objects  *objectCache
	glyphs   []glyph
	inflated []byte
}

// read returns the lines of a page, in runs by text direction, how many
// of its glyphs could not be turned into text, and whether its content
// could not be read at all.
func (w *pageWorker) read(page pdf.Page) (lines [][]line, unmapped int, unreadable bool) {
	p := &pageReader{fonts: map[fontKey]*fontInfo{}, objects: w.objects, glyphs: w.glyphs[:0], inflated: w.inflated}
	readPage(p, page)
	w.glyphs, w.inflated = p.glyphs, p.inflated // reused: the page's text is built from them below
	return layoutPage(p.glyphs), p.unmapped, p.unreadable && len(p.glyphs) == 0
}

// maxPageTreeDepth bounds the page tree walk of damaged files.
const maxPageTreeDepth = 64

// pageList walks the page tree once, in order. (The library's Page(n) walks
// it from the root for every page, which is quadratic.) A node met again —
// a cycle in a damaged file — is skipped, so no page is read twice. room
// is how many more pages may be listed: each page listed takes one, and
// when it goes below zero the walk stops, having read at most one kids
// array's worth of nodes past it.
func pageList(objects *objectCache, node pdf.Value, depth int, seen map[uint64]bool, workers int, room *int) []pdf.Page {
	if depth > maxPageTreeDepth || *room < 0 {
		return nil
	}
	if id, ok := objectID(node); ok {
		if seen[id] {
			return nil
		}
		seen[id] = true
	}
	switch node.Key("Type").Name() {
	case "Page":
		*room--
		return []pdf.Page{{V: node}}
	case "Pages", "":
		kids := node.Key("Kids")
		if node.Key("Type").Name() == "" && kids.Kind() != pdf.Array {
			*room--
			return []pdf.Page{{V: node}} // a page without /Type, as some writers make
		}
		var out []pdf.Page
		values, failures := readKids(objects, kids, workers, *room+1)
		for i, kid := range values {
			if failures[i] != nil {
				panic(failures[i]) // where reading the kids one by one would have failed
			}
			out = append(out, pageList(objects, kid, depth+1, seen, workers, room)...)
			if *room < 0 {
				break
			}
		}
		return out
	}
	return nil
}

// readKids reads the first nodes of a kids array, at most most of them,
// up to workers at once: reading one may mean inflating an object stream,
// and each page is a node. A panic of the library stays with its node, to
// be raised in order.
func readKids(objects *objectCache, kids pdf.Value, workers, most int) (values []pdf.Value, failures []any) {
	n := min(kids.Len(), max(most, 0))
	values, failures = make([]pdf.Value, n), make([]any, n)
	var missing []int // not in the cache
	for i := range n {
		id, ok := refOf(elementOf(kids, i))
		if v, hit := objects.objects[id]; ok && hit {
			values[i] = v
			continue
		}
		missing = append(missing, i)
	}
	if workers = min(workers, len(missing)); workers <= 1 {
		for _, i := range missing {
			values[i] = objects.index(kids, i)
		}
		return values, failures
	}
	inParallel(len(missing), workers, func(_, k int) {
		i := missing[k]
		defer func() { failures[i] = recover() }()
		values[i] = kids.Index(i)
	})
	for _, i := range missing {
		if id, ok := refOf(elementOf(kids, i)); ok && failures[i] == nil {
			objects.objects[id] = values[i]
		}
	}
	return values, failures
}

// inParallel calls f(w, i) for every i below n, on up to workers
// goroutines that take the next i as they finish one; w numbers the
// goroutine, from 0. One worker calls f in order, on this goroutine.
func inParallel(n, workers int, f func(w, i int)) {
	if workers = min(workers, n); workers <= 1 {
		for i := range n {
			f(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(w, i)
			}
		})
	}
	wg.Wait()
}

// readPage collects the glyphs of a page; a page damaged part of the way
// keeps what was read before the damage.
func readPage(p *pageReader, page pdf.Page) {
	defer func() {
		if recover() != nil {
			p.unreadable = true
		}
	}()
	if page.V.IsNull() {
		return
	}
	p.run(page.V.Key("Contents"), p.objects.resources(page.V), identity, 0)
}

// objectCache keeps the objects read so far, by object number, and the
// fonts made of them. The library reads an object again at every access —
// one kept in an object stream by inflating and scanning that whole
// stream — so what the pages share (resources, fonts) is read once.
type objectCache struct {
	objects  map[uint64]pdf.Value
	fonts    map[uint64]*fontInfo
	fallback *fontInfo // for a missing font resource
}

func newObjectCache() *objectCache {
	return &objectCache{objects: map[uint64]pdf.Value{}, fonts: map[uint64]*fontInfo{}, fallback: newFallbackFont()}
}

// key is v.Key(name), read from the cache when it refers to an object
// read before.
func (c *objectCache) key(v pdf.Value, name string) pdf.Value {
	return c.read(entryOf(v, name), func() pdf.Value { return v.Key(name) })
}

// index is v.Index(i), read from the cache like key.
func (c *objectCache) index(v pdf.Value, i int) pdf.Value {
	return c.read(elementOf(v, i), func() pdf.Value { return v.Index(i) })
}

// read is the object the unresolved entry e refers to: from the cache, or
// resolved by resolve and kept. A direct value is resolved every time.
func (c *objectCache) read(e reflect.Value, resolve func() pdf.Value) pdf.Value {
	id, ok := refOf(e)
	if !ok {
		return resolve()
	}
	if x, hit := c.objects[id]; hit {
		return x
	}
	x := resolve()
	c.objects[id] = x
	return x
}

// resources are a page's resources, inherited from its ancestors when it
// has none of its own.
func (c *objectCache) resources(page pdf.Value) pdf.Value {
	for v, depth := page, 0; !v.IsNull() && depth <= maxPageTreeDepth; v, depth = c.key(v, "Parent"), depth+1 {
		if r := c.key(v, "Resources"); !r.IsNull() {
			return r
		}
	}
	return pdf.Value{}
}

// The library keeps a value's data and its object references unexported;
// reading them lets an object read once serve every page that refers to it.

// objectID is the object number and generation of an indirect PDF object,
// or of the object a direct value is part of. ok is false for values that
// are not part of one.
func objectID(v pdf.Value) (id uint64, ok bool) {
	id, ok = refOf(reflect.ValueOf(v).FieldByName("ptr"))
	return id, ok && id>>16 != 0 // object number 0: not part of an object
}

// entryOf is the unresolved entry name of a dictionary or of a stream's
// dictionary.
func entryOf(v pdf.Value, name string) reflect.Value {
	d := reflect.ValueOf(v).FieldByName("data")
	if d.Kind() != reflect.Interface || d.IsNil() {
		return reflect.Value{}
	}
	d = d.Elem()
	if d.Kind() == reflect.Struct {
		d = d.FieldByName("hdr") // a stream
	}
	if d.Kind() != reflect.Map || d.Type().Key().Kind() != reflect.String {
		return reflect.Value{}
	}
	return d.MapIndex(reflect.ValueOf(name).Convert(d.Type().Key()))
}

// elementOf is the unresolved element i of an array.
func elementOf(v pdf.Value, i int) reflect.Value {
	d := reflect.ValueOf(v).FieldByName("data")
	if d.Kind() != reflect.Interface || d.IsNil() {
		return reflect.Value{}
	}
	d = d.Elem()
	if d.Kind() != reflect.Slice || i < 0 || i >= d.Len() {
		return reflect.Value{}
	}
	return d.Index(i)
}

// refOf is the object an unresolved entry refers to; ok is false for a
// direct value.
func refOf(e reflect.Value) (id uint64, ok bool) {
	if e.Kind() == reflect.Interface {
		if e.IsNil() {
			return 0, false
		}
		e = e.Elem()
	}
	if e.Kind() != reflect.Struct || e.Type().Name() != "objptr" || e.NumField() < 2 {
		return 0, false
	}
	return e.Field(0).Uint()<<16 | e.Field(1).Uint(), true
}
