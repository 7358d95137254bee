package reqstore

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"creator/internal/atomicfile"
	"creator/internal/document"
	"creator/internal/requirement"
	"creator/workspace"
)

// The chunks of policy.pdf, whose text was extracted to input/policy.txt.
var testChunks = []struct {
	first, last int
	text        string
}{
	{1, 1, "1. Retention\n\nInvoices must be kept for ten years.\nBusiness letters shall be kept for six years.\n"},
	{2, 3, "2. Deletion\n\nRecords must not be deleted before the end of their retention period, even if the business rela-\ntionship has ended.\n--- page 3 ---\n3. Review\n\nThe archive should be checked every quarter.\n"},
}

// newJob is a job whose document is chunked; withChunks false leaves it
// without chunks.
func newJob(t *testing.T, withChunks bool) *workspace.Job {
	t.Helper()
	base := t.TempDir()
	doc := filepath.Join(base, "policy.pdf")
	os.WriteFile(doc, []byte("%PDF-1.4\n"), 0o644)
	job, err := workspace.Create(filepath.Join(base, "ws"), workspace.CreateOptions{ID: "r", Inputs: []string{doc}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { job.Close() })
	if !withChunks {
		return job
	}
	var man document.Manifest
	for i, c := range testChunks {
		id := "chunk_00" + string(rune('1'+i))
		mc := document.ManifestChunk{ID: id, File: "chunks/" + id + ".md", Document: "policy.pdf", Source: "input/policy.txt", FirstPage: c.first, LastPage: c.last}
		if _, err := job.WriteFile(mc.File, []byte(document.ChunkFile(mc, c.text))); err != nil {
			t.Fatal(err)
		}
		man.Chunks = append(man.Chunks, mc)
	}
	data, _ := requirement.Marshal(man)
	if err := job.WriteInternal(document.ManifestFile, data); err != nil {
		t.Fatal(err)
	}
	return job
}

func draft(text string, cits ...requirement.Citation) requirement.Record {
	return requirement.Record{Title: "Keep invoices", Text: text, Type: "obligation", Category: "compliance", Priority: "high",
		Frameworks: []string{"GoBD"}, Citations: cits, Confidence: 0.9, Rationale: "'must' sets a duty"}
}

func cite(chunk, quote string) requirement.Citation {
	return requirement.Citation{Document: "policy.pdf", Chunk: chunk, Quote: quote}
}

// savedInvoices opens a store on a job with chunks and saves one
// requirement in it, REQ-001 on the invoices.
func savedInvoices(t *testing.T) (*workspace.Job, *Store, Saved) {
	t.Helper()
	job := newJob(t, true)
	s := Open(job)
	saved, err := s.Save(draft("The company must keep invoices.", cite("chunk_001", "Invoices must be kept for ten years.")))
	if err != nil {
		t.Fatal(err)
	}
	return job, s, saved
}

func folders(t *testing.T, job *workspace.Job) []string {
	t.Helper()
	names, err := job.Names("requirements")
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestSave(t *testing.T) {
	t.Parallel()
	job := newJob(t, true)
	s := Open(job)
	d := draft("The company must keep\ninvoices for ten years.", requirement.Citation{Chunk: "chunk_001", Quote: "Invoices must be kept for ten  years."})
	d.Title, d.Rationale, d.Frameworks, d.ID = " Keep\ninvoices ", "'must'\nsets a duty", []string{"GoBD", " GoBD ", "", "GDPR"}, "REQ-042"
	saved, err := s.Save(d)
	if err != nil {
		t.Fatal(err)
	}
	want := requirement.Record{ID: "REQ-001", Title: "Keep invoices", Text: "The company must keep invoices for ten years.", Type: "obligation",
		Category: "compliance", Priority: "high", Frameworks: []string{"GoBD", "GDPR"}, Confidence: 0.9, Rationale: "'must' sets a duty",
		Citations: []requirement.Citation{{Document: "policy.pdf", Chunk: "chunk_001", Page: 1, Quote: "Invoices must be kept for ten years."}}}
	if saved.Duplicate || saved.Ref != (Ref{ID: "REQ-001", File: "requirements/req_001/final.json"}) || !reflect.DeepEqual(saved.Record, want) || len(saved.Corrections) != 0 {
		t.Fatalf("Save = %+v", saved)
	}
	data, _ := job.ReadInternal(saved.File)
	if stored, _ := requirement.Marshal(want); string(data) != string(stored) || requirement.Validate(data) != nil {
		t.Fatalf("final.json = %s", data)
	}

	// The same requirement again, with a page: its id, nothing written.
	again, err := s.Save(draft("The company must keep invoices for ten years.", requirement.Citation{Chunk: "chunk_001", Page: 1, Quote: "Invoices must be kept for ten years."}))
	if err != nil || !again.Duplicate || again.Ref != saved.Ref {
		t.Fatalf("duplicate Save = %+v, %v", again, err)
	}
	if ref, ok, err := s.findDuplicate(saved.Record); err != nil || !ok || ref != saved.Ref {
		t.Fatalf("findDuplicate = %v %v %v", ref, ok, err)
	}
	if _, ok, _ := s.findDuplicate(draft("Another text.", saved.Record.Citations...)); ok {
		t.Fatal("findDuplicate found a requirement with another text")
	}
	if got := folders(t, job); !reflect.DeepEqual(got, []string{"req_001"}) {
		t.Fatalf("folders = %v", got)
	}
}

// TestSaveCorrections saves citations in the forms models write them:
// each is stored in its canonical form and the correction reported.
func TestSaveCorrections(t *testing.T) {
	t.Parallel()
	s := Open(newJob(t, true))
	divided := "Records must not be deleted before the end of their retention period, even if the business relationship has ended."
	saved, err := s.Save(draft("Records must not be deleted early.",
		requirement.Citation{Document: "input/policy.pdf", Chunk: " 2 ", Page: 1, Quote: divided},
		requirement.Citation{Document: "input/policy.txt", Chunk: "chunks/Chunk_002.md", Quote: "The archive should be checked every quarter."}))
	if err != nil {
		t.Fatal(err)
	}
	wantCits := []requirement.Citation{
		{Document: "policy.pdf", Chunk: "chunk_002", Page: 2, Quote: "Records must not be deleted before the end of their retention period, even if the business rela- tionship has ended."},
		{Document: "policy.pdf", Chunk: "chunk_002", Page: 3, Quote: "The archive should be checked every quarter."},
	}
	wantCorr := []Correction{
		{Kind: ChunkName, Chunk: "chunk_002", Given: "2", Stored: "chunk_002"},
		{Kind: DocumentName, Chunk: "chunk_002", Given: "input/policy.pdf", Stored: "policy.pdf"},
		{Kind: Page, Chunk: "chunk_002", Given: "1", Stored: "2"},
		{Kind: ChunkName, Chunk: "chunk_002", Given: "chunks/Chunk_002.md", Stored: "chunk_002"},
		{Kind: DocumentSource, Chunk: "chunk_002", Given: "input/policy.txt", Stored: "policy.pdf"},
	}
	if !reflect.DeepEqual(saved.Record.Citations, wantCits) {
		t.Errorf("citations = %+v", saved.Record.Citations)
	}
	if !reflect.DeepEqual(saved.Corrections, wantCorr) {
		t.Errorf("corrections = %+v", saved.Corrections)
	}
}

func TestSaveRefuses(t *testing.T) {
	t.Parallel()
	job := newJob(t, true)
	s := Open(job)
	invoices := cite("chunk_001", "Invoices must be kept for ten years.")
	long := draft("x", invoices)
	long.Title = strings.Repeat("t", 81)
	empty := draft("", invoices)
	empty.Title, empty.Rationale, empty.Confidence = "\n", " ", -0.1
	cases := []struct {
		name  string
		draft requirement.Record
		want  string
	}{
		{"quote not in chunk", draft("x", cite("chunk_001", "Invoices must be kept for twelve years.")), "the quote was not found in chunk_001. The closest passage there is: «Invoices must be kept for ten years.». Copy the text exactly from the chunk"},
		{"quote in another chunk", draft("x", cite("chunk_001", "The archive should be checked every quarter.")), "the quote is in chunk_002, not in chunk_001; cite that chunk"},
		{"chunk does not exist", draft("x", cite("chunk_999", "x")), `chunk "chunk_999" does not exist; the chunks are chunk_001 to chunk_002`},
		{"wrong document", draft("x", requirement.Citation{Document: "other.pdf", Chunk: "chunk_001", Quote: "x"}), "chunk_001 is part of policy.pdf, not other.pdf"},
		{"quote with an ellipsis", draft("x", cite("chunk_001", "Invoices must be kept … years.")), "the quote leaves words out with an ellipsis, and a quote must be verbatim: cite each part as a separate citation (several citations of chunk_001 are fine)"},
		{"translated quote", draft("x", cite("chunk_001", "Rechnungen sind zehn Jahre lang aufzubewahren.")), "the quote was not found in chunk_001, and no passage of chunk_001 resembles it. Copy a sentence from the chunk word for word, in the document's own language"},
		{"second citation", draft("x", invoices, cite("chunk_002", "Nothing like it.")), "citation 2: the quote was not found in chunk_002"},
		{"no citations", draft("x"), "citations are empty; cite at least one quote"},
		{"long title", long, "title is 81 characters long; keep it to 80"},
		{"empty fields", empty, "title is empty; text is empty; rationale is empty; confidence must be between 0 and 1"},
	}
	for _, c := range cases {
		if _, err := s.Save(c.draft); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	if got := folders(t, job); len(got) != 0 {
		t.Errorf("folders after refused saves: %v", got)
	}
	if _, err := Open(newJob(t, false)).Save(draft("x", invoices)); err == nil || err.Error() != "there are no chunks yet: split the document with chunk_document first" {
		t.Errorf("without chunks: %v", err)
	}
}

// A save cut off between making its folder and writing final.json leaves an
// empty folder: its id is given to the next requirement, so a resumed job
// numbers its requirements as an uninterrupted one would. A folder the
// agent drafts in keeps its id.
func TestIDsAfterACutOffSave(t *testing.T) {
	t.Parallel()
	job := newJob(t, true)
	s := Open(job)
	os.MkdirAll(filepath.Join(job.Dir, "requirements", "req_001"), 0o755) // left by a kill
	os.MkdirAll(filepath.Join(job.Dir, "requirements", "req_002"), 0o755)
	os.WriteFile(filepath.Join(job.Dir, "requirements", "req_002", "draft.md"), []byte("draft"), 0o644)
	saved, err := s.Save(draft("The company must keep invoices.", cite("chunk_001", "Invoices must be kept for ten years.")))
	if err != nil || saved.ID != "REQ-003" || saved.File != "requirements/req_003/final.json" {
		// req_001 is empty but lower than the drafting folder: ids go on after the highest used one.
		t.Fatalf("first save: %+v %v", saved, err)
	}
	os.MkdirAll(filepath.Join(job.Dir, "requirements", "req_004"), 0o755) // cut off again
	saved, err = s.Save(draft("The company must keep letters.", cite("chunk_001", "Business letters shall be kept for six years.")))
	if err != nil || saved.ID != "REQ-004" {
		t.Fatalf("save after an empty folder: %+v %v", saved, err)
	}
}

// The index of saved requirements follows folders added and removed
// behind the store's back.
func TestIndexFollowsTheFolders(t *testing.T) {
	t.Parallel()
	job, s, first := savedInvoices(t)
	os.RemoveAll(filepath.Join(job.Dir, "requirements", "req_001"))
	again, err := s.Save(first.Record)
	if err != nil || again.Duplicate || again.ID != "REQ-001" {
		t.Fatalf("save after removal: %+v %v", again, err)
	}
	// A requirement written by hand under a higher id.
	other := again.Record
	other.ID, other.Text = "REQ-005", "The company must keep letters."
	other.Citations = []requirement.Citation{{Document: "policy.pdf", Chunk: "chunk_001", Page: 1, Quote: "Business letters shall be kept for six years."}}
	data, _ := requirement.Marshal(other)
	job.WriteFile("requirements/req_005/final.json", data)
	if ref, ok, err := s.findDuplicate(other); err != nil || !ok || ref != (Ref{ID: "REQ-005", File: "requirements/req_005/final.json"}) {
		t.Fatalf("findDuplicate of the hand-written one = %v %v %v", ref, ok, err)
	}
	next, err := s.Save(draft("Records must not be deleted.", cite("chunk_002", "Records must not be deleted")))
	if err != nil || next.ID != "REQ-006" {
		t.Fatalf("save after a hand-written one: %+v %v", next, err)
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	job, s, saved := savedInvoices(t)
	job.WriteFile("requirements/req_002/draft.md", []byte("drafting"))
	job.WriteFile("requirements/req_003/final.json", []byte("{not json"))
	job.WriteFile("requirements/notes.md", []byte("not a requirement"))
	entries, err := s.List()
	if err != nil || len(entries) != 2 {
		t.Fatalf("List = %+v, %v", entries, err)
	}
	if e := entries[0]; e.Folder != "req_001" || e.File != saved.File || e.Err != nil || !reflect.DeepEqual(e.Record, saved.Record) {
		t.Errorf("entry 1 = %+v", e)
	}
	if e := entries[1]; e.Folder != "req_003" || e.File != "requirements/req_003/final.json" || e.Err == nil || string(e.Raw) != "{not json" {
		t.Errorf("entry 2 = %+v", e)
	}
}

// A requirement whose final.json is removed, its folder kept, is no longer
// a duplicate: saving it again writes it anew.
func TestDuplicateOfARemovedFile(t *testing.T) {
	t.Parallel()
	job, s, first := savedInvoices(t)
	if err := os.Remove(filepath.Join(job.Dir, "requirements", "req_001", "final.json")); err != nil {
		t.Fatal(err)
	}
	again, err := s.Save(first.Record)
	if err != nil || again.Duplicate || again.Ref != first.Ref {
		t.Fatalf("save after removing final.json: %+v %v", again, err)
	}
	if data, err := job.ReadInternal(first.File); err != nil || requirement.Validate(data) != nil {
		t.Fatalf("final.json after the second save: %s %v", data, err)
	}
	// The same requirement once more is a duplicate of the new file.
	if dup, err := s.Save(first.Record); err != nil || !dup.Duplicate || dup.Ref != first.Ref {
		t.Fatalf("third save: %+v %v", dup, err)
	}
}

// A folder removed and another made keep the number of folders: the index
// follows them all the same.
func TestIndexFollowsAFolderReplaced(t *testing.T) {
	t.Parallel()
	job, s, first := savedInvoices(t)
	os.RemoveAll(filepath.Join(job.Dir, "requirements", "req_001"))
	os.MkdirAll(filepath.Join(job.Dir, "requirements", "req_007"), 0o755)
	os.WriteFile(filepath.Join(job.Dir, "requirements", "req_007", "draft.md"), []byte("draft"), 0o644)
	// Another requirement takes the id after the drafting folder's.
	next, err := s.Save(draft("The company must keep letters.", cite("chunk_001", "Business letters shall be kept for six years.")))
	if err != nil || next.Duplicate || next.ID != "REQ-008" {
		t.Fatalf("save after a folder replaced: %+v %v", next, err)
	}
	if again, err := s.Save(first.Record); err != nil || again.Duplicate || again.ID != "REQ-009" {
		t.Fatalf("save of the removed one: %+v %v", again, err)
	}
}

// The document's id and columns of a requirement are tidied like its other
// texts, kept by Save and by Amend, and are not part of what makes a
// requirement a duplicate: the same text citing the same quotes is the same
// requirement, whatever id or columns a second save gives it.
func TestSaveSourceIDAndAttributes(t *testing.T) {
	t.Parallel()
	job := newJob(t, true)
	s := Open(job)
	d := draft("The company must keep invoices.", cite("chunk_001", "Invoices must be kept for ten years."))
	d.SourceID = " BK-\n01 "
	d.Attributes = map[string]string{" level ": " 2", "priority": "High\nest", "empty": "  ", "note": ""}
	saved, err := s.Save(d)
	if err != nil {
		t.Fatal(err)
	}
	wantAttrs := map[string]string{"level": "2", "priority": "High est"}
	if saved.Record.SourceID != "BK- 01" || !reflect.DeepEqual(saved.Record.Attributes, wantAttrs) {
		t.Fatalf("stored source_id %q, attributes %v", saved.Record.SourceID, saved.Record.Attributes)
	}
	data, _ := job.ReadInternal(saved.File)
	if err := requirement.Validate(data); err != nil || !strings.Contains(string(data), `"source_id": "BK- 01"`) || !strings.Contains(string(data), `"level": "2"`) {
		t.Fatalf("final.json (%v):\n%s", err, data)
	}

	// Columns that are all empty are no attributes.
	none := draft("The company must keep business letters.", cite("chunk_001", "Business letters shall be kept for six years."))
	none.Attributes = map[string]string{"level": " "}
	if saved, err := s.Save(none); err != nil || saved.Record.Attributes != nil || saved.Record.SourceID != "" {
		t.Fatalf("empty attributes: %+v, %v", saved.Record, err)
	}

	again := d
	again.SourceID, again.Attributes = "BK-02", map[string]string{"level": "3"}
	if dup, err := s.Save(again); err != nil || !dup.Duplicate || dup.ID != saved.ID {
		t.Fatalf("same text and quote with another id: %+v, %v", dup, err)
	}

	amended, err := s.Amend(saved.ID, func(r *requirement.Record) error { r.Priority = "low"; return nil })
	if err != nil || amended.SourceID != "BK- 01" || !reflect.DeepEqual(amended.Attributes, wantAttrs) {
		t.Fatalf("Amend lost the fields: %+v, %v", amended, err)
	}

	many := map[string]string{}
	for i := range requirement.MaxAttributes + 1 {
		many[string(rune('a'+i))] = "x"
	}
	cases := []struct {
		name   string
		change func(*requirement.Record)
		want   string
	}{
		{"long source id", func(r *requirement.Record) { r.SourceID = strings.Repeat("1", 101) }, "source_id is 101 characters long; keep it to 100"},
		{"value without name", func(r *requirement.Record) { r.Attributes = map[string]string{" ": "High"} }, `attributes: the value "High" has no name`},
		{"name given twice", func(r *requirement.Record) { r.Attributes = map[string]string{"level": "1", " level": "2"} }, `attributes: "level" is given twice`},
		{"too many", func(r *requirement.Record) { r.Attributes = many }, "attributes: 21 given; keep them to 20"},
		{"long value", func(r *requirement.Record) { r.Attributes = map[string]string{"note": strings.Repeat("x ", 300)} }, `attributes: the value of "note" is 599 characters long; keep it to 500`},
	}
	for _, c := range cases {
		r := draft("The archive must be checked.", cite("chunk_002", "The archive should be checked every quarter."))
		c.change(&r)
		if _, err := s.Save(r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// AmendThen writes the record only after commit: a commit that fails
// leaves the record as it was and no temporary file behind; one that
// succeeds sees the record as it was and as it is written.
func TestAmendThenCommitsFirst(t *testing.T) {
	t.Parallel()
	job, s, saved := savedInvoices(t)
	file := saved.File
	before, _ := job.ReadInternal(file)
	refused := errors.New("the log cannot be written")
	if _, err := s.AmendThen(saved.ID, func(r *requirement.Record) error { r.Priority = "low"; return nil },
		func(_, _ requirement.Record) error { return refused }); !errors.Is(err, refused) {
		t.Fatalf("AmendThen: %v", err)
	}
	if now, _ := job.ReadInternal(file); string(now) != string(before) {
		t.Errorf("a failed commit changed the record:\n%s", now)
	}
	names, _ := os.ReadDir(filepath.Join(job.Dir, filepath.Dir(file)))
	for _, n := range names {
		if atomicfile.IsTemp(n.Name()) {
			t.Errorf("left behind: %s", n.Name())
		}
	}
	var was, will string
	rec, err := s.AmendThen(saved.ID, func(r *requirement.Record) error { r.Priority = "low"; return nil },
		func(b, a requirement.Record) error { was, will = b.Priority, a.Priority; return nil })
	if err != nil || was != "high" || will != "low" || rec.Priority != "low" {
		t.Fatalf("AmendThen: %v, %s → %s", err, was, will)
	}
	if got, _ := s.Get(saved.ID); got.Priority != "low" {
		t.Errorf("the record: %s", got.Priority)
	}
}
