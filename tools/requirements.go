package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"creator/internal/document"
	"creator/internal/humanize"
	"creator/internal/llm"
	"creator/internal/output"
	"creator/internal/requirement"
	"creator/workspace"
)

// Enumerated fields of save_requirement; their schemas list the values.
type (
	reqType     string
	reqCategory string
	reqPriority string
)

func enum(values []string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string"}
	for _, v := range values {
		s.Enum = append(s.Enum, v)
	}
	return s
}

// RequirementTools returns save_requirement and finalize_output.
func RequirementTools(job *workspace.Job) []Tool {
	r := &reqTools{job: job}
	opts := &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[reqType]():     enum(requirement.Types),
		reflect.TypeFor[reqCategory](): enum(requirement.Categories),
		reflect.TypeFor[reqPriority](): enum(requirement.Priorities),
	}}
	return []Tool{
		FuncWith("save_requirement", "Save one requirement. Each citation's quote must be copied exactly from the cited chunk (whitespace and words divided at line ends may differ); it is checked, and the page is taken from the chunk. Writes requirements/req_NNN/final.json and returns the id; saving the same requirement again returns its existing id.", opts, r.save),
		FuncResult("finalize_output", "Check every saved requirement again and build output/requirements.json (ordered by source position), output/summary.md and output/requirements.csv. Reports the problems instead if any requirement is invalid.", r.finalize),
	}
}

type reqTools struct {
	job *workspace.Job
	mu  sync.Mutex
	// index of the saved requirements, for finding duplicates and the next
	// id without reading every final.json on every save; rebuilt when the
	// folders in requirements/ are not the ones it knows.
	index   map[string]string // dedup key → id and folder
	folders []string
	maxN    int
}

type citationArgs struct {
	Document string `json:"document,omitempty" jsonschema:"the source document's name as in the chunk's header line, e.g. GoBD.pdf; taken from the chunk when left out"`
	Chunk    string `json:"chunk" jsonschema:"the chunk id, e.g. chunk_007"`
	Page     int    `json:"page,omitempty" jsonschema:"page of the quote; taken from the chunk when left out"`
	Quote    string `json:"quote" jsonschema:"the source text, copied exactly from the chunk"`
}

type saveArgs struct {
	Title      string         `json:"title" jsonschema:"short name, at most 80 characters"`
	Text       string         `json:"text" jsonschema:"the requirement: atomic, testable, in the source's strength (must, must not, may, should)"`
	Type       reqType        `json:"type"`
	Category   reqCategory    `json:"category"`
	Priority   reqPriority    `json:"priority"`
	Frameworks []string       `json:"frameworks,omitempty" list:"names" jsonschema:"e.g. GoBD, GDPR; leave out when none applies"`
	Citations  []citationArgs `json:"citations" jsonschema:"one or more places in the source that state the requirement"`
	Confidence float64        `json:"confidence" jsonschema:"0 to 1: how sure you are that this is a requirement as written"`
	Rationale  string         `json:"rationale" jsonschema:"why this is a requirement: the cue and its context"`
}

// chunks gives access to the chunk files of the job, read once per call.
type chunks struct {
	job    *workspace.Job
	man    document.Manifest
	bodies map[string]string
}

func loadChunks(job *workspace.Job) (*chunks, error) {
	data, err := job.ReadInternal(document.ManifestFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New("there are no chunks yet: split the document with chunk_document first")
	}
	if err != nil {
		return nil, err
	}
	man, err := document.ParseManifest(data)
	if err != nil {
		return nil, err
	}
	return &chunks{job: job, man: man, bodies: map[string]string{}}, nil
}

func (c *chunks) body(id string) (document.ManifestChunk, string, error) {
	mc, ok := c.man.Find(id)
	if !ok {
		return mc, "", c.unknown(id)
	}
	if b, ok := c.bodies[id]; ok {
		return mc, b, nil
	}
	data, err := c.job.ReadInternal(mc.File)
	if err != nil {
		return mc, "", fmt.Errorf("cannot read %s: %v", mc.File, err)
	}
	b := document.ChunkBody(string(data))
	c.bodies[id] = b
	return mc, b, nil
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
// the chunk, and notes on what was read how or corrected.
func (c *chunks) check(cit requirement.Citation) (requirement.Citation, int, []string, error) {
	var notes []string
	id, note, err := c.resolve(cit.Chunk)
	if err != nil {
		return cit, 0, nil, err
	}
	if note != "" {
		notes = append(notes, note)
	}
	cit.Chunk = id
	mc, body, err := c.body(cit.Chunk)
	if err != nil {
		return cit, 0, nil, err
	}
	doc, note, err := documentOf(cit.Document, mc)
	if err != nil {
		return cit, 0, nil, err
	}
	if note != "" {
		notes = append(notes, note)
	}
	cit.Document = doc
	start, end, ok := requirement.Find(body, cit.Quote)
	if !ok {
		for _, other := range c.man.Chunks {
			if other.ID == cit.Chunk || other.Document != cit.Document {
				continue
			}
			if _, ob, err := c.body(other.ID); err == nil {
				if _, _, found := requirement.Find(ob, cit.Quote); found {
					return cit, 0, nil, fmt.Errorf("the quote is in %s, not in %s; cite that chunk", other.ID, cit.Chunk)
				}
			}
		}
		return cit, 0, nil, quoteNotFound(cit, body)
	}
	page := requirement.PageAt(body, start, mc.FirstPage)
	if cit.Page != 0 && cit.Page != page && page != 0 {
		notes = append(notes, fmt.Sprintf("page %d of the quote in %s corrected to %d", cit.Page, cit.Chunk, page))
	}
	cit.Page = page
	cit.Quote = requirement.Clean(body[start:end])
	return cit, start, notes, nil
}

var chunkNumberRE = regexp.MustCompile(`^(?:chunk[ _-]?)?0*(\d+)$`)

// resolve finds the chunk an id names: the id itself, or the same chunk
// written as a file name or path ("chunk_003.md", "chunks/chunk_003.md"),
// in another case, or by its number ("3", "chunk 3"). The note says what
// was read how.
func (c *chunks) resolve(id string) (string, string, error) {
	if _, ok := c.man.Find(id); ok {
		return id, "", nil
	}
	s := strings.ToLower(strings.TrimSpace(id))
	s = strings.TrimPrefix(s, "./")
	s = strings.TrimPrefix(s, "chunks/")
	s = strings.TrimSuffix(s, ".md")
	if m := chunkNumberRE.FindStringSubmatch(s); m != nil {
		for _, mc := range c.man.Chunks {
			if n := chunkNumberRE.FindStringSubmatch(mc.ID); n != nil && strings.TrimLeft(n[1], "0") == strings.TrimLeft(m[1], "0") {
				return mc.ID, fmt.Sprintf("read chunk %q as %q", id, mc.ID), nil
			}
		}
	}
	return "", "", c.unknown(id)
}

// documentOf checks the document a citation names against the chunk's:
// the same name, given as a path in input/, in another case, as the text
// extracted from it, or left out, all name it.
func documentOf(given string, mc document.ManifestChunk) (string, string, error) {
	if given == mc.Document {
		return given, "", nil
	}
	if given == "" {
		return mc.Document, "", nil
	}
	name := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(given), "./"), "input/")
	switch {
	case name == mc.Document, strings.EqualFold(name, mc.Document):
		return mc.Document, fmt.Sprintf("read document %q as %q", given, mc.Document), nil
	case mc.Source != "" && (name == path.Base(mc.Source) || strings.TrimPrefix(given, "./") == mc.Source):
		return mc.Document, fmt.Sprintf("read document %q, the text extracted from %s, as %q", given, mc.Document, mc.Document), nil
	}
	return "", "", fmt.Errorf("%s is part of %s, not %s", mc.ID, mc.Document, given)
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

func (r *reqTools) save(ctx context.Context, a saveArgs) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := requirement.Record{
		Title: humanize.OneLine(a.Title), Text: humanize.OneLine(a.Text), Type: string(a.Type), Category: string(a.Category),
		Priority: string(a.Priority), Confidence: a.Confidence, Rationale: humanize.OneLine(a.Rationale), Frameworks: []string{},
	}
	var problems []string
	switch {
	case rec.Title == "":
		problems = append(problems, "title is empty")
	case utf8.RuneCountInString(rec.Title) > 80:
		problems = append(problems, fmt.Sprintf("title is %d characters long; keep it to 80", utf8.RuneCountInString(rec.Title)))
	}
	if rec.Text == "" {
		problems = append(problems, "text is empty")
	}
	if rec.Rationale == "" {
		problems = append(problems, "rationale is empty")
	}
	if a.Confidence < 0 || a.Confidence > 1 {
		problems = append(problems, "confidence must be between 0 and 1")
	}
	if len(a.Citations) == 0 {
		problems = append(problems, "citations are empty; cite at least one quote")
	}
	seen := map[string]bool{}
	for _, f := range a.Frameworks {
		if f = humanize.OneLine(f); f != "" && !seen[f] {
			seen[f] = true
			rec.Frameworks = append(rec.Frameworks, f)
		}
	}
	if len(problems) > 0 {
		return "", errors.New(strings.Join(problems, "; "))
	}
	ch, err := loadChunks(r.job)
	if err != nil {
		return "", err
	}
	var notes []string
	for i, c := range a.Citations {
		cit, _, cnotes, err := ch.check(requirement.Citation{Document: humanize.OneLine(c.Document), Chunk: humanize.OneLine(c.Chunk), Page: c.Page, Quote: c.Quote})
		if err != nil {
			if len(a.Citations) > 1 {
				return "", fmt.Errorf("citation %d: %v", i+1, err)
			}
			return "", err
		}
		notes = append(notes, cnotes...)
		rec.Citations = append(rec.Citations, cit)
	}
	if err := r.refreshIndex(); err != nil {
		return "", err
	}
	key := dedupKey(rec)
	if where, ok := r.index[key]; ok {
		return fmt.Sprintf("already saved as %s; nothing changed", where), nil
	}
	n := r.maxN + 1
	rec.ID = fmt.Sprintf("REQ-%03d", n)
	dir := fmt.Sprintf("req_%03d", n)
	data, err := requirement.Marshal(rec)
	if err != nil {
		return "", err
	}
	if err := requirement.Validate(data); err != nil {
		return "", err
	}
	if _, err := r.job.WriteFile("requirements/"+dir+"/final.json", data); err != nil {
		return "", err
	}
	r.index[key] = fmt.Sprintf("%s (requirements/%s/final.json)", rec.ID, dir)
	if !slices.Contains(r.folders, dir) {
		r.folders = append(r.folders, dir)
	}
	r.maxN = n
	msg := fmt.Sprintf("saved %s (requirements/%s/final.json): %s, %s, %s", rec.ID, dir, rec.Type, rec.Category, rec.Priority)
	for _, c := range rec.Citations {
		if c.Page > 0 {
			msg += fmt.Sprintf("; quote found in %s on page %d", c.Chunk, c.Page)
		} else {
			msg += "; quote found in " + c.Chunk
		}
	}
	for _, n := range notes {
		msg += "; " + n
	}
	return msg, nil
}

// dedupKey identifies a requirement by its text and its quotes.
func dedupKey(r requirement.Record) string {
	parts := []string{requirement.Normalize(r.Text).Text}
	for _, c := range r.Citations {
		parts = append(parts, c.Chunk, requirement.Normalize(c.Quote).Text)
	}
	return strings.Join(parts, "\x00")
}

type savedReq struct {
	dir string
	rec requirement.Record
	raw []byte
	err error
}

// saved reads every requirements/req_*/final.json, in folder order.
func (r *reqTools) saved() ([]savedReq, error) {
	names, err := r.job.Names("requirements")
	if err != nil {
		return nil, err
	}
	var out []savedReq
	for _, name := range names {
		if !strings.HasPrefix(name, "req_") {
			continue
		}
		s := savedReq{dir: name}
		s.raw, s.err = r.job.ReadInternal("requirements/" + name + "/final.json")
		if errors.Is(s.err, fs.ErrNotExist) {
			continue // a folder the agent is still drafting in
		}
		if s.err == nil {
			s.err = json.Unmarshal(s.raw, &s.rec)
		}
		out = append(out, s)
	}
	return out, nil
}

// refreshIndex rebuilds the index of saved requirements when the folders
// of requirements/ changed behind it.
func (r *reqTools) refreshIndex() error {
	names, err := r.job.Names("requirements")
	if err != nil {
		return err
	}
	if r.index != nil && len(names) == len(r.folders) {
		return nil
	}
	saved, err := r.saved()
	if err != nil {
		return err
	}
	r.index, r.folders, r.maxN = map[string]string{}, names, 0
	// The next id is one more than the highest req_NNN folder, even one
	// without final.json (the agent may be drafting in it), so an id is
	// never given twice. An empty folder is left by a save cut off between
	// making the folder and writing final.json: its id is still free, and
	// taking it keeps the ids of a resumed job those of an uninterrupted one.
	for _, name := range names {
		v, err := strconv.Atoi(strings.TrimPrefix(name, "req_"))
		if err != nil || !strings.HasPrefix(name, "req_") {
			continue
		}
		if inside, err := r.job.Names("requirements/" + name); err == nil && len(inside) == 0 {
			continue
		}
		r.maxN = max(r.maxN, v)
	}
	for _, s := range saved {
		if s.err != nil {
			continue
		}
		if v, err := strconv.Atoi(strings.TrimPrefix(s.rec.ID, "REQ-")); err == nil {
			r.maxN = max(r.maxN, v)
		}
		r.index[dedupKey(s.rec)] = fmt.Sprintf("%s (requirements/%s/final.json)", s.rec.ID, s.dir)
	}
	return nil
}

type position struct {
	chunk, offset int
}

func (r *reqTools) finalize(ctx context.Context, _ noArgs) (llm.ToolResult, error) {
	text, err := r.build("")
	var refused *refusal
	if errors.As(err, &refused) {
		return llm.ToolResult{Data: FinalizeRefused{Broken: refused.broken}}, err
	}
	return llm.ToolResult{Text: text}, err
}

// refusal is build's error when requirements are invalid; broken are the
// final.json files its message names.
type refusal struct {
	broken []string
	err    error
}

func (e *refusal) Error() string { return e.err.Error() }
func (e *refusal) Unwrap() error { return e.err }

// withNote puts a note above a Markdown document.
func withNote(note string, doc []byte) []byte {
	if note == "" {
		return doc
	}
	return append([]byte("> "+note+"\n\n"), doc...)
}

// FinalizePartial writes the output of a job that stopped before completion
// (at a budget) from the requirements saved so far: invalid ones are left
// out instead of blocking the output, and summary.md opens with note.
func FinalizePartial(job *workspace.Job, note string) (string, error) {
	return (&reqTools{job: job}).build(note)
}

// build checks the saved requirements and writes the output files. With a
// partial note, problems leave requirements out rather than stop it.
func (r *reqTools) build(partial string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ch, err := loadChunks(r.job)
	if err != nil {
		return "", err
	}
	order := map[string]int{}
	for i, c := range ch.man.Chunks {
		order[c.ID] = i
	}
	saved, err := r.saved()
	if err != nil {
		return "", err
	}
	var problems, notes []string
	var files []string // by problem: the final.json it names, or ""
	var recs []requirement.Record
	pos := map[string]position{}
	keys := map[string]string{}
	for _, s := range saved {
		where := "requirements/" + s.dir + "/final.json"
		if s.err != nil {
			problems, files = append(problems, fmt.Sprintf("%s cannot be read: %v", where, s.err)), append(files, where)
			continue
		}
		if err := requirement.Validate(s.raw); err != nil {
			problems, files = append(problems, fmt.Sprintf("%s: %v", where, err)), append(files, where)
			continue
		}
		if want := "REQ-" + strings.TrimPrefix(s.dir, "req_"); s.rec.ID != want {
			problems, files = append(problems, fmt.Sprintf("%s has id %s; in this folder it must be %s", where, s.rec.ID, want)), append(files, where)
			continue
		}
		bad := false
		for i, c := range s.rec.Citations {
			checked, off, _, err := ch.check(c)
			if err != nil {
				problems, files = append(problems, fmt.Sprintf("%s citation %d: %v", s.rec.ID, i+1, err)), append(files, "")
				bad = true
				continue
			}
			if i == 0 {
				pos[s.rec.ID] = position{order[c.Chunk], off}
			}
			s.rec.Citations[i].Page = checked.Page
		}
		if bad {
			continue
		}
		if first, dup := keys[dedupKey(s.rec)]; dup {
			notes = append(notes, fmt.Sprintf("%s repeats %s and was left out", s.rec.ID, first))
			continue
		}
		keys[dedupKey(s.rec)] = s.rec.ID
		recs = append(recs, s.rec)
	}
	if len(problems) > 0 && partial != "" {
		notes = append(notes, fmt.Sprintf("%s left out: %s", humanize.Plural(len(problems), "invalid requirement"), strings.Join(problems[:min(3, len(problems))], "; ")))
		problems = nil
	}
	if len(problems) > 0 {
		more := ""
		if len(problems) > 20 {
			more = fmt.Sprintf("\n… and %d more", len(problems)-20)
			problems, files = problems[:20], files[:20]
		}
		return "", &refusal{broken: slices.DeleteFunc(files, func(f string) bool { return f == "" }),
			err: fmt.Errorf("the output was not written; fix these requirements (edit their final.json, or delete the folder and save the requirement again), then call finalize_output again:\n- %s%s",
				strings.Join(problems, "\n- "), more)}
	}
	sort.SliceStable(recs, func(i, j int) bool {
		a, b := pos[recs[i].ID], pos[recs[j].ID]
		if a.chunk != b.chunk {
			return a.chunk < b.chunk
		}
		return a.offset < b.offset
	})
	jsonData, err := output.JSON(recs)
	if err != nil {
		return "", err
	}
	if err := output.Validate(jsonData); err != nil {
		return "", err
	}
	csvData, err := output.CSV(recs)
	if err != nil {
		return "", err
	}
	var docs []string
	for _, c := range ch.man.Chunks {
		if !slices.Contains(docs, c.Document) {
			docs = append(docs, c.Document)
		}
	}
	for _, f := range []struct {
		path string
		data []byte
	}{{output.CSVFile, csvData}, {output.SummaryFile, withNote(partial, output.Summary(recs, docs))}, {output.RequirementsFile, jsonData}} {
		if _, err := r.job.WriteFile(f.path, f.data); err != nil {
			return "", err
		}
	}
	counts := map[string]int{}
	for _, rec := range recs {
		counts[rec.Type]++
	}
	var parts []string
	for _, t := range requirement.Types {
		if counts[t] > 0 {
			parts = append(parts, humanize.Plural(counts[t], t))
		}
	}
	msg := fmt.Sprintf("wrote %s with %s", output.RequirementsFile, humanize.Plural(len(recs), "requirement"))
	if len(parts) > 0 {
		msg += " (" + strings.Join(parts, ", ") + ")"
	}
	msg += fmt.Sprintf(", %s and %s", output.SummaryFile, output.CSVFile)
	for _, n := range notes {
		msg += "; " + n
	}
	return msg, nil
}
