package offlinemodel

import (
	"strings"
	"testing"
)

// A catalog's chapters say how to use its controls with "should" and
// "must"; only what stands in a control is a requirement, in a chunk that
// holds controls and in one that starts inside a control.
func TestCatalogKeepsControlsOnly(t *testing.T) {
	t.Parallel()
	p := map[string]profile{"sp.pdf": {Language: "English", Shape: shapeCatalog}}
	body := `3.1 SELECTING THE INITIAL BASELINE

Organizations should select the baseline that matches the impact level. The baseline must then be tailored.

AC-2 ACCOUNT MANAGEMENT

Control: The organization manages information system accounts.

Supplemental Guidance: Organizations should review accounts often.
`
	got := quotesOf(analyzeChunk(chunkRead{n: 1, doc: "sp.pdf", body: body, heading: "CHAPTER THREE"}, p))
	if want := "The organization manages information system accounts."; got != want {
		t.Errorf("quotes %q, want %q", got, want)
	}
	// A chunk that goes on inside AC-2: its enhancements, then guidance.
	rest := "(3) The information system disables inactive accounts after a period.\n\nEnhancement Supplemental Guidance: Periods should be short.\n"
	got = quotesOf(analyzeChunk(chunkRead{n: 2, doc: "sp.pdf", body: rest, heading: "APPENDIX F > AC-2 ACCOUNT MANAGEMENT"}, p))
	if want := "The information system disables inactive accounts after a period."; got != want {
		t.Errorf("quotes %q, want %q", got, want)
	}
	// A chapter's section that goes on into the next chunk is none.
	narrative := "Organizations must document the tailoring decisions they make.\n"
	if got := quotesOf(analyzeChunk(chunkRead{n: 3, doc: "sp.pdf", body: narrative, heading: "CHAPTER THREE > 3.2 TAILORING THE BASELINE"}, p)); got != "" {
		t.Errorf("a chapter's sentence kept: %q", got)
	}
}

func quotesOf(ds []draft) string {
	var q []string
	for _, d := range ds {
		q = append(q, d.Citations[0].Quote)
	}
	return strings.Join(q, "|")
}
