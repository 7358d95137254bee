// Package pdfwrite writes simple, valid PDF files: pages of positioned text
// in Helvetica, with optional compression, rotation, an unmappable font and
// encryption markers. It makes the project's own sample and test documents,
// byte for byte the same on every run.
package pdfwrite

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"fmt"
	"strings"
)

// Font names.
const (
	Regular = "F1" // Helvetica
	Bold    = "F2" // Helvetica-Bold
	// NoUnicode is a composite font without a ToUnicode map: its text
	// cannot be recovered, as in some badly made PDFs.
	NoUnicode = "F3"
)

// Text is a run of text placed on a page.
type Text struct {
	X, Y   float64 // baseline start, points from the bottom left
	Size   float64
	Font   string // Regular by default
	S      string
	Rotate int // degrees counterclockwise: 0, 90, 180, 270
}

// Page is one page.
type Page struct {
	Texts []Text
	// Image adds a filled rectangle drawn as an image would be, for pages
	// without text.
	Image bool
}

// Document is a PDF to write.
type Document struct {
	Width, Height float64 // default A4
	Pages         []Page
	Compress      bool
	// Encrypted adds an /Encrypt dictionary whose password is not empty,
	// so no reader can open the file without it (the content is not
	// encrypted: a hostile file).
	Encrypted bool
	// RC4 encrypts the file, for real.
	RC4   *RC4
	Title string
}

// fileID is the first (and second) element of the trailer's /ID.
var fileID = bytes.Repeat([]byte{1}, 16)

// Bytes renders the PDF.
func (d *Document) Bytes() []byte {
	w, h := d.Width, d.Height
	if w == 0 {
		w, h = 595, 842
	}
	var objs []string // object i+1
	add := func(s string) int {
		objs = append(objs, s)
		return len(objs)
	}
	var x *encryptor
	encDict := ""
	if d.RC4 != nil {
		encDict, x = d.RC4.setup(fileID)
	}
	catalog := add("") // filled in below
	pagesObj := add("")
	widths := func() string {
		var b strings.Builder
		b.WriteString("[")
		for c := 32; c <= 255; c++ {
			cw, ok := helvetica[byte(c)]
			if !ok {
				cw = 556
			}
			fmt.Fprintf(&b, "%d ", cw)
		}
		return strings.TrimSpace(b.String()) + "]"
	}()
	f1 := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 255 /Widths " + widths + " >>")
	f2 := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 255 /Widths " + widths + " >>")
	// str is a string of the object numbered next, encrypted when the
	// file is: every string of an encrypted file is.
	str := func(s string) string {
		if x == nil {
			return literal(s)
		}
		return "<" + hex.EncodeToString(x.object(len(objs)+1, []byte(s))) + ">"
	}
	cid := add("<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Unmapped /CIDSystemInfo << /Registry " + str("Adobe") + " /Ordering " + str("Identity") + " /Supplement 0 >> /DW 500 >>")
	f3 := add(fmt.Sprintf("<< /Type /Font /Subtype /Type0 /BaseFont /Unmapped /Encoding /Identity-H /DescendantFonts [%d 0 R] >>", cid))
	var kids []string
	for _, p := range d.Pages {
		c := add(contentStream(d.content(p), d.Compress, x, len(objs)+1))
		pg := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %g %g] /Resources << /Font << /F1 %d 0 R /F2 %d 0 R /F3 %d 0 R >> >> /Contents %d 0 R >>",
			pagesObj, w, h, f1, f2, f3, c))
		kids = append(kids, fmt.Sprintf("%d 0 R", pg))
	}
	objs[catalog-1] = fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesObj)
	objs[pagesObj-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	info := 0
	if d.Title != "" {
		info = add("<< /Title " + str(d.Title) + " /Producer " + str("creator pdfwrite") + " >>")
	}
	enc := 0
	switch {
	case d.RC4 != nil:
		enc = add(encDict)
	case d.Encrypted:
		enc = add("<< /Filter /Standard /V 1 /R 2 /Length 40 /P -44 /O <" + strings.Repeat("5a", 32) + "> /U <" + strings.Repeat("a5", 32) + "> >>")
	}

	var trailer strings.Builder
	if info > 0 {
		fmt.Fprintf(&trailer, " /Info %d 0 R", info)
	}
	if enc > 0 {
		fmt.Fprintf(&trailer, " /Encrypt %d 0 R /ID [<%x> <%x>]", enc, fileID, fileID)
	}
	return Objects(objs, trailer.String())
}

// Objects writes a PDF file from the bodies of its objects, numbered from
// 1 (the first must be the catalog), with a correct cross-reference table;
// trailer holds more entries for the trailer dictionary (" /Info 9 0 R").
// Tests build damaged files with it.
func Objects(objects []string, trailer string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, trailer, xref)
	return b.Bytes()
}

func (d *Document) content(p Page) string {
	var b strings.Builder
	if p.Image {
		b.WriteString("q 0.5 g 50 50 495 742 re f Q\n")
	}
	for _, t := range p.Texts {
		font := t.Font
		if font == "" {
			font = Regular
		}
		rot := map[int][2]int{0: {1, 0}, 90: {0, 1}, 180: {-1, 0}, 270: {0, -1}}[t.Rotate]
		cos, sin := rot[0], rot[1]
		fmt.Fprintf(&b, "BT /%s %g Tf %d %d %d %d %.2f %.2f Tm ", font, t.Size, cos, sin, -sin, cos, t.X, t.Y)
		if font == NoUnicode {
			var hexs strings.Builder
			for range []rune(t.S) {
				hexs.WriteString("0041")
			}
			fmt.Fprintf(&b, "<%s> Tj ET\n", hexs.String())
			continue
		}
		fmt.Fprintf(&b, "%s Tj ET\n", literal(encode(t.S)))
	}
	return b.String()
}

func encode(s string) string {
	var b strings.Builder
	for _, r := range s {
		c, ok := winAnsi(r)
		if !ok {
			c = '?'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// literal writes a PDF string literal.
func literal(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`, "\r", `\r`, "\n", `\n`)
	return "(" + r.Replace(s) + ")"
}

// contentStream is the stream object, number num, of a page's content,
// encrypted by x when it is not nil.
func contentStream(content string, compress bool, x *encryptor, num int) string {
	if !compress && x == nil {
		// The line end before endstream is counted, as it always was.
		return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content)+1, content)
	}
	data, filter := []byte(content), ""
	if compress {
		var z bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
		zw.Write(data)
		zw.Close()
		data, filter = z.Bytes(), " /Filter /FlateDecode"
	}
	if x != nil {
		data = x.object(num, data)
	}
	return fmt.Sprintf("<< /Length %d%s >>\nstream\n%s\nendstream", len(data), filter, data)
}
