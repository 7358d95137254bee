package pdfwrite

import (
	"crypto/md5"
	"crypto/rc4"
	"encoding/hex"
	"fmt"
)

// RC4 encrypts a document with the standard security handler's RC4 (ISO
// 32000-1, 7.6.3), written here rather than by a library so that the
// decryption is tested against a second, independent implementation.
type RC4 struct {
	// UserPassword opens the file; empty: every reader opens it, and only
	// the owner password restricts it (printing, copying).
	UserPassword, OwnerPassword string
	// KeyBits is 40 (V1, R2) or a multiple of 8 up to 128 (V2, R3).
	KeyBits int
}

// padding is the password padding of algorithm 2, step a.
var padding = []byte("\x28\xBF\x4E\x5E\x4E\x75\x8A\x41\x64\x00\x4E\x56\xFF\xFA\x01\x08\x2E\x2E\x00\xB6\xD0\x68\x3E\x80\x2F\x0C\xA9\xFE\x64\x53\x69\x7A")

// permissions allow nothing but reading (bits 3-6 and 9-12 clear).
const permissions = -3904

func pad(password string) []byte {
	return append([]byte(password), padding...)[:32]
}

func (e *RC4) revision() int {
	if e.KeyBits <= 40 {
		return 2
	}
	return 3
}

func (e *RC4) keyLen() int { return max(e.KeyBits, 40) / 8 }

// rc4 is data enciphered with key (a copy).
func rc4With(key, data []byte) []byte {
	c, _ := rc4.NewCipher(key)
	out := make([]byte, len(data))
	c.XORKeyStream(out, data)
	return out
}

// rounds enciphers data again 19 times with key XOR 1 … 19 (R3).
func rounds(key, data []byte) []byte {
	k := make([]byte, len(key))
	for i := 1; i <= 19; i++ {
		for j := range key {
			k[j] = key[j] ^ byte(i)
		}
		data = rc4With(k, data)
	}
	return data
}

// md5Rounds is MD5 applied 50 more times to the first n bytes (R3).
func md5Rounds(h []byte, n int) []byte {
	for range 50 {
		s := md5.Sum(h[:n])
		h = s[:]
	}
	return h
}

// owner is the /O entry (algorithm 3).
func (e *RC4) owner() []byte {
	pw := e.OwnerPassword
	if pw == "" {
		pw = e.UserPassword
	}
	s := md5.Sum(pad(pw))
	h := s[:]
	if e.revision() == 3 {
		h = md5Rounds(h, e.keyLen())
	}
	key := h[:e.keyLen()]
	o := rc4With(key, pad(e.UserPassword))
	if e.revision() == 3 {
		o = rounds(key, o)
	}
	return o
}

// fileKey is the file's encryption key (algorithm 2).
func (e *RC4) fileKey(o, id []byte) []byte {
	h := md5.New()
	h.Write(pad(e.UserPassword))
	h.Write(o)
	p := uint32(permissions & 0xFFFFFFFF)
	h.Write([]byte{byte(p), byte(p >> 8), byte(p >> 16), byte(p >> 24)})
	h.Write(id)
	key := h.Sum(nil)
	if e.revision() == 3 {
		key = md5Rounds(key, e.keyLen())
	}
	return key[:e.keyLen()]
}

// user is the /U entry (algorithms 4 and 5).
func (e *RC4) user(key, id []byte) []byte {
	if e.revision() == 2 {
		return rc4With(key, padding)
	}
	s := md5.Sum(append(append([]byte{}, padding...), id...))
	return append(rounds(key, rc4With(key, s[:])), make([]byte, 16)...)
}

// encryptor enciphers the strings and streams of a file.
type encryptor struct {
	key []byte
}

// object enciphers data of object number num, generation 0 (algorithm 1).
func (x *encryptor) object(num int, data []byte) []byte {
	h := md5.New()
	h.Write(x.key)
	h.Write([]byte{byte(num), byte(num >> 8), byte(num >> 16), 0, 0})
	return rc4With(h.Sum(nil)[:min(len(x.key)+5, 16)], data)
}

// setup is the /Encrypt dictionary and the encryptor for a file whose
// first ID is id.
func (e *RC4) setup(id []byte) (dict string, x *encryptor) {
	o := e.owner()
	key := e.fileKey(o, id)
	u := e.user(key, id)
	v := 1
	if e.revision() == 3 {
		v = 2
	}
	dict = fmt.Sprintf("<< /Filter /Standard /V %d /R %d /Length %d /P %d /O <%s> /U <%s> >>",
		v, e.revision(), e.keyLen()*8, permissions, hex.EncodeToString(o), hex.EncodeToString(u))
	return dict, &encryptor{key: key}
}
