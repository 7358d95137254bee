package document

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"creator/internal/pdfwrite"

	"github.com/ledongthuc/pdf"
)

// lexed renders the operators of a content stream with their operands.
func lexed(data string) string {
	l := contentLexer{data: data}
	var out []string
	for {
		op, ok := l.next()
		if !ok {
			return strings.Join(out, " ")
		}
		var args []string
		for _, a := range l.args {
			args = append(args, describeOperand(a, l.elements))
		}
		out = append(out, fmt.Sprintf("%s%v", op, args))
	}
}

func describeOperand(a operand, elements []operand) string {
	switch a.kind {
	case operandNumber:
		return fmt.Sprint(a.num)
	case operandName:
		return "/" + a.s
	case operandString:
		return fmt.Sprintf("%q", a.s)
	case operandArray:
		var parts []string
		for _, e := range elements[a.lo:a.hi] {
			parts = append(parts, describeOperand(e, nil))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return "_"
}

func TestContentLexer(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"BT /F1 12 Tf 72 700 Td (Hello) Tj ET", `BT[] Tf[/F1 12] Td[72 700] Tj["Hello"] ET[]`},
		{"1 0 0 1 -0 +.5 cm 3. -2.25 Td", `cm[1 0 0 1 0 0.5] Td[3 -2.25]`},
		{`(a\(b\)c \\ \n\101\0617 x\
y \q) Tj`, `Tj["a(b)c \\ \nA17 xy q"]`},
		{"(nested (parens) kept) Tj", `Tj["nested (parens) kept"]`},
		{"<48 65 6C6C 6F> Tj <414> Tj", `Tj["Hello"] Tj["A@"]`},
		{"[(A) -120 (B) true [1 2] <43>] TJ", `TJ[["A",-120,"B",_,_,"C"]]`},
		{"/Span <</MCID 3 /Alt (a >> b) /D <</X [1]>>>> BDC EMC", `BDC[/Span _] EMC[]`},
		{"/F#201 9 Tf % comment (not a string\n1.2.3 (x) Tj", `Tf[/F 1 9] 1.2.3[] Tj["x"]`},
		{"BI /W 2 /H 1 ID \x00)EI>\xff EI Q", `BI[] ID[/W 2 /H 1] Q[]`},
		{") ] > 5 w", `w[5]`},
		{"(unterminated", ``},
		{"null true 2 d0 {} ", `d0[_ _ 2] {[] }[]`},
	}
	for _, c := range cases {
		if got := lexed(c.in); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

// parseNumber gives strconv.ParseFloat's value for every real it takes.
func TestParseNumber(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"0.1", "-0.0", "+.5", "-.25", "3.", "123456789012345.6", "1234567890123456.7", "0.30000000000000004",
		"9007199254740993.0", "1.0000000000000000000001", ".0000000000000000000001", "-12.345", "007.50", "999999999999999.", "0.000000000000001"} {
		want, err := strconv.ParseFloat(s, 64)
		got, ok := parseNumber(s)
		if ok != (err == nil) || ok && (got != want || math.Signbit(got) != math.Signbit(want)) {
			t.Errorf("parseNumber(%q) = %v, %v; ParseFloat: %v, %v", s, got, ok, want, err)
		}
	}
	for _, s := range []string{".", "-.", "+", "1.2.3", "1e5", "5.960464477539063e-8", "--1", ""} {
		if f, ok := parseNumber(s); ok {
			t.Errorf("parseNumber(%q) = %v, want no number", s, f)
		}
	}
	if f, _ := parseNumber("-0"); math.Signbit(f) {
		t.Error("the integer -0 is negative zero")
	}
}

// The object cache depends on reading the library's unexported object
// references: without them it would still work, but read every object at
// every access again.
func TestObjectReferencesAreRead(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sample", "retention-policy.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	rd, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	root := rd.Trailer().Key("Root")
	if _, ok := refOf(entryOf(rd.Trailer(), "Root")); !ok {
		t.Fatal("the trailer's /Root is not seen as a reference")
	}
	kids := root.Key("Pages").Key("Kids")
	if _, ok := refOf(elementOf(kids, 0)); !ok {
		t.Fatal("the first of /Kids is not seen as a reference")
	}
	c := newObjectCache()
	first := c.index(kids, 0)
	if len(c.objects) != 1 || first.Key("Type").Name() != "Page" {
		t.Fatalf("%d objects cached; the first kid is a %q", len(c.objects), first.Key("Type").Name())
	}
	if id, ok := objectID(first); !ok || id == 0 {
		t.Error("a page has no object number")
	}
}

// A subset font may give code 32 to a letter ("u" in Word's subsets): the
// glyph is that letter, and only a glyph whose text is blank is a space.
func TestSubsetFontCode32IsALetter(t *testing.T) {
	t.Parallel()
	// S u b j e c t, space (code 0x21), u s e
	cmap := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Adobe-Identity-UCS def /CMapType 2 def\n" +
		"1 begincodespacerange <00> <FF> endcodespacerange\n" +
		"8 beginbfchar <01> <0053> <20> <0075> <02> <0062> <03> <006A> <04> <0065> <05> <0063> <06> <0074> <21> <0020> endbfchar\n" +
		"1 beginbfchar <07> <0073> endbfchar\nendcmap CMapName currentdict /CMap defineresource pop end end"
	content := "BT /F1 12 Tf 72 700 Td <0120020304050621200704> Tj ET"
	data := pdfwrite.Objects([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /TrueType /BaseFont /AAAAAA+CourierNewPSMT /FirstChar 1 /LastChar 33 /Widths [" + strings.Repeat("600 ", 33) + "] /ToUnicode 6 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(cmap), cmap),
	}, "")
	doc := extract(t, "subset.pdf", data)
	if got := strings.TrimSpace(doc.Body()); got != "Subject use" {
		t.Errorf("text %q, want %q", got, "Subject use")
	}
}
