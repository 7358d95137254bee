package export

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"creator/internal/requirement"
)

// Namespace is the ReqIF namespace; ReqIF 1.1 and 1.2 keep the one of 1.0.1.
const Namespace = "http://www.omg.org/spec/ReqIF/20110401/reqif.xsd"

// The ReqIF document model: enough of the OMG schema for requirements with
// string, real and enumeration attributes and a specification hierarchy.
// Field order follows the schema.
type (
	ReqIF struct {
		XMLName     xml.Name    `xml:"REQ-IF"`
		Xmlns       string      `xml:"xmlns,attr"`
		Header      Header      `xml:"THE-HEADER>REQ-IF-HEADER"`
		CoreContent CoreContent `xml:"CORE-CONTENT>REQ-IF-CONTENT"`
	}
	Header struct {
		Identifier   string `xml:"IDENTIFIER,attr"`
		Comment      string `xml:"COMMENT,omitempty"`
		CreationTime string `xml:"CREATION-TIME"`
		ToolID       string `xml:"REQ-IF-TOOL-ID"`
		Version      string `xml:"REQ-IF-VERSION"`
		SourceToolID string `xml:"SOURCE-TOOL-ID"`
		Title        string `xml:"TITLE"`
	}
	CoreContent struct {
		Datatypes      Datatypes       `xml:"DATATYPES"`
		SpecTypes      SpecTypes       `xml:"SPEC-TYPES"`
		SpecObjects    []SpecObject    `xml:"SPEC-OBJECTS>SPEC-OBJECT"`
		Specifications []Specification `xml:"SPECIFICATIONS>SPECIFICATION"`
	}
	// Identifiable holds the attributes every ReqIF element with an
	// identity has.
	Identifiable struct {
		Identifier string `xml:"IDENTIFIER,attr"`
		LastChange string `xml:"LAST-CHANGE,attr"`
		LongName   string `xml:"LONG-NAME,attr,omitempty"`
	}
	Datatypes struct {
		Strings      []DatatypeString      `xml:"DATATYPE-DEFINITION-STRING"`
		Reals        []DatatypeReal        `xml:"DATATYPE-DEFINITION-REAL"`
		Enumerations []DatatypeEnumeration `xml:"DATATYPE-DEFINITION-ENUMERATION"`
	}
	DatatypeString struct {
		Identifiable
		MaxLength int `xml:"MAX-LENGTH,attr"`
	}
	DatatypeReal struct {
		Identifiable
		Accuracy int     `xml:"ACCURACY,attr"`
		Min      float64 `xml:"MIN,attr"`
		Max      float64 `xml:"MAX,attr"`
	}
	DatatypeEnumeration struct {
		Identifiable
		Values []EnumValue `xml:"SPECIFIED-VALUES>ENUM-VALUE"`
	}
	EnumValue struct {
		Identifiable
		Embedded EmbeddedValue `xml:"PROPERTIES>EMBEDDED-VALUE"`
	}
	EmbeddedValue struct {
		Key          int    `xml:"KEY,attr"`
		OtherContent string `xml:"OTHER-CONTENT,attr"`
	}
	SpecTypes struct {
		SpecObjectTypes    []SpecObjectType    `xml:"SPEC-OBJECT-TYPE"`
		SpecificationTypes []SpecificationType `xml:"SPECIFICATION-TYPE"`
	}
	SpecObjectType struct {
		Identifiable
		Attributes AttributeDefinitions `xml:"SPEC-ATTRIBUTES"`
	}
	SpecificationType struct {
		Identifiable
	}
	AttributeDefinitions struct {
		Strings      []AttributeDefinition `xml:"ATTRIBUTE-DEFINITION-STRING"`
		Reals        []AttributeDefinition `xml:"ATTRIBUTE-DEFINITION-REAL"`
		Enumerations []AttributeDefinition `xml:"ATTRIBUTE-DEFINITION-ENUMERATION"`
	}
	// AttributeDefinition is one attribute of a spec type; Type refers to
	// a datatype by identifier (the element name depends on its kind).
	AttributeDefinition struct {
		Identifiable
		MultiValued *bool  `xml:"MULTI-VALUED,attr,omitempty"`
		StringType  string `xml:"TYPE>DATATYPE-DEFINITION-STRING-REF,omitempty"`
		RealType    string `xml:"TYPE>DATATYPE-DEFINITION-REAL-REF,omitempty"`
		EnumType    string `xml:"TYPE>DATATYPE-DEFINITION-ENUMERATION-REF,omitempty"`
	}
	SpecObject struct {
		Identifiable
		Values Values `xml:"VALUES"`
		Type   string `xml:"TYPE>SPEC-OBJECT-TYPE-REF"`
	}
	Values struct {
		Strings      []StringValue      `xml:"ATTRIBUTE-VALUE-STRING"`
		Reals        []RealValue        `xml:"ATTRIBUTE-VALUE-REAL"`
		Enumerations []EnumerationValue `xml:"ATTRIBUTE-VALUE-ENUMERATION"`
	}
	StringValue struct {
		Value      string `xml:"THE-VALUE,attr"`
		Definition string `xml:"DEFINITION>ATTRIBUTE-DEFINITION-STRING-REF"`
	}
	RealValue struct {
		Value      float64 `xml:"THE-VALUE,attr"`
		Definition string  `xml:"DEFINITION>ATTRIBUTE-DEFINITION-REAL-REF"`
	}
	EnumerationValue struct {
		Definition string   `xml:"DEFINITION>ATTRIBUTE-DEFINITION-ENUMERATION-REF"`
		Values     []string `xml:"VALUES>ENUM-VALUE-REF"`
	}
	Specification struct {
		Identifiable
		Type     string          `xml:"TYPE>SPECIFICATION-TYPE-REF"`
		Children []SpecHierarchy `xml:"CHILDREN>SPEC-HIERARCHY"`
	}
	SpecHierarchy struct {
		Identifiable
		Object   string          `xml:"OBJECT>SPEC-OBJECT-REF"`
		Children []SpecHierarchy `xml:"CHILDREN>SPEC-HIERARCHY,omitempty"`
	}
)

// Identifiers of the fixed parts of the document.
const (
	dtString       = "_dt-string"
	dtConfidence   = "_dt-confidence"
	sotRequirement = "_sot-requirement"
	sotSection     = "_sot-section"
	stDocument     = "_st-document"
	adChapterName  = "_ad-chapter-name"
)

// Requirement attributes: LONG-NAMEs of the ReqIF implementation guide
// where one exists (ReqIF.ForeignID, ReqIF.Name, ReqIF.Text), so tools map
// them without configuration.
var stringAttributes = []struct{ id, name string }{
	{"_ad-id", "ReqIF.ForeignID"},
	{"_ad-title", "ReqIF.Name"},
	{"_ad-text", "ReqIF.Text"},
	{"_ad-frameworks", "Frameworks"},
	{"_ad-source", "Source"},
	{"_ad-quote", "Quote"},
	{"_ad-rationale", "Rationale"},
	{"_ad-review-status", "ReviewStatus"},
	{"_ad-review-note", "ReviewNote"},
	{"_ad-source-id", "SourceID"},
}

// attributePrefix starts the LONG-NAME of the attribute a document's
// column becomes ("Source.level"), apart from the fixed ones.
const attributePrefix = "Source."

var enumAttributes = []struct {
	id, name, datatype string
	values             []string
}{
	{"_ad-type", "Type", "_dt-type", requirement.Types},
	{"_ad-category", "Category", "_dt-category", requirement.Categories},
	{"_ad-priority", "Priority", "_dt-priority", requirement.Priorities},
}

// ReqIFDocument builds the ReqIF document of an export. A requirement's
// source id is the string attribute SourceID, and each column of the
// document (attributes) a string attribute Source.<name>, defined when
// any requirement has it and valued where a requirement does.
func ReqIFDocument(src Source) ReqIF {
	stamp := src.Time.UTC().Format(time.RFC3339)
	ident := func(id, name string) Identifiable {
		return Identifiable{Identifier: id, LastChange: stamp, LongName: name}
	}
	doc := ReqIF{
		Xmlns: Namespace,
		Header: Header{
			Identifier:   "_header-" + ncName(src.JobID),
			Comment:      fmt.Sprintf("Requirements extracted from %s by creator (job %s), each with a verbatim citation.", strings.Join(src.Documents, ", "), src.JobID),
			CreationTime: stamp,
			ToolID:       "creator",
			Version:      "1.0",
			SourceToolID: "creator " + src.Version,
			Title:        "Requirements of " + strings.Join(src.Documents, ", "),
		},
	}
	c := &doc.CoreContent
	c.Datatypes.Strings = []DatatypeString{{Identifiable: ident(dtString, "Text"), MaxLength: 100000}}
	c.Datatypes.Reals = []DatatypeReal{{Identifiable: ident(dtConfidence, "Confidence"), Accuracy: 2, Min: 0, Max: 1}}
	for _, e := range enumAttributes {
		dt := DatatypeEnumeration{Identifiable: ident(e.datatype, e.name)}
		for i, v := range e.values {
			dt.Values = append(dt.Values, EnumValue{Identifiable: ident(enumValueID(e.datatype, v), v), Embedded: EmbeddedValue{Key: i}})
		}
		c.Datatypes.Enumerations = append(c.Datatypes.Enumerations, dt)
	}

	req := SpecObjectType{Identifiable: ident(sotRequirement, "Requirement")}
	for _, a := range stringAttributes {
		req.Attributes.Strings = append(req.Attributes.Strings, AttributeDefinition{Identifiable: ident(a.id, a.name), StringType: dtString})
	}
	// Each column of the document any requirement has becomes an attribute
	// of its own, so tools filter by it.
	columns := attributeColumns(src.Records)
	for _, k := range columns {
		req.Attributes.Strings = append(req.Attributes.Strings, AttributeDefinition{Identifiable: ident(attributeID(k), attributePrefix+k), StringType: dtString})
	}
	req.Attributes.Reals = []AttributeDefinition{{Identifiable: ident("_ad-confidence", "Confidence"), RealType: dtConfidence}}
	no := false
	for _, e := range enumAttributes {
		req.Attributes.Enumerations = append(req.Attributes.Enumerations, AttributeDefinition{Identifiable: ident(e.id, e.name), MultiValued: &no, EnumType: e.datatype})
	}
	section := SpecObjectType{Identifiable: ident(sotSection, "Section")}
	section.Attributes.Strings = []AttributeDefinition{{Identifiable: ident(adChapterName, "ReqIF.ChapterName"), StringType: dtString}}
	c.SpecTypes.SpecObjectTypes = []SpecObjectType{req, section}
	c.SpecTypes.SpecificationTypes = []SpecificationType{{Identifiable: ident(stDocument, "Document")}}

	// The hierarchy: one specification per document, sections as nested
	// hierarchy nodes, requirements under their section.
	specs := map[string]*Specification{}
	var order []string
	sections := map[string]bool{}
	for _, r := range src.Records {
		docName := r.Citations[0].Document
		spec, ok := specs[docName]
		if !ok {
			spec = &Specification{Identifiable: ident("_spec-"+hashID(docName), docName), Type: stDocument}
			specs[docName] = spec
			order = append(order, docName)
		}
		children := &spec.Children
		path := src.SectionsOf(r)
		for i := range path {
			key := docName + "\x00" + strings.Join(path[:i+1], "\x00")
			sid := "_sec-" + hashID(key)
			if !sections[sid] {
				sections[sid] = true
				obj := SpecObject{Identifiable: ident(sid, path[i]), Type: sotSection}
				obj.Values.Strings = []StringValue{{Value: path[i], Definition: adChapterName}}
				c.SpecObjects = append(c.SpecObjects, obj)
			}
			children = childFor(children, ident("_sh"+sid, ""), sid)
		}
		rid := "_req-" + ncName(r.ID)
		c.SpecObjects = append(c.SpecObjects, requirementObject(ident(rid, r.Title), r))
		*children = append(*children, SpecHierarchy{Identifiable: ident("_sh"+rid, ""), Object: rid})
	}
	for _, d := range order {
		c.Specifications = append(c.Specifications, *specs[d])
	}
	return doc
}

// childFor returns the children of the hierarchy node for object, adding
// the node when it is not among children yet.
func childFor(children *[]SpecHierarchy, id Identifiable, object string) *[]SpecHierarchy {
	for i := range *children {
		if (*children)[i].Object == object {
			return &(*children)[i].Children
		}
	}
	*children = append(*children, SpecHierarchy{Identifiable: id, Object: object})
	return &(*children)[len(*children)-1].Children
}

func requirementObject(id Identifiable, r requirement.Record) SpecObject {
	var sources, quotes []string
	for _, c := range r.Citations {
		s := c.Document
		if c.Page > 0 {
			s += ", p. " + strconv.Itoa(c.Page)
		}
		sources = append(sources, s+" ("+c.Chunk+")")
		quotes = append(quotes, c.Quote)
	}
	values := map[string]string{
		"_ad-id": r.ID, "_ad-title": r.Title, "_ad-text": r.Text, "_ad-frameworks": strings.Join(r.Frameworks, ", "),
		"_ad-source": strings.Join(sources, "; "), "_ad-quote": strings.Join(quotes, "\n\n"), "_ad-rationale": r.Rationale,
		"_ad-review-status": r.ReviewStatus(), "_ad-review-note": r.ReviewNote(), "_ad-source-id": r.SourceID,
	}
	obj := SpecObject{Identifiable: id, Type: sotRequirement}
	for _, a := range stringAttributes {
		obj.Values.Strings = append(obj.Values.Strings, StringValue{Value: values[a.id], Definition: a.id})
	}
	for _, k := range slices.Sorted(maps.Keys(r.Attributes)) {
		obj.Values.Strings = append(obj.Values.Strings, StringValue{Value: r.Attributes[k], Definition: attributeID(k)})
	}
	obj.Values.Reals = []RealValue{{Value: r.Confidence, Definition: "_ad-confidence"}}
	for _, e := range enumAttributes {
		v := map[string]string{"_ad-type": r.Type, "_ad-category": r.Category, "_ad-priority": r.Priority}[e.id]
		obj.Values.Enumerations = append(obj.Values.Enumerations, EnumerationValue{Definition: e.id, Values: []string{enumValueID(e.datatype, v)}})
	}
	return obj
}

// attributeColumns are the names of the attributes of recs, sorted.
func attributeColumns(recs []requirement.Record) []string {
	seen := map[string]bool{}
	for _, r := range recs {
		for k := range r.Attributes {
			seen[k] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// attributeID is the identifier of the attribute definition of a column.
func attributeID(name string) string { return "_ad-attr-" + hashID(name) }

func enumValueID(datatype, value string) string { return datatype + "-" + ncName(value) }

var notNCName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// ncName makes s usable in an XML identifier (xsd:ID).
func ncName(s string) string { return notNCName.ReplaceAllString(s, "_") }

// hashID is a short stable identifier part for free text.
func hashID(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}

// MarshalReqIF renders a ReqIF document as indented XML with its header.
func MarshalReqIF(doc ReqIF) ([]byte, error) {
	data, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(data, '\n')...), nil
}

// ReqIFBytes is the ReqIF export of src.
func ReqIFBytes(src Source) ([]byte, error) { return MarshalReqIF(ReqIFDocument(src)) }
