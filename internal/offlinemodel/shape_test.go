package offlinemodel

import (
	"strings"
	"testing"
)

// The shape is told from the text and travels with the profile.
func TestShapeProfileRoundTrip(t *testing.T) {
	table := "Intro text.\n\n1.1.1 Verify that a is b for c. 1\n1.1.2 Ensure that d is e. 2\nC.4 Verify that f is g and h. 3\n"
	rules := "Group ID (Vulid): V-1\nRule ID: SV-1r1_rule\nSeverity: CAT II\nRule Title: The server must log.\n\nCheck Content:\nIf not, this is a finding.\n\nGroup ID (Vulid): V-2\nRule ID: SV-2r1_rule\nSeverity: CAT I\nRule Title: The server must not listen.\n\nCheck Content:\nIf it does, this is a finding.\n"
	for text, want := range map[string]string{table: shapeTable, rules: shapeRules, "The system must do X. It should do Y.": ""} {
		p := makeProfile("d.pdf", text, nil)
		back := parseProfiles(p.render())["d.pdf"]
		if p.Shape != want && !(want == "" && p.Shape == shapeProse) || back.Shape != want {
			t.Errorf("shape %q, read back %q, want %q", p.Shape, back.Shape, want)
		}
	}
}

// Rows with ticks, letter ids and deleted rows; titles in a table cell and
// in a heading.
func TestShapeRowsAndTitles(t *testing.T) {
	rows := verificationRows("C.4 Ensure that the archive is encrypted at rest ✓ ✓\nwith a key held elsewhere.\nC.5 [DELETED, merged with C.4]\n2.1 Verify that logs are kept.\n1\n")
	if len(rows) != 2 || rows[0].text != "Ensure that the archive is encrypted at rest with a key held elsewhere." || rows[0].levels != "✓ ✓" || rows[0].id != "C.4" ||
		rows[1].text != "Verify that logs are kept." || rows[1].levels != "1" {
		t.Errorf("rows: %+v", rows)
	}
	titles := ruleTitles("## SV-1r1_rule — The server must rotate its keys.\n\nRule Title | The server must not allow guest logins. | x\nDiscussion: Guests must not log in.\n")
	var got []string
	for _, x := range titles {
		got = append(got, x.quote)
	}
	if strings.Join(got, "|") != "The server must rotate its keys.|The server must not allow guest logins." {
		t.Errorf("titles: %q", got)
	}
}

// TestShapeRegistry checks the registry: names are distinct, prose is
// last and takes every document, and each shape's own kind of text is
// told as that shape and no other before it.
func TestShapeRegistry(t *testing.T) {
	t.Parallel()
	texts := map[string]string{
		shapeRules: "Group ID (Vulid): V-1\nRule ID: SV-1r1_rule\nSeverity: CAT II\nRule Title: The server must log.\n\nCheck Content:\nIf not, this is a finding.\n\n" +
			"Group ID (Vulid): V-2\nRule ID: SV-2r1_rule\nSeverity: CAT I\nRule Title: The server must not listen.\n\nCheck Content:\nIf it does, this is a finding.\n",
		shapeTable:    "1.1.1 Verify that a is b for c. 1\n1.1.2 Ensure that d is e. 2\nC.4 Verify that f is g and h. 3\n",
		shapeNumbered: "3.1.1 Restrict remote access to approved devices.\n\nDISCUSSION\n\nRemote access is risky.\n\n3.1.2 Limit sessions to ten minutes of idle time.\n\nDISCUSSION\n\nIdle sessions are left open.\n\n3.1.3 Log every session of an administrator.\n",
		shapeSpec:     "## 1 Introduction\n\nThe shop.\n\n## 2 Functional requirements\n\n- FR-1: Browse products.\n- FR-2: Pay by card.\n- FR-3: Track orders.\n",
		shapeCatalog: "AC-1 POLICY AND PROCEDURES\n\nControl: The organization develops an access control policy.\n\nSupplemental Guidance: The policy should be short.\n\n" +
			"AC-2 ACCOUNT MANAGEMENT\n\nControl: The organization manages accounts.\n\nAC-3 ACCESS ENFORCEMENT\n\nControl: The system enforces approved authorizations.\n",
		shapeProse: "Invoices must be kept for ten years. The archive should be checked.",
	}
	seen := map[string]bool{}
	for i, s := range shapes {
		if seen[s.name] {
			t.Errorf("shape %q twice", s.name)
		}
		seen[s.name] = true
		if s.detect == nil || s.extract == nil {
			t.Errorf("shape %q lacks detect or extract", s.name)
		}
		if (s.name == shapeProse) != (i == len(shapes)-1) {
			t.Errorf("prose must be the last shape, found %q at %d", s.name, i)
		}
		text, ok := texts[s.name]
		if !ok {
			t.Errorf("no text of shape %q in this test", s.name)
			continue
		}
		if got := documentShape(text); got != s.name {
			t.Errorf("a %s is told as %s", s.name, got)
		}
	}
	if !proseShape.detect("anything") || shapeNamed("no-such-shape").name != shapeProse {
		t.Error("prose does not take every document")
	}
}

// In a document whose upper-case keywords carry its requirements, a
// shape's rules for statements without a modal verb (a specification's
// requirements section, a heading with an identifier) do not leak in:
// only keyword statements and items with the document's ids count.
func TestKeywordDocumentGatesShapeRules(t *testing.T) {
	t.Parallel()
	body := "## 2 Functional requirements\n\nThe verifier SHALL limit failed attempts. Users can reset their passwords. The system may lock accounts.\n\n- FR-7: Export reports as PDF.\n"
	for _, c := range []struct {
		upper bool
		want  string
	}{
		{true, "The verifier SHALL limit failed attempts.|Export reports as PDF."},
		{false, "The verifier SHALL limit failed attempts.|Users can reset their passwords.|The system may lock accounts.|Export reports as PDF."},
	} {
		p := map[string]profile{"s.md": {Language: "English", Shape: shapeSpec, UpperOnly: c.upper}}
		if got := quotesOf(analyzeChunk(chunkRead{n: 1, doc: "s.md", body: body, heading: "Spec"}, p)); got != c.want {
			t.Errorf("upper-case keywords %v: %q, want %q", c.upper, got, c.want)
		}
	}
}

// Every form of a BCP 14 keyword is a keyword cue, NOT RECOMMENDED too
// (a document of upper-case keywords lost its statements that had no
// other); lower-case words and other cues are not.
func TestKeywordCue(t *testing.T) {
	for _, cue := range []string{"MUST", "MUST NOT", "REQUIRED", "SHALL", "SHALL NOT", "SHOULD", "SHOULD NOT", "RECOMMENDED", "NOT RECOMMENDED", "MAY", "OPTIONAL"} {
		if !keywordCue(cue) {
			t.Errorf("%q is no keyword cue", cue)
		}
	}
	for _, cue := range []string{"", "must", "Not recommended", "MUST BE", "is required", "NOT"} {
		if keywordCue(cue) {
			t.Errorf("%q is a keyword cue", cue)
		}
	}
}
