package document

import (
	"strings"
	"testing"
)

func TestSentences(t *testing.T) {
	t.Parallel()
	text := "Records must be kept, z. B. in the archive. The archive\n--- page 4 ---\n" +
		"should be checked (see §§ 238 ff. HGB; Section 5.2.8.). Keys SHALL be rotated:\n" +
		"• Key A MUST be kept.\n• Key B MAY be dropped.\nAm 1. Oktober 2019 gilt das. " +
		"It ends in 2019. It ends.\n--- page 5 ---\nNext page.\n\nNew paragraph.\n"
	cases := []struct {
		name string
		opts SentenceOptions
		want []string
	}{
		{"pieces", SentenceOptions{PageBreakEnds: true}, []string{
			"Records must be kept, z. B. in the archive.",
			"The archive\n--- page 4 ---\nshould be checked (see §§ 238 ff. HGB; Section 5.2.8.).",
			"Keys SHALL be rotated:\n• Key A MUST be kept.",
			"• Key B MAY be dropped.",
			"Am 1. Oktober 2019 gilt das.",
			"It ends in 2019. It ends.",
			"--- page 5 ---\nNext page.",
			"New paragraph.",
		}},
		{"quotes", SentenceOptions{ListsEnd: true, NumbersEnd: true}, []string{
			"Records must be kept, z. B. in the archive.",
			"The archive\n--- page 4 ---\nshould be checked (see §§ 238 ff. HGB; Section 5.2.8.).",
			"Keys SHALL be rotated:",
			"• Key A MUST be kept.",
			"• Key B MAY be dropped.",
			"Am 1. Oktober 2019 gilt das.",
			"It ends in 2019.",
			// A page that starts as a sentence does starts one; "The
			// archive" goes on over page 4, which starts in lower case.
			"It ends.",
			"--- page 5 ---\nNext page.",
			"New paragraph.",
		}},
	}
	for _, c := range cases {
		var got []string
		at := 0
		for _, s := range Sentences(text, c.opts) {
			if s.Start != at || s.End <= s.Start {
				t.Fatalf("%s: span %+v after %d: the spans must cover the text in order", c.name, s, at)
			}
			at = s.End
			got = append(got, strings.TrimSpace(text[s.Start:s.End]))
		}
		if at != len(text) {
			t.Errorf("%s: the spans end at %d of %d", c.name, at, len(text))
		}
		if strings.Join(got, "\n|") != strings.Join(c.want, "\n|") {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, strings.Join(got, "\n|"), strings.Join(c.want, "\n|"))
		}
	}
	if got := Sentences("", SentenceOptions{}); got != nil {
		t.Errorf("empty text: %v", got)
	}
	if got := Sentences("\n\n  Text.\n\n", SentenceOptions{}); len(got) != 1 {
		t.Errorf("white space around one sentence: %v", got)
	}
}

func TestListMarkerLen(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]int{
		"• Item": len("• "), "a) Item": 3, "(iv) Item": 5, "3.1 Item": 4, "1. Item": 3,
		"o Second level": 2, "41 Die Belege": 3, "o lower": 0, "Plain text": 0, "2019 was": 0,
	} {
		if got := ListMarkerLen(s); got != want {
			t.Errorf("ListMarkerLen(%q) = %d, want %d", s, got, want)
		}
	}
}
