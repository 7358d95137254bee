package document

import (
	"errors"
	"strings"
	"testing"

	"creator/internal/pdfcrypt"
	"creator/internal/pdfwrite"
)

// policy is a document of two compressed pages with a title (a string,
// which encryption changes too).
func policy() *pdfwrite.Document {
	return &pdfwrite.Document{Title: "Retention — policy", Compress: true, Pages: pdfwrite.Layout{Size: 11}.Pages([]pdfwrite.Block{
		{Text: "1 Records", Heading: true},
		{Text: "Records must be kept for ten years. The archive should be checked every quarter; größere Akten müssen gesichert werden."},
		{Text: "2 Access", Heading: true},
		{Text: strings.Repeat("Access to customer records must be logged and reviewed. ", 40)},
	})}
}

func plainPolicy() []byte { return policy().Bytes() }

// encryptions make the policy encrypted with a user and an owner
// password, in each kind of the standard security handler: by pdfcpu, as
// PDF writers do, and by pdfwrite's own RC4, independent of the library
// that decrypts.
var encryptions = map[string]func(user, owner string) ([]byte, error){
	"rc4-40":           byPDFCPU(pdfcrypt.RC4v40),
	"rc4-128-filter":   byPDFCPU(pdfcrypt.RC4v128),
	"aes-128":          byPDFCPU(pdfcrypt.AES128),
	"aes-256":          byPDFCPU(pdfcrypt.AES256),
	"rc4-40-pdfwrite":  byPDFWrite(40),
	"rc4-128-pdfwrite": byPDFWrite(128),
}

func byPDFCPU(c pdfcrypt.Cipher) func(user, owner string) ([]byte, error) {
	return func(user, owner string) ([]byte, error) { return pdfcrypt.Encrypt(plainPolicy(), c, user, owner) }
}

func byPDFWrite(bits int) func(user, owner string) ([]byte, error) {
	return func(user, owner string) ([]byte, error) {
		doc := policy()
		doc.RC4 = &pdfwrite.RC4{UserPassword: user, OwnerPassword: owner, KeyBits: bits}
		return doc.Bytes(), nil
	}
}

func encrypt(t *testing.T, kind, user, owner string) []byte {
	t.Helper()
	data, err := encryptions[kind](user, owner)
	if err != nil {
		t.Fatalf("encrypt: %v", err)
	}
	return data
}

// A PDF restricted by an owner password only opens in every reader
// without a password: its text is that of the same file unencrypted.
func TestOwnerPasswordOnlyPDFsReadAsUnencrypted(t *testing.T) {
	t.Parallel()
	plain := plainPolicy()
	want := extract(t, "plain.pdf", plain).Text()
	if !strings.Contains(want, "Records must be kept for ten years.") {
		t.Fatalf("the unencrypted text lacks its first duty:\n%s", want)
	}
	for name := range encryptions {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			doc, err := Extract(write(t, name+".pdf", encrypt(t, name, "", "the owner's secret")), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := doc.Text(); got != want {
				t.Errorf("text differs from the unencrypted PDF's:\n%s\nwant:\n%s", got, want)
			}
			if len(doc.Notes) > 0 {
				t.Errorf("notes: %q", doc.Notes)
			}
		})
	}
}

// A PDF that needs a user password is refused without it, and with a
// wrong one, in words that say so; the user or the owner password opens
// it. No message holds the password.
func TestUserPasswordPDF(t *testing.T) {
	t.Parallel()
	const user, owner, wrong = "user-pass-1", "owner-pass-2", "not-the-password"
	plain := plainPolicy()
	want := extract(t, "plain.pdf", plain).Text()
	for name := range encryptions {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := write(t, "locked.pdf", encrypt(t, name, user, owner))
			_, err := Extract(path, Options{})
			if !errors.Is(err, ErrPasswordNeeded) || err.Error() != "locked.pdf: this PDF needs a password: give it with --pdf-password (or CREATOR_PDF_PASSWORD)" {
				t.Errorf("without a password: %v", err)
			}
			_, err = Extract(path, Options{Password: wrong})
			if !errors.Is(err, ErrWrongPassword) || !strings.Contains(err.Error(), "locked.pdf: the password given for this PDF is wrong") || strings.Contains(err.Error(), wrong) {
				t.Errorf("with a wrong password: %v", err)
			}
			for _, pw := range []string{user, owner} {
				doc, err := Extract(path, Options{Password: pw})
				if err != nil {
					t.Fatalf("with %q: %v", pw, err)
				}
				if doc.Text() != want {
					t.Errorf("with %q: text differs from the unencrypted PDF's:\n%s", pw, doc.Text())
				}
			}
		})
	}
}

// A password given for a PDF that needs none changes nothing.
func TestPasswordForAnUnencryptedPDF(t *testing.T) {
	t.Parallel()
	plain := plainPolicy()
	doc, err := Extract(write(t, "plain.pdf", plain), Options{Password: "whatever"})
	if err != nil || doc.Text() != extract(t, "plain.pdf", plain).Text() {
		t.Fatalf("err = %v", err)
	}
}

// A PDF whose pages' content cannot be read is damaged, not scanned: the
// advice to run OCR is for pages read without error that carry no text.
func TestUnreadableContentIsNotCalledScanned(t *testing.T) {
	t.Parallel()
	page := "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>"
	garbage := strings.Repeat("\x8f\x13\xee\x07", 16) // not zlib
	data := pdfwrite.Objects([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page,
		"<< /Length 64 /Filter /FlateDecode >>\nstream\n" + garbage + "\nendstream"}, "")
	_, err := Extract(write(t, "damaged.pdf", data), Options{})
	if err == nil || strings.Contains(err.Error(), "OCR") || !strings.Contains(err.Error(), "the content of 1 page could not be read: the PDF is damaged") {
		t.Fatalf("err = %v", err)
	}
	// A scan still gets the advice.
	scan := (&pdfwrite.Document{Compress: true, Pages: []pdfwrite.Page{{Image: true}}}).Bytes()
	if _, err := Extract(write(t, "scan.pdf", scan), Options{}); err == nil || !strings.Contains(err.Error(), "is it scanned? Run it through OCR") {
		t.Fatalf("scan: err = %v", err)
	}
}

// An AES-256 password with a space cannot be checked (the decryption
// library refuses it): the message says so, without the password.
func TestAES256PasswordWithASpace(t *testing.T) {
	t.Parallel()
	const user = "open sesame"
	path := write(t, "spaced.pdf", encrypt(t, "aes-256", user, "owner-pass"))
	_, err := Extract(path, Options{Password: user})
	if err == nil || !strings.Contains(err.Error(), "has a space or a symbol") || strings.Contains(err.Error(), user) {
		t.Fatalf("err = %v", err)
	}
}
