package document

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"

	"creator/internal/pdfcrypt"
	"creator/internal/secret"
)

// Errors of an encrypted PDF that cannot be opened without the password.
var (
	// ErrPasswordNeeded is a PDF that needs a user password and got none.
	ErrPasswordNeeded = errors.New("this PDF needs a password: give it with --pdf-password (or CREATOR_PDF_PASSWORD)")
	// ErrWrongPassword is a PDF whose password is not the one given.
	ErrWrongPassword = errors.New("the password given for this PDF is wrong: give the right one with --pdf-password (or CREATOR_PDF_PASSWORD)")
)

// decryptPDF is the PDF in r decrypted, as a file without encryption.
//
// A PDF protected by an owner password only (printing or copying
// "not allowed") opens with the empty user password, as in every reader;
// password, when given, is tried as the user and as the owner password.
// The standard security handler is read in all its revisions: RC4 40 and
// 128 bits, AES-128 and AES-256 (R2 to R6).
//
// The text library decrypts only some of them, and one wrongly (an
// object's RC4 key is the whole 16-byte MD5 digest, where it is its first
// key length + 5 bytes: 10 for a 40-bit key, so every stream of such a
// file decrypts to noise), so an encrypted file is decrypted whole here
// and read as any other.
func decryptPDF(r io.ReaderAt, size int64, password string) ([]byte, error) {
	conf := pdfcrypt.Config()
	conf.UserPW, conf.OwnerPW = password, password
	var out bytes.Buffer
	err := api.Decrypt(io.NewSectionReader(r, 0, size), &out, conf)
	switch {
	case err == nil:
		return out.Bytes(), nil
	case errors.Is(err, pdfcpu.ErrWrongPassword) && password == "":
		return nil, ErrPasswordNeeded
	case errors.Is(err, pdfcpu.ErrWrongPassword):
		return nil, ErrWrongPassword
	case password != "" && strings.Contains(err.Error(), "precis:"):
		// The library prepares an AES-256 password with a profile that
		// refuses spaces and symbols outside ASCII (SASLprep allows them).
		return nil, errors.New("the password given cannot be checked for this AES-256 PDF: it has a space or a symbol that the decryption does not take; decrypt the PDF first (for example with qpdf --decrypt)")
	case errors.Is(err, pdfcpu.ErrUnsupportedEncryptionFeature):
		return nil, fmt.Errorf("the PDF's encryption is not supported (%s); decrypt it first (for example with qpdf --decrypt)", safeMessage(err, password))
	}
	return nil, fmt.Errorf("the PDF is encrypted and cannot be decrypted, it may be damaged (%s)", safeMessage(err, password))
}

// safeMessage is err's message without the password, whatever its
// length: the message goes to the terminal and into job files.
func safeMessage(err error, password string) string {
	msg := err.Error()
	if password != "" {
		msg = strings.ReplaceAll(msg, password, secret.Redacted)
	}
	return msg
}

// mentionsEncrypt tells whether a PDF the text library could not open
// has an /Encrypt entry anywhere: then its encryption may be what the
// library refused. (Only read when opening failed: the name stands in
// the clear in the trailer or the cross-reference stream's dictionary.)
func mentionsEncrypt(r io.ReaderAt, size int64) bool {
	const window = 1 << 20
	key := []byte("/Encrypt")
	buf := make([]byte, window+len(key))
	for off := int64(0); off < size; off += window {
		n, err := r.ReadAt(buf, off)
		if bytes.Contains(buf[:n], key) {
			return true
		}
		if err != nil {
			return false
		}
	}
	return false
}

// CheckPassword tells whether the document at path, when it is an
// encrypted PDF, opens with password: the error is ErrPasswordNeeded or
// ErrWrongPassword, after the file's name. Anything else (another format,
// a PDF without encryption, a damaged file) is nil: Extract says what is
// wrong with it. It reads much less than Extract, and decrypts only an
// encrypted file.
func CheckPassword(path, password string) (err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	head := make([]byte, 1024)
	n, _ := f.ReadAt(head, 0)
	if !bytes.Contains(head[:n], []byte("%PDF-")) {
		return nil
	}
	defer func() {
		if recover() != nil {
			err = nil // damaged
		}
	}()
	if _, _, err := openPDF(f, fi.Size(), password); errors.Is(err, ErrPasswordNeeded) || errors.Is(err, ErrWrongPassword) {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}
