package offlinemodel

import "strings"

// A shape is a way documents state their requirements: by their layout
// (rows of a verification table, rules of a rule list, numbered
// measures, the items of a specification, the controls of a catalog) or
// by their sentences (prose). The profile tells a document's shape from
// its text alone, never from its name or wording unique to it; the
// chunks of a document are then read by its shape's rules only, so a
// rule added for one shape cannot change what another shape finds. Each
// shape is a unit of its own file (shape_*.go): how it is told and how a
// chunk of it is read; what several shapes use is in shapehelpers.go.
type shape struct {
	name string
	// reason is the profile's "Why" for a document of the shape; prose
	// leaves the keyword convention's.
	reason string
	// detect reports whether a document is of the shape, from the text
	// of its profile chunks (its first chunks and a sample further in).
	detect func(text string) bool
	// extract finds the requirements of a chunk of a document of the
	// shape, in any order.
	extract func(c chunkRead, p profile) []found
	// layoutStates: the shape's layout states requirements whatever
	// their words (a verification row, a rule's title, a control's
	// statement), also in a document whose upper-case keywords carry its
	// requirements. In the other shapes such a document's requirements
	// need a keyword or an id of the document's own.
	layoutStates bool
}

// shapes are tried in this order; the first whose detect holds is the
// document's shape. Prose, the last, holds for every document.
var shapes = []shape{ruleListShape, verificationTableShape, numberedListShape, specificationShape, controlCatalogShape, proseShape}

// documentShape tells how a document states its requirements, from the
// text of its profile chunks.
func documentShape(text string) string {
	for _, s := range shapes {
		if s.detect(text) {
			return s.name
		}
	}
	return shapeProse
}

// shapeNamed is the shape of a profile's Shape field; prose for one this
// version does not know.
func shapeNamed(name string) shape {
	for _, s := range shapes {
		if s.name == name {
			return s
		}
	}
	return proseShape
}

// profileLines are the trimmed lines of a profile's text.
func profileLines(text string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return lines
}
