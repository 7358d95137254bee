package offlinemodel

import (
	"regexp"
	"strings"

	"creator/internal/document"
)

// Control catalogs (security control catalogs of any edition or
// publisher): each control under its heading ("AC-2 ACCOUNT MANAGEMENT",
// "5.1 Policies for information security") states its requirements under
// a label ("Control:", "Control" on a line of its own) — lettered and
// numbered statements, enhancements — beside labelled guidance
// ("Supplemental Guidance:", "Discussion:", "Purpose", "Guidance"). The
// chapters around the catalog tell how to select and tailor the controls
// and the tables map or allocate them: what they say with "should" or
// "must" is no control. A chunk is read as prose is (labels, tables,
// cues), and of that only what stands inside a control is kept.
const shapeCatalog = "control-catalog"

var controlCatalogShape = shape{
	name:         shapeCatalog,
	reason:       "a control catalog: the statements of each control are its requirements, whatever their verb; guidance and the chapters around the catalog are context",
	detect:       isControlCatalog,
	extract:      catalogFindings,
	layoutStates: true,
}

var (
	// A control's label: "Control:" before its statement, or "Control"
	// (or "Control Statement") on a line of its own.
	controlLabelRE = regexp.MustCompile(`^Control(?: [Ss]tatement)?(?::|$)`)
	// The labels of a control's parts, in catalogs of every edition and
	// publisher (and the items that go on a control from the chunk
	// before); a chapter's labels ("Scoping considerations:") are none.
	catalogLabelRE = regexp.MustCompile(`(?i)^(?:control(?: statement| enhancements)?|(?:enhancement )?supplemental guidance|discussion|related controls?|references|priority and baseline allocation|purpose|guidance|other information|\(continued\))$`)
	// minControls is how many controls the profile's text must show.
	minControls = 3
)

// isControlCatalog: controls under their headings, each labelled as one.
func isControlCatalog(text string) bool {
	labels, heads := 0, 0
	for _, l := range profileLines(text) {
		if controlLabelRE.MatchString(l) {
			labels++
		}
		if catalogHeadingRE.MatchString(l) || controlTitleRE.MatchString(l) {
			heads++
		}
	}
	return labels >= minControls && heads >= minControls
}

// catalogFindings reads a chunk of a catalog as prose, keeping what
// stands inside a control: under a control's heading whose text has a
// catalog's labels ("Control:", "Supplemental Guidance:"), or at the start
// of a chunk that starts inside one (its section path ends at a control
// heading, and a control's labels follow before the next heading; items
// at its start go on the control's statements). A numbered heading of a
// chapter ("3.1 SELECTING THE BASELINE") without a control's labels is no
// control.
func catalogFindings(c chunkRead, p profile) []found {
	startControl := ""
	if path := document.SplitSectionPath(c.heading); len(path) > 0 {
		last := path[len(path)-1]
		if catalogHeadingRE.MatchString(last) {
			startControl = strings.TrimSuffix(strings.Fields(last)[0], ".")
		} else if m := controlTitleRE.FindStringSubmatch(last); m != nil {
			startControl = m[1]
		}
	}
	all := proseFindingsIn(c, p, startControl)
	bs := blocksFrom(c.body, startControl)
	labelled := map[string]bool{} // controls of the chunk with a label
	firstControl := len(c.body)
	startLabelled := false
	for _, b := range bs {
		if b.control != "" && b.start < firstControl && b.control != startControl {
			firstControl = b.start
		}
	}
	for _, b := range bs {
		if !catalogLabelRE.MatchString(b.label) {
			continue
		}
		switch {
		case b.start < firstControl:
			startLabelled = startControl != ""
		case b.control != "":
			labelled[b.control] = true
		}
	}
	out := all[:0]
	for _, x := range all {
		if x.s.start < firstControl && startLabelled || x.s.start >= firstControl && labelled[controlAt(bs, x.s.start)] {
			out = append(out, x)
		}
	}
	return out
}

// controlAt is the control whose block holds offset off, "" outside one.
func controlAt(bs []block, off int) string {
	for _, b := range bs {
		if (span{b.start, b.end}).holds(off) {
			return b.control
		}
	}
	return ""
}
