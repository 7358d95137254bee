package export

import (
	"cmp"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"creator/internal/output"
	"creator/internal/requirement"
)

// OSCALVersion is the version of OSCAL (NIST's Open Security Controls
// Assessment Language) a catalog is written in.
const OSCALVersion = "1.1.3"

// OSCALNamespace qualifies the names of the properties and parts that are
// creator's, not OSCAL's own.
const OSCALNamespace = "urn:creator:requirements"

// The catalog as OSCAL's JSON model has it: what an export writes and a
// round trip reads.
type (
	oscalDocument struct {
		Catalog oscalCatalog `json:"catalog"`
	}
	oscalCatalog struct {
		UUID       string           `json:"uuid"`
		Metadata   oscalMetadata    `json:"metadata"`
		Groups     []oscalGroup     `json:"groups,omitempty"`
		Controls   []oscalControl   `json:"controls,omitempty"`
		BackMatter *oscalBackMatter `json:"back-matter,omitempty"`
	}
	oscalMetadata struct {
		Title        string      `json:"title"`
		LastModified string      `json:"last-modified"`
		Version      string      `json:"version"`
		OSCALVersion string      `json:"oscal-version"`
		Props        []oscalProp `json:"props,omitempty"`
	}
	oscalGroup struct {
		ID       string         `json:"id,omitempty"`
		Class    string         `json:"class,omitempty"`
		Title    string         `json:"title"`
		Groups   []oscalGroup   `json:"groups,omitempty"`
		Controls []oscalControl `json:"controls,omitempty"`
	}
	oscalControl struct {
		ID    string      `json:"id"`
		Class string      `json:"class,omitempty"`
		Title string      `json:"title"`
		Props []oscalProp `json:"props,omitempty"`
		Links []oscalLink `json:"links,omitempty"`
		Parts []oscalPart `json:"parts,omitempty"`
	}
	oscalPart struct {
		ID    string      `json:"id,omitempty"`
		Name  string      `json:"name"`
		NS    string      `json:"ns,omitempty"`
		Class string      `json:"class,omitempty"`
		Props []oscalProp `json:"props,omitempty"`
		Prose string      `json:"prose,omitempty"`
		Parts []oscalPart `json:"parts,omitempty"`
	}
	oscalProp struct {
		Name    string `json:"name"`
		NS      string `json:"ns,omitempty"`
		Value   string `json:"value"`
		Class   string `json:"class,omitempty"`
		Remarks string `json:"remarks,omitempty"`
	}
	oscalLink struct {
		Href string `json:"href"`
		Rel  string `json:"rel,omitempty"`
	}
	oscalBackMatter struct {
		Resources []oscalResource `json:"resources"`
	}
	oscalResource struct {
		UUID   string       `json:"uuid"`
		Title  string       `json:"title,omitempty"`
		RLinks []oscalRLink `json:"rlinks,omitempty"`
	}
	oscalRLink struct {
		Href      string      `json:"href"`
		MediaType string      `json:"media-type,omitempty"`
		Hashes    []oscalHash `json:"hashes,omitempty"`
	}
	oscalHash struct {
		Algorithm string `json:"algorithm"`
		Value     string `json:"value"`
	}
)

// uuidNamespace is the namespace of the catalog's name-based (version 5)
// UUIDs: the same job and documents give the same UUIDs.
var uuidNamespace = [16]byte{0x6b, 0x1f, 0x3c, 0x52, 0x8e, 0x0d, 0x4a, 0x27, 0x9c, 0x61, 0x2e, 0x58, 0xd4, 0x03, 0xb7, 0x9a}

// uuid5 is the RFC 4122 version 5 UUID of name.
func uuid5(name string) string {
	h := sha1.New()
	h.Write(uuidNamespace[:])
	h.Write([]byte(name))
	b := h.Sum(nil)[:16]
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	x := hex.EncodeToString(b)
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}

// oscalToken makes s an OSCAL token (an XML NCName): each run of other
// characters becomes a dot, as AC-2(1) becomes AC-2.1, and one that
// starts otherwise than with a letter gets an underscore in front.
func oscalToken(s string) string {
	var b strings.Builder
	dot := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.':
			if dot && b.Len() > 0 {
				b.WriteByte('.')
			}
			dot = false
			b.WriteRune(r)
		default:
			dot = true
		}
	}
	t := strings.Trim(b.String(), ".-")
	if t == "" {
		return ""
	}
	if r := []rune(t)[0]; !unicode.IsLetter(r) && r != '_' {
		t = "_" + t
	}
	return t
}

// oneLine is s as an OSCAL string value: one line, no control
// characters, no space at either end.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
}

// prose is s as OSCAL markup: lines kept, other control characters
// dropped (they have no place in a document's text, and no XML form).
func prose(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return -1
		}
		return r
	}, s)
}

// ids hands out the catalog's identifiers, each once.
type ids map[string]bool

func (u ids) take(want, fallback string) string {
	id := want
	if id == "" {
		id = fallback
	}
	for n := 2; u[id]; n++ {
		id = fmt.Sprintf("%s_%d", want, n)
		if want == "" {
			id = fmt.Sprintf("%s_%d", fallback, n)
		}
	}
	u[id] = true
	return id
}

// OSCAL writes the requirements as an OSCAL catalog in JSON: a group per
// section of the documents, a control per requirement (its id the
// document's own, made a token), its text as the statement and each
// quote as an item of it, the requirement's fields as properties, and a
// back-matter resource per source document.
func OSCAL(src Source) ([]byte, error) {
	recs, err := output.JSON(src.Records)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(recs)
	c := oscalCatalog{
		UUID: uuid5("catalog\x00" + src.JobID + "\x00" + strings.Join(inputHashes(src), "\x00")),
		Metadata: oscalMetadata{
			Title:        oneLine("Requirements of " + strings.Join(src.Documents, ", ")),
			LastModified: lastModified(src).UTC().Format(time.RFC3339),
			Version:      "sha256-" + hex.EncodeToString(sum[:8]),
			OSCALVersion: OSCALVersion,
			Props:        props(prop("job", src.JobID), prop("creator-version", src.Version)),
		},
	}
	taken := ids{}
	resources := backMatter(src, &c)
	root := &oscalGroup{}
	for _, r := range src.Records {
		ctl := control(r, taken, resources)
		g := root
		for _, heading := range src.SectionsOf(r) {
			g = childGroup(g, heading, taken)
		}
		g.Controls = append(g.Controls, ctl)
	}
	c.Groups, c.Controls = root.Groups, root.Controls
	return json.MarshalIndent(oscalDocument{Catalog: c}, "", "  ")
}

func inputHashes(src Source) []string {
	var out []string
	for _, in := range src.Inputs {
		out = append(out, in.Name+"="+in.SHA256)
	}
	return out
}

// lastModified is when the job last changed: its own record, or a later
// review decision; the export's time when neither is known.
func lastModified(src Source) time.Time {
	t := src.Modified
	for _, r := range src.Records {
		if r.Review == nil {
			continue
		}
		if at, err := time.Parse(time.RFC3339, r.Review.At); err == nil && at.After(t) {
			t = at
		}
	}
	if t.IsZero() {
		t = src.Time
	}
	return t
}

// childGroup is g's group for a section heading, made on first use: its
// id the heading's number when it has one ("3.1 Invoices" → s3.1), else
// its place (g2.1: the first group in the second).
func childGroup(g *oscalGroup, heading string, taken ids) *oscalGroup {
	title := oneLine(heading)
	for i := range g.Groups {
		if g.Groups[i].Title == title {
			return &g.Groups[i]
		}
	}
	want := ""
	if num, _, _ := strings.Cut(title, " "); num != "" && unicode.IsDigit([]rune(num)[0]) {
		want = oscalToken("s" + strings.TrimSuffix(num, "."))
	}
	fallback := fmt.Sprintf("g%d", len(g.Groups)+1)
	if g.ID != "" {
		fallback = fmt.Sprintf("%s.%d", g.ID, len(g.Groups)+1)
	}
	g.Groups = append(g.Groups, oscalGroup{ID: taken.take(want, fallback), Class: "section", Title: title})
	return &g.Groups[len(g.Groups)-1]
}

// backMatter adds a resource per source document (its name, media type
// and SHA-256) and returns their UUIDs by document name.
func backMatter(src Source, c *oscalCatalog) map[string]string {
	byName := map[string]string{}
	docs := slices.Clone(src.Documents)
	for _, in := range src.Inputs {
		if !slices.Contains(docs, in.Name) {
			docs = append(docs, in.Name)
		}
	}
	var res []oscalResource
	for _, d := range docs {
		r := oscalResource{UUID: uuid5("resource\x00" + src.JobID + "\x00" + d), Title: oneLine(d)}
		link := oscalRLink{Href: "input/" + url.PathEscape(d), MediaType: mediaType(d)}
		for _, in := range src.Inputs {
			if in.Name == d && in.SHA256 != "" {
				link.Hashes = []oscalHash{{Algorithm: "SHA-256", Value: in.SHA256}}
			}
		}
		r.RLinks = []oscalRLink{link}
		res = append(res, r)
		byName[d] = r.UUID
	}
	if len(res) > 0 {
		c.BackMatter = &oscalBackMatter{Resources: res}
	}
	return byName
}

func mediaType(name string) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		t, _, _ = strings.Cut(t, ";")
		return t
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".md":
		return "text/markdown"
	case ".docx":
		return "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	}
	return "application/octet-stream"
}

func prop(name, value string) oscalProp {
	return oscalProp{Name: name, NS: OSCALNamespace, Value: oneLine(value)}
}

// props keeps the properties that have a value.
func props(all ...oscalProp) []oscalProp {
	var out []oscalProp
	for _, p := range all {
		if p.Value != "" {
			out = append(out, p)
		}
	}
	return out
}

// control is a requirement as a control.
func control(r requirement.Record, taken ids, resources map[string]string) oscalControl {
	id := taken.take(oscalToken(r.SourceID), oscalToken(r.ID))
	if id == "" {
		id = taken.take("", "req")
	}
	c := oscalControl{ID: id, Class: "requirement", Title: oneLine(r.Title)}
	if c.Title == "" {
		c.Title = oneLine(r.ID)
	}
	all := []oscalProp{{Name: "label", Value: oneLine(r.SourceID)}, prop("requirement-id", r.ID), prop("type", r.Type),
		prop("category", r.Category), prop("priority", r.Priority), prop("confidence", strconv.FormatFloat(r.Confidence, 'f', -1, 64))}
	for _, f := range r.Frameworks {
		all = append(all, prop("framework", f))
	}
	for _, name := range slices.Sorted(maps.Keys(r.Attributes)) {
		p := prop("attribute", r.Attributes[name])
		p.Class, p.Remarks = oscalToken(name), name
		all = append(all, p)
	}
	if rv := r.Review; rv != nil {
		all = append(all, prop("review-status", rv.Status), prop("reviewed-by", rv.By), prop("reviewed-at", rv.At), prop("review-note", rv.Note))
	}
	c.Props = props(all...)
	stmt := oscalPart{ID: id + "_smt", Name: "statement", Prose: prose(r.Text)}
	linked := map[string]bool{}
	for i, cit := range r.Citations {
		item := oscalPart{ID: fmt.Sprintf("%s_smt.q%d", id, i+1), Name: "item", Class: "citation", Prose: prose(cit.Quote),
			Props: props(prop("document", cit.Document), prop("chunk", cit.Chunk))}
		if cit.Page > 0 {
			item.Props = append(item.Props, prop("page", strconv.Itoa(cit.Page)))
		}
		stmt.Parts = append(stmt.Parts, item)
		if u, ok := resources[cit.Document]; ok && !linked[u] {
			linked[u] = true
			c.Links = append(c.Links, oscalLink{Href: "#" + u, Rel: "reference"})
		}
	}
	c.Parts = []oscalPart{stmt}
	if r.Rationale != "" {
		c.Parts = append(c.Parts, oscalPart{ID: id + "_rationale", Name: "rationale", NS: OSCALNamespace, Prose: prose(r.Rationale)})
	}
	return c
}

// ReadOSCAL reads the requirements of an OSCAL catalog, as an export
// wrote it or as a tool edited it: a control is a requirement, its
// statement its text, the statement's items its quotes, its properties
// its fields; the source documents are the back-matter's resources.
func ReadOSCAL(data []byte) (Source, error) {
	var doc oscalDocument
	if err := json.Unmarshal(data, &doc); err != nil {
		return Source{}, fmt.Errorf("not an OSCAL catalog in JSON: %w", err)
	}
	c := doc.Catalog
	if c.UUID == "" {
		return Source{}, fmt.Errorf("not an OSCAL catalog in JSON: no catalog with a uuid")
	}
	src := Source{Time: time.Now()}
	for _, r := range c.BackMatter.resources() {
		if r.Title != "" {
			src.Documents = append(src.Documents, r.Title)
		}
	}
	for _, p := range c.Metadata.Props {
		if p.Name == "job" {
			src.JobID = p.Value
		}
	}
	var walk func(gs []oscalGroup, cs []oscalControl)
	walk = func(gs []oscalGroup, cs []oscalControl) {
		for _, ctl := range cs {
			src.Records = append(src.Records, recordOf(ctl, len(src.Records)+1))
		}
		for _, g := range gs {
			walk(g.Groups, g.Controls)
		}
	}
	walk(c.Groups, c.Controls)
	return src, nil
}

func (b *oscalBackMatter) resources() []oscalResource {
	if b == nil {
		return nil
	}
	return b.Resources
}

// recordOf is a control as a requirement; n numbers one without a
// requirement-id.
func recordOf(c oscalControl, n int) requirement.Record {
	r := requirement.Record{ID: fmt.Sprintf("REQ-%03d", n), Title: c.Title}
	for _, p := range c.Props {
		switch p.Name {
		case "label":
			r.SourceID = p.Value
		case "requirement-id":
			r.ID = p.Value
		case "type":
			r.Type = p.Value
		case "category":
			r.Category = p.Value
		case "priority":
			r.Priority = p.Value
		case "confidence":
			r.Confidence, _ = strconv.ParseFloat(p.Value, 64)
		case "framework":
			r.Frameworks = append(r.Frameworks, p.Value)
		case "attribute":
			if r.Attributes == nil {
				r.Attributes = map[string]string{}
			}
			r.Attributes[cmp.Or(p.Remarks, p.Class)] = p.Value
		case "review-status", "reviewed-by", "reviewed-at", "review-note":
			if r.Review == nil {
				r.Review = &requirement.Review{}
			}
			switch p.Name {
			case "review-status":
				r.Review.Status = p.Value
			case "reviewed-by":
				r.Review.By = p.Value
			case "reviewed-at":
				r.Review.At = p.Value
			default:
				r.Review.Note = p.Value
			}
		}
	}
	for _, part := range c.Parts {
		switch part.Name {
		case "statement":
			r.Text = part.Prose
			for _, item := range part.Parts {
				cit := requirement.Citation{Quote: item.Prose}
				for _, p := range item.Props {
					switch p.Name {
					case "document":
						cit.Document = p.Value
					case "chunk":
						cit.Chunk = p.Value
					case "page":
						cit.Page, _ = strconv.Atoi(p.Value)
					}
				}
				r.Citations = append(r.Citations, cit)
			}
		case "rationale":
			r.Rationale = part.Prose
		}
	}
	return r
}
