// Package reqdiff compares the requirements of two jobs, made from two
// versions of a document: which were added, removed, changed or kept. It
// pairs requirements by the words of their quotes and by their section,
// never by id, since ids follow extraction order and shift with every
// sentence added before them.
package reqdiff

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"creator/internal/export"
	"creator/internal/requirement"
)

// Threshold is the share of words (Jaccard index of the word sets) the
// quotes of two requirements must have in common to be one requirement in
// two versions. At one half a changed word or two in a sentence keeps the
// pair, while another sentence on the same subject does not make one.
const Threshold = 0.5

// Bonuses added to the quote similarity when ranking candidate pairs: the
// same section, then alike texts, decide between quotes about equally
// alike (a sentence repeated in two sections, two requirements drawn from
// one sentence).
const (
	sectionBonus = 0.1
	textBonus    = 0.05
)

// Item is a requirement of one version: the record and the heading path
// of the section its first quote stands in (" › " between levels). Its
// JSON form is the record's with a "section" added.
type Item struct {
	requirement.Record
	Section string `json:"section,omitempty"`
	at      position
}

// Change is one difference of a pair: for type, category, priority and
// source_id the two values; for attributes one attribute, "level: 2"; for text and quote one run of words replaced, with Old or
// New empty where words were only added or only removed.
type Change struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// Pair is a requirement of the old version matched with one of the new,
// and what differs: Fields names the fields among text, type, category,
// priority, source_id, attributes and quote (in that order), Changes the
// differences.
type Pair struct {
	Old     Item     `json:"old"`
	New     Item     `json:"new"`
	Fields  []string `json:"fields"`
	Changes []Change `json:"changes"`
}

// Result is the comparison. Its JSON form is the output of
// `creator diff --json`. Added and Changed are in the order of the new
// version's source, Removed in that of the old.
type Result struct {
	OldJob    string `json:"-"`
	NewJob    string `json:"-"`
	Added     []Item `json:"added"`
	Removed   []Item `json:"removed"`
	Changed   []Pair `json:"changed"`
	Unchanged int    `json:"unchanged"`
}

// Compare matches the requirements of two versions one to one and sorts
// them into added, removed, changed and unchanged. Identical requirements
// (same quotes, section title and text) pair first, in source order; the
// others best pair first.
func Compare(old, new export.Source) Result {
	dict := map[string]int32{}
	a, b := sideOf(old, dict), sideOf(new, dict)
	res := Result{OldJob: old.JobID, NewJob: new.JobID, Added: []Item{}, Removed: []Item{}, Changed: []Pair{}}
	oldUsed, newUsed := make([]bool, len(a)), make([]bool, len(b))
	var pairs []Pair
	match := func(i, j int) {
		oldUsed[i], newUsed[j] = true, true
		if p := pairOf(a[i], b[j]); len(p.Changes) == 0 {
			res.Unchanged++
		} else {
			pairs = append(pairs, p)
		}
	}
	waiting := map[string][]int{}
	for i, x := range a {
		waiting[x.identity] = append(waiting[x.identity], i)
	}
	for j, y := range b {
		if q := waiting[y.identity]; len(q) > 0 {
			waiting[y.identity] = q[1:]
			match(q[0], j)
		}
	}
	for _, c := range candidates(a, b, oldUsed, newUsed) {
		if !oldUsed[c.old] && !newUsed[c.new] {
			match(int(c.old), int(c.new))
		}
	}
	for i, used := range oldUsed {
		if !used {
			res.Removed = append(res.Removed, a[i].Item)
		}
	}
	for j, used := range newUsed {
		if !used {
			res.Added = append(res.Added, b[j].Item)
		}
	}
	slices.SortFunc(pairs, func(x, y Pair) int { return x.New.at.compare(y.New.at) })
	res.Changed = append(res.Changed, pairs...)
	return res
}

// entry is an item with what matching compares: its normalised quotes,
// the sorted word sets of quotes and text (as numbers from a dictionary
// both versions share), and identity, equal for identical requirements.
type entry struct {
	Item
	quotes     []string
	quoteWords []int32
	textWords  []int32
	section    string // sectionKey of the section
	identity   string
}

// position is where a requirement stands in its source: the chunk's place
// in the manifest, the quote's offset in the chunk, the record's place in
// the output.
type position struct{ chunk, offset, index int }

func (p position) compare(q position) int {
	return cmp.Or(cmp.Compare(p.chunk, q.chunk), cmp.Compare(p.offset, q.offset), cmp.Compare(p.index, q.index))
}

// sideOf makes the entries of one version, in source order.
func sideOf(src export.Source, dict map[string]int32) []entry {
	loc := newLocator(src)
	out := make([]entry, len(src.Records))
	for i, r := range src.Records {
		section, at := loc.locate(r, i)
		e := entry{Item: Item{Record: r, Section: strings.Join(section, " › "), at: at}}
		for _, c := range r.Citations {
			e.quotes = append(e.quotes, requirement.Normalize(c.Quote).Text)
		}
		text := strings.Join(e.quotes, " ")
		if text == "" {
			text = r.Text // a record without quotes is known by its text
		}
		e.quoteWords, e.textWords = wordSet(text, dict), wordSet(r.Text, dict)
		e.section = sectionKey(e.Section)
		e.identity = strings.Join(append(slices.Clone(e.quotes), e.section, requirement.Normalize(r.Text).Text), "\x00")
		out[i] = e
	}
	slices.SortStableFunc(out, func(x, y entry) int { return x.at.compare(y.at) })
	return out
}

// locator places the records of a version in its source, normalising
// each chunk's text once.
type locator struct {
	src   export.Source
	index map[string]int // chunk id → place in the manifest
	norm  map[string]requirement.Normalized
}

func newLocator(src export.Source) *locator {
	l := &locator{src: src, index: make(map[string]int, len(src.Manifest.Chunks)), norm: map[string]requirement.Normalized{}}
	for i, c := range src.Manifest.Chunks {
		if _, dup := l.index[c.ID]; !dup {
			l.index[c.ID] = i
		}
	}
	return l
}

// locate returns the section a record's first quote stands in
// (export.Source.SectionsOf) and the record's position.
func (l *locator) locate(r requirement.Record, index int) ([]string, position) {
	p := position{chunk: len(l.src.Manifest.Chunks), index: index}
	if len(r.Citations) == 0 {
		return nil, p
	}
	cit := r.Citations[0]
	body := l.src.Chunks[cit.Chunk]
	n, ok := l.norm[cit.Chunk]
	if !ok {
		n = requirement.Normalize(body)
		l.norm[cit.Chunk] = n
	}
	at, _, found := requirement.FindIn(n, body, cit.Quote)
	if found {
		p.offset = at
	} else {
		at = -1
	}
	i, ok := l.index[cit.Chunk]
	if !ok {
		return nil, p
	}
	p.chunk = i
	return export.SectionAt(l.src.Manifest.Chunks[i], body, at), p
}

type candidate struct {
	old, new int32
	score    float64
}

// candidates are the pairs of requirements not yet paired whose quotes
// are alike enough, best first; ties go in source order (the entries'
// order), so the matching is the same on every run.
func candidates(a, b []entry, oldUsed, newUsed []bool) []candidate {
	var out []candidate
	for i, x := range a {
		if oldUsed[i] {
			continue
		}
		for j, y := range b {
			// The Jaccard index is at most the ratio of the set sizes.
			small, large := min(len(x.quoteWords), len(y.quoteWords)), max(len(x.quoteWords), len(y.quoteWords))
			if newUsed[j] || float64(small) < Threshold*float64(large) {
				continue
			}
			q := jaccard(x.quoteWords, y.quoteWords)
			if q < Threshold {
				continue
			}
			s := q + textBonus*jaccard(x.textWords, y.textWords)
			if x.section == y.section {
				s += sectionBonus
			}
			out = append(out, candidate{old: int32(i), new: int32(j), score: s})
		}
	}
	slices.SortFunc(out, func(x, y candidate) int {
		return cmp.Or(cmp.Compare(y.score, x.score), cmp.Compare(x.old, y.old), cmp.Compare(x.new, y.new))
	})
	return out
}

// pairOf lists what differs between two matched requirements.
func pairOf(x, y entry) Pair {
	p := Pair{Old: x.Item, New: y.Item, Fields: []string{}, Changes: []Change{}}
	add := func(field string, changes ...Change) {
		if len(changes) > 0 {
			p.Fields = append(p.Fields, field)
			p.Changes = append(p.Changes, changes...)
		}
	}
	add("text", wordChanges("text", requirement.Normalize(x.Text).Text, requirement.Normalize(y.Text).Text)...)
	for _, f := range []struct{ name, old, new string }{
		{"type", x.Type, y.Type}, {"category", x.Category, y.Category}, {"priority", x.Priority, y.Priority},
	} {
		if f.old != f.new {
			add(f.name, Change{Field: f.name, Old: f.old, New: f.new})
		}
	}
	if x.SourceID != y.SourceID {
		add("source_id", Change{Field: "source_id", Old: x.SourceID, New: y.SourceID})
	}
	add("attributes", attributeChanges(x.Attributes, y.Attributes)...)
	if !slices.Equal(x.quotes, y.quotes) {
		add("quote", wordChanges("quote", strings.Join(x.quotes, " … "), strings.Join(y.quotes, " … "))...)
	}
	return p
}

// attributeChanges are the attributes that differ, one change per name
// in the order of the names: "level: 2" → "level: 3", with Old or New
// empty for a name only one version has.
func attributeChanges(old, new map[string]string) []Change {
	var out []Change
	names := slices.Sorted(maps.Keys(old))
	for k := range new {
		if _, ok := old[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		o, inOld := old[k]
		n, inNew := new[k]
		if inOld && inNew && o == n {
			continue
		}
		c := Change{Field: "attributes"}
		if inOld {
			c.Old = k + ": " + o
		}
		if inNew {
			c.New = k + ": " + n
		}
		out = append(out, c)
	}
	return out
}

// sectionKey is the title of a section path's last heading without its
// number, so a section that moved and was renumbered ("2 Retention" →
// "3 Retention") still counts as the same.
func sectionKey(path string) string {
	if i := strings.LastIndex(path, " › "); i >= 0 {
		path = path[i+len(" › "):]
	}
	return strings.ToLower(strings.TrimLeft(path, "0123456789.§ "))
}

// wordSet is the distinct words of a text as compared (requirement.WordKey), by their
// numbers in dict, sorted.
func wordSet(s string, dict map[string]int32) []int32 {
	var set []int32
	for _, w := range strings.Fields(s) {
		k := requirement.WordKey(w)
		if k == "" {
			continue
		}
		n, ok := dict[k]
		if !ok {
			n = int32(len(dict))
			dict[k] = n
		}
		set = append(set, n)
	}
	slices.Sort(set)
	return slices.Compact(set)
}

// jaccard is the Jaccard index of two sorted word sets.
func jaccard(a, b []int32) float64 {
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
