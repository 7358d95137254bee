package index

import (
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/de"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/token/unicodenorm"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
)

// The fields of a passage. Its text is indexed twice: stemmed as English
// and, folded and stemmed, as German (ä/ae/a, ö/oe/o, ü/ue/u, ß/ss match
// each other), so that one query finds both languages. Only the German
// field keeps positions, for phrases: it suits English phrases as well, and
// positions are the costliest part of indexing a write.
const (
	fieldEN   = "en"
	fieldDE   = "de"
	fieldPath = "path"

	analyzerEN = "creator_en"
	analyzerDE = "creator_de"
	filterNFKC = "creator_nfkc"
)

func newMapping() (*mapping.IndexMappingImpl, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = bindex.BM25Scoring
	im.IndexDynamic, im.StoreDynamic, im.DocValuesDynamic = false, false, false
	// NFKC first: PDF text brings ligatures (ﬁ) and decomposed umlauts.
	if err := im.AddCustomTokenFilter(filterNFKC, map[string]any{"type": unicodenorm.Name, "form": unicodenorm.NFKC}); err != nil {
		return nil, err
	}
	if err := im.AddCustomAnalyzer(analyzerEN, map[string]any{
		"type": custom.Name, "tokenizer": unicode.Name,
		"token_filters": []any{filterNFKC, en.PossessiveName, lowercase.Name, porter.Name},
	}); err != nil {
		return nil, err
	}
	if err := im.AddCustomAnalyzer(analyzerDE, map[string]any{
		"type": custom.Name, "tokenizer": unicode.Name,
		"token_filters": []any{filterNFKC, lowercase.Name, de.NormalizeName, de.LightStemmerName},
	}); err != nil {
		return nil, err
	}

	text := func(name, analyzer string, positions bool) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Name, f.Analyzer = name, analyzer
		f.Store, f.IncludeInAll, f.DocValues = false, false, false
		f.IncludeTermVectors = positions
		return f
	}
	path := bleve.NewKeywordFieldMapping()
	path.Analyzer = keyword.Name
	path.Store, path.IncludeInAll, path.DocValues, path.IncludeTermVectors = false, false, false, false
	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt("text", text(fieldEN, analyzerEN, false), text(fieldDE, analyzerDE, true))
	doc.AddFieldMappingsAt(fieldPath, path)
	im.DefaultMapping = doc
	im.DefaultAnalyzer = analyzerEN
	return im, im.Validate()
}
