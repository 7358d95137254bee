// Package pdfcrypt is the one place that sets up github.com/pdfcpu/pdfcpu,
// which decrypts encrypted PDFs for the document package and encrypts the
// tests' PDFs.
package pdfcrypt

import (
	"bytes"
	"sync"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// disableConfigDir keeps pdfcpu from reading and writing a configuration
// folder in the user's home. It sets a variable of pdfcpu's that every
// configuration reads: once, before any configuration is made.
var disableConfigDir sync.Once

// Config is pdfcpu's default configuration, without its configuration
// folder, offline, and without optimising the files it writes.
func Config() *model.Configuration {
	disableConfigDir.Do(api.DisableConfigDir)
	conf := model.NewDefaultConfiguration()
	conf.Optimize, conf.OptimizeBeforeWriting = false, false
	conf.Offline = true
	return conf
}

// Cipher is a PDF encryption of the standard security handler.
type Cipher struct {
	AES  bool
	Bits int // 40 or 128 for RC4; 128 or 256 for AES
}

// The ciphers PDF writers use, oldest first.
var (
	RC4v40  = Cipher{Bits: 40}             // V1 R2
	RC4v128 = Cipher{Bits: 128}            // V4 R4, RC4 crypt filter
	AES128  = Cipher{AES: true, Bits: 128} // V4 R4, AESV2
	AES256  = Cipher{AES: true, Bits: 256} // V5 R6, AESV3
)

// Encrypt encrypts a PDF as PDF writers do, with nothing allowed but
// reading, for tests. An empty userPassword makes a file that every
// reader opens without a password, restricted by the owner password only.
// The output differs from run to run (random salts and IVs).
func Encrypt(pdf []byte, c Cipher, userPassword, ownerPassword string) ([]byte, error) {
	conf := Config()
	conf.EncryptUsingAES, conf.EncryptKeyLength = c.AES, c.Bits
	conf.UserPW, conf.OwnerPW = userPassword, ownerPassword
	conf.Permissions = model.PermissionsNone
	var out bytes.Buffer
	if err := api.Encrypt(bytes.NewReader(pdf), &out, conf); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
