package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"creator/internal/app"
	"creator/internal/corpustest"
	"creator/internal/export"
	"creator/internal/job"
	"creator/internal/requirement"
	"creator/internal/settings"
)

var catalogSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	f, err := os.Open(filepath.Join("testdata", "oscal", "oscal_complete_schema-1.1.3.json"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("oscal.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("oscal.json")
})

// validCatalog fails the test unless data is an OSCAL 1.1.3 catalog by
// NIST's schema.
func validCatalog(t *testing.T, data []byte) {
	t.Helper()
	sch, err := catalogSchema()
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("not a valid OSCAL catalog: %v", err)
	}
	var top map[string]any
	json.Unmarshal(data, &top)
	if _, ok := top["catalog"]; !ok {
		t.Fatal("valid, but not a catalog")
	}
}

// exportOf runs the built-in model on doc and exports the job as OSCAL.
func exportOf(t *testing.T, doc string) (export.Source, []byte) {
	t.Helper()
	w := app.Workspace{Root: t.TempDir(), Env: app.Env{Getenv: func(string) string { return "" }, Now: time.Now, Version: "test"}}
	jobs := app.Jobs{Workspace: w, Settings: settings.Defaults(func(string) string { return "" })}
	r, extracted, err := jobs.New(context.Background(), "j", []string{doc})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jobs.Run(context.Background(), r, extracted, nil); err != nil {
		t.Fatal(err)
	}
	r.Job.Close()
	v, err := job.OpenView(w.Root, "j")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	src, err := export.ForJob(v, time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), "test")
	if err != nil {
		t.Fatal(err)
	}
	data, err := export.Render("oscal", src)
	if err != nil {
		t.Fatal(err)
	}
	return src, data
}

// controlIDs are the ids and labels of every control of a catalog.
func controlIDs(t *testing.T, data []byte) (ids, labels []string) {
	t.Helper()
	var doc struct {
		Catalog struct {
			Groups   []json.RawMessage `json:"groups"`
			Controls []json.RawMessage `json:"controls"`
		} `json:"catalog"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(raw []json.RawMessage, controls bool)
	walk = func(raw []json.RawMessage, controls bool) {
		for _, r := range raw {
			var n struct {
				ID       string            `json:"id"`
				Groups   []json.RawMessage `json:"groups"`
				Controls []json.RawMessage `json:"controls"`
				Props    []struct{ Name, Value string }
			}
			json.Unmarshal(r, &n)
			if controls {
				ids = append(ids, n.ID)
				for _, p := range n.Props {
					if p.Name == "label" {
						labels = append(labels, p.Value)
					}
				}
			}
			walk(n.Groups, false)
			walk(n.Controls, true)
		}
	}
	walk(doc.Catalog.Groups, false)
	walk(doc.Catalog.Controls, true)
	return ids, labels
}

// The catalogs of the sample, of NIST SP 800-53r3 (the controls' own ids:
// AC-2 a. as AC-2.a, AC-2 (1) as AC-2.1) and of RFC 9000 are valid by NIST's schema;
// one job gives the same catalog twice, and its controls read back as its
// requirements.
func TestOSCALCatalogs(t *testing.T) {
	t.Parallel()
	docs := map[string]string{"sample": "../../testdata/sample/retention-policy.pdf"}
	if !testing.Short() {
		docs["800-53r3"] = corpustest.Path(t, "NIST.SP.800-53r3.pdf")
		docs["rfc9000"] = corpustest.Path(t, "rfc9000.txt")
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src, data := exportOf(t, doc)
			validCatalog(t, data)
			// Exported again later, the catalog differs by its time only:
			// its UUIDs are the job's, not the export's.
			later := src
			later.Time = src.Time.Add(36 * time.Hour)
			again, err := export.Render("oscal", later)
			again = bytes.ReplaceAll(again, []byte(later.Time.Format(time.RFC3339)), []byte(src.Time.Format(time.RFC3339)))
			if err != nil || !bytes.Equal(again, data) {
				t.Errorf("a later export of the job differs by more than its time: %v", err)
			}
			ids, labels := controlIDs(t, data)
			if len(ids) != len(src.Records) {
				t.Fatalf("%d controls for %d requirements", len(ids), len(src.Records))
			}
			if name == "800-53r3" {
				for _, want := range []string{"AC-2.a", "AC-2.1", "AU-6.a"} {
					if !slices.Contains(ids, want) {
						t.Errorf("no control %s: %v", want, ids[:min(20, len(ids))])
					}
				}
				if !slices.Contains(labels, "AC-2 (1)") && !slices.Contains(labels, "AC-2(1)") {
					t.Errorf("no label AC-2(1): %v", labels[:min(20, len(labels))])
				}
			}
			back, err := export.ReadOSCAL(data)
			if err != nil {
				t.Fatal(err)
			}
			if !sameRecords(t, back.Records, src.Records) {
				t.Error("the catalog's controls do not read back as the job's requirements")
			}
		})
	}
}

// sameRecords compares requirements field by field, an empty list as
// none.
func sameRecords(t *testing.T, got, want []requirement.Record) bool {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d records, want %d", len(got), len(want))
		return false
	}
	for i := range want {
		g, w := got[i], want[i]
		if len(g.Frameworks) == 0 && len(w.Frameworks) == 0 {
			g.Frameworks, w.Frameworks = nil, nil
		}
		if !reflect.DeepEqual(g, w) {
			gj, _ := json.Marshal(g)
			wj, _ := json.Marshal(w)
			t.Errorf("record %d:\n%s\nwant\n%s", i, gj, wj)
			return false
		}
	}
	return true
}

// A hostile requirement (quotes, control characters, 20 kB of text, an id
// of punctuation, a section heading of control characters) still gives a
// valid catalog.
func TestOSCALHostile(t *testing.T) {
	t.Parallel()
	long := strings.Repeat(`"quoted" <b>&amp; \ `, 1000)
	recs := []requirement.Record{
		{ID: "REQ-001", SourceID: "((()))", Title: "  \x00\x1b[31mred\n  ", Text: long + "\x00\x07end", Type: "functional", Category: "x",
			Priority: "high", Confidence: 0.5, Citations: []requirement.Citation{{Document: "d.pdf", Chunk: "c1", Page: 3, Quote: "\x01\"q\"\n\tline"}},
			Attributes: map[string]string{"Level 1": "  \u202e yes  ", "": "empty name"}, Rationale: "\x00",
			Review: &requirement.Review{Status: "rejected", Note: "no\nway", By: "alice", At: "2026-11-28T10:00:00Z"}},
		{ID: "REQ-002", SourceID: "4.2.1", Title: "", Text: "t", Citations: []requirement.Citation{{Quote: "q"}}},
		{ID: "REQ-003", SourceID: "4.2.1", Title: "same id", Text: "t", Citations: []requirement.Citation{{Quote: "q"}}},
	}
	src := export.Source{JobID: "hostile", Documents: []string{`d e#f%\q?.pdf`}, Records: recs, Time: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	data, err := export.Render("oscal", src)
	if err != nil {
		t.Fatal(err)
	}
	validCatalog(t, data)
	// The schema tells: an id that is no token is refused.
	sch, _ := catalogSchema()
	bad, _ := jsonschema.UnmarshalJSON(strings.NewReader(strings.Replace(string(data), `"id": "_4.2.1"`, `"id": "4.2.1"`, 1)))
	if sch.Validate(bad) == nil {
		t.Fatal("the schema took a control id that is no token")
	}
	ids, _ := controlIDs(t, data)
	if len(ids) != 3 || ids[1] != "_4.2.1" || ids[2] == ids[1] {
		t.Errorf("control ids %q", ids)
	}
	back, err := export.ReadOSCAL(data)
	if err != nil || len(back.Records) != 3 || back.Records[0].Text != long+"end" || back.Records[0].Citations[0].Page != 3 {
		t.Fatalf("read back: %v", err)
	}
}
