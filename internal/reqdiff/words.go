package reqdiff

import (
	"strings"
	"unicode"

	"creator/internal/requirement"
)

// maxCells bounds the word table of one comparison; texts longer than
// that are reported as replaced whole.
const maxCells = 1 << 22

// wordChanges is the word-level difference of two texts: each run of words
// replaced, inserted or deleted between words both share ("ten" → "eight").
// Words compare as requirement.WordKey does; when only case or
// punctuation differ, the change is the whole text.
func wordChanges(field, old, new string) []Change {
	if old == new {
		return nil
	}
	a, b := strings.Fields(old), strings.Fields(new)
	whole := []Change{{Field: field, Old: old, New: new}}
	if len(a)*len(b) > maxCells {
		return whole
	}
	ka, kb := keys(a), keys(b)
	// common[i][j] is the length of the longest common subsequence of
	// ka[i:] and kb[j:].
	common := make([][]int, len(a)+1)
	for i := range common {
		common[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if ka[i] == kb[j] {
				common[i][j] = common[i+1][j+1] + 1
			} else {
				common[i][j] = max(common[i+1][j], common[i][j+1])
			}
		}
	}
	var out []Change
	var gone, came []string
	flush := func() {
		if len(gone)+len(came) > 0 {
			out = append(out, Change{Field: field, Old: trimRun(gone), New: trimRun(came)})
		}
		gone, came = nil, nil
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && ka[i] == kb[j]:
			flush()
			i, j = i+1, j+1
		case j == len(b) || i < len(a) && common[i+1][j] >= common[i][j+1]:
			gone = append(gone, a[i])
			i++
		default:
			came = append(came, b[j])
			j++
		}
	}
	flush()
	if len(out) == 0 {
		return whole
	}
	return out
}

// keys are the comparison keys of words; a word of punctuation alone is
// its own key.
func keys(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		if out[i] = requirement.WordKey(w); out[i] == "" {
			out[i] = w
		}
	}
	return out
}

// trimRun joins a run of words without the punctuation at its ends
// ("years." → "years"), unless that leaves nothing.
func trimRun(words []string) string {
	s := strings.Join(words, " ")
	if t := strings.TrimFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }); t != "" {
		return t
	}
	return s
}
