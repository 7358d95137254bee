package offlinemodel

import (
	"strings"
	"testing"

	"creator/internal/document"
)

// The document's evidence decides across shapes: its tags close and name
// statements (one over several sentences, one cut by a line break, one
// mistyped), list prefixes name items and end the line before them, a
// heading's id names its section's statement, informative parts state
// nothing, and the rationale says which evidence made each one.
func TestEvidenceAppliesToFindings(t *testing.T) {
	t.Parallel()
	tagged := profile{Language: "English", UpperOnly: true, KeywordsWhy: "the document declares the BCP 14 keywords (line 40)",
		IDSchemes:   []document.IDScheme{{Role: document.RoleTag, Pattern: `ABC-\d+\.\d+-\d+`, Distinct: 9}},
		Informative: []document.Part{{Title: "Appendix B. Summary (non-normative)", Why: "its heading marks it informative"}}}
	body := "The data MUST be well-formed. It MUST NOT hold nulls. A receiver that finds nulls MUST close the\nconnection [ABC-1.5-1].\n\n" +
		"The Server MUST answer within 5 seconds [ABC-\n3.1-2]. It MAY answer sooner.\n\n" +
		"The DUP flag MUST be set to 1 on a second try [ABC-3.3.-1]. The DUP flag MUST be 0 otherwise [ABC-3.3-2].\n\n" +
		"After sending a DISCONNECT the Client:\n\nMUST close the connection [ABC-3.14-1].\n"
	got := analyzeChunk(chunkRead{n: 1, doc: "s.pdf", body: body, heading: "3 Packets"}, map[string]profile{"s.pdf": tagged})
	want := []struct{ id, quote string }{
		{"ABC-1.5-1", "The data MUST be well-formed. It MUST NOT hold nulls. A receiver that finds nulls MUST close the connection"},
		{"ABC-3.1-2", "The Server MUST answer within 5 seconds"},
		{"", "It MAY answer sooner."},
		{"ABC-3.3.-1", "The DUP flag MUST be set to 1 on a second try"},
		{"ABC-3.3-2", "The DUP flag MUST be 0 otherwise"},
		{"ABC-3.14-1", "MUST close the connection"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d requirements, want %d: %q", len(got), len(want), quotesOf(got))
	}
	for i, w := range want {
		if got[i].SourceID != w.id || got[i].Citations[0].Quote != w.quote {
			t.Errorf("%d: %q %q, want %q %q", i, got[i].SourceID, got[i].Citations[0].Quote, w.id, w.quote)
		}
	}
	last := got[len(got)-1]
	if last.Text != "After sending a DISCONNECT the Client MUST close the connection" || len(last.Citations) != 2 ||
		last.Citations[1].Quote != "After sending a DISCONNECT the Client:" {
		t.Errorf("lead-in: %q %+v", last.Text, last.Citations)
	}
	if r := got[0].Rationale; !strings.Contains(r, "Evidence: the document declares the BCP 14 keywords (line 40); its id ABC-1.5-1 is the tag that closes it") {
		t.Errorf("rationale: %s", r)
	}
	// The same text in the informative appendix states nothing.
	if got := analyzeChunk(chunkRead{n: 2, doc: "s.pdf", body: body, heading: "Appendix B. Summary (non-normative)"}, map[string]profile{"s.pdf": tagged}); len(got) != 0 {
		t.Errorf("informative part: %q", quotesOf(got))
	}

	prefixed := profile{Language: "English", IDSchemes: []document.IDScheme{{Role: document.RolePrefix, Pattern: `R\d+\.\d+`}, {Role: document.RolePrefix, Pattern: `R\d+`}}}
	items := "R1.3: Users must sign in with a password\nR1.4: Users must change their passwords\nR2: Location Services\nR2.1: The app must ask before it reads the location\n"
	got = analyzeChunk(chunkRead{n: 1, doc: "a.txt", body: items}, map[string]profile{"a.txt": prefixed})
	if q := quotesOf(got); q != "Users must sign in with a password|Users must change their passwords|The app must ask before it reads the location" ||
		got[0].SourceID != "R1.3" || got[2].SourceID != "R2.1" {
		t.Errorf("prefixed items: %q %q %q", q, got[0].SourceID, got[2].SourceID)
	}

	headed := profile{Language: "English", UpperOnly: true, IDSchemes: []document.IDScheme{{Role: document.RoleHeading, Pattern: `MS\.AB\.\d+\.\d+v\d+`}}}
	policy := "#### MS.AB.1.1v1\n\nLegacy sign-in SHALL be blocked.\n\n- Rationale: Old protocols MUST NOT be trusted by anyone.\n"
	got = analyzeChunk(chunkRead{n: 1, doc: "b.md", body: policy, heading: "Baseline > Policies"}, map[string]profile{"b.md": headed})
	if q := quotesOf(got); q != "Legacy sign-in SHALL be blocked." || got[0].SourceID != "MS.AB.1.1v1" {
		t.Errorf("heading id: %q %+v", q, got)
	}
}
