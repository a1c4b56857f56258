package pdf

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5"
	"crypto/rc4"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
)

// Decryption with the empty user password (PDF 32000-2 §7.6). The library
// derives RC4 object keys from all 16 MD5 bytes instead of the first n+5,
// so every 40-bit RC4 file "opens" and then fails on every stream; it also
// knows neither AES-256 (V5) nor documents without /ID. So the package
// decrypts streams and the few strings it reads itself, and gives the
// library the file without /Encrypt.

type cryptMethod uint8

const (
	cryptNone cryptMethod = iota
	cryptRC4
	cryptAESV2
	cryptAESV3
)

type crypt struct {
	key    []byte
	stm    cryptMethod
	str    cryptMethod
	rev    int
	keyLen int // bytes
}

var passwordPad = []byte{
	0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
	0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
}

// newCrypt sets up decryption from the encryption dictionary and the first
// file ID string. It returns ErrPassword when the empty user password does
// not open the file.
func newCrypt(enc map[string]any, id []byte) (*crypt, error) {
	if dictName(enc, "Filter") != "Standard" {
		return nil, fmt.Errorf("%w: security handler %q", ErrEncryption, dictName(enc, "Filter"))
	}
	v, _ := dictInt(enc, "V")
	r, _ := dictInt(enc, "R")
	length, ok := dictInt(enc, "Length")
	if !ok || length < 40 || length > 256 || length%8 != 0 {
		length = 40
	}
	o, _ := enc["O"].(pdfString)
	u, _ := enc["U"].(pdfString)
	p, _ := dictInt(enc, "P")
	c := &crypt{rev: int(r), keyLen: int(length / 8)}
	switch v {
	case 1, 2:
		c.stm, c.str = cryptRC4, cryptRC4
		if v == 1 {
			c.keyLen = 5
		}
	case 4, 5:
		c.stm = c.filterMethod(enc, dictName(enc, "StmF"))
		c.str = c.filterMethod(enc, dictName(enc, "StrF"))
		if v == 5 {
			c.keyLen = 32
		} else {
			c.keyLen = 16
		}
	default:
		return nil, fmt.Errorf("%w: V=%d", ErrEncryption, v)
	}
	if r >= 5 {
		ue, _ := enc["UE"].(pdfString)
		key, err := aes256Key(int(r), u, ue)
		if err != nil {
			return nil, err
		}
		c.key = key
		return c, nil
	}
	if r < 2 || len(o) < 32 || len(u) < 32 {
		return nil, fmt.Errorf("%w: R=%d", ErrEncryption, r)
	}
	encMeta := true
	if b, ok := enc["EncryptMetadata"].(bool); ok {
		encMeta = b
	}
	// Algorithm 2: the file key from the (empty) password.
	h := md5.New()
	h.Write(passwordPad)
	h.Write(o[:32])
	var pb [4]byte
	binary.LittleEndian.PutUint32(pb[:], uint32(p))
	h.Write(pb[:])
	h.Write(id)
	if r >= 4 && !encMeta {
		h.Write([]byte{0xff, 0xff, 0xff, 0xff})
	}
	key := h.Sum(nil)
	n := c.keyLen
	if r == 2 {
		n = 5
	}
	if n > 16 {
		n = 16
	}
	if r >= 3 {
		for i := 0; i < 50; i++ {
			s := md5.Sum(key[:n])
			key = s[:]
		}
	}
	key = key[:n]
	c.keyLen = n
	// Algorithms 4 and 5: check U.
	var want []byte
	if r == 2 {
		want = make([]byte, 32)
		rc, _ := rc4.NewCipher(key)
		rc.XORKeyStream(want, passwordPad)
	} else {
		h := md5.New()
		h.Write(passwordPad)
		h.Write(id)
		want = h.Sum(nil)
		for i := 0; i < 20; i++ {
			k := make([]byte, len(key))
			for j := range k {
				k[j] = key[j] ^ byte(i)
			}
			rc, _ := rc4.NewCipher(k)
			rc.XORKeyStream(want, want)
		}
		want = want[:16]
	}
	if !bytes.HasPrefix(u, want) {
		return nil, ErrPassword
	}
	c.key = key
	return c, nil
}

func (c *crypt) filterMethod(enc map[string]any, name string) cryptMethod {
	if name == "" || name == "Identity" {
		return cryptNone
	}
	cf, _ := enc["CF"].(map[string]any)
	f, _ := cf[name].(map[string]any)
	switch dictName(f, "CFM") {
	case "V2":
		return cryptRC4
	case "AESV2":
		return cryptAESV2
	case "AESV3":
		return cryptAESV3
	case "None":
		return cryptNone
	}
	return cryptRC4
}

// aes256Key checks the empty password against U and unwraps the file key
// from UE (algorithms 2.A and 2.B).
func aes256Key(rev int, u, ue []byte) ([]byte, error) {
	if len(u) < 48 || len(ue) < 32 {
		return nil, fmt.Errorf("%w: short U or UE", ErrEncryption)
	}
	hash := func(salt []byte) []byte {
		if rev == 5 {
			s := sha256.Sum256(salt)
			return s[:]
		}
		return hash2B(nil, salt, nil)
	}
	if !bytes.Equal(hash(u[32:40]), u[:32]) {
		return nil, ErrPassword
	}
	ik := hash(u[40:48])
	blk, err := aes.NewCipher(ik[:32])
	if err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	cipher.NewCBCDecrypter(blk, make([]byte, 16)).CryptBlocks(key, ue[:32])
	return key, nil
}

// hash2B is algorithm 2.B of ISO 32000-2 (revision 6).
func hash2B(pw, salt, udata []byte) []byte {
	s := sha256.New()
	s.Write(pw)
	s.Write(salt)
	s.Write(udata)
	k := s.Sum(nil)
	for i := 0; ; i++ {
		var k1 []byte
		for j := 0; j < 64; j++ {
			k1 = append(k1, pw...)
			k1 = append(k1, k...)
			k1 = append(k1, udata...)
		}
		blk, _ := aes.NewCipher(k[:16])
		e := make([]byte, len(k1))
		cipher.NewCBCEncrypter(blk, k[16:32]).CryptBlocks(e, k1)
		sum := 0
		for _, b := range e[:16] {
			sum += int(b)
		}
		switch sum % 3 {
		case 0:
			h := sha256.Sum256(e)
			k = h[:]
		case 1:
			h := sha512.Sum384(e)
			k = h[:]
		default:
			h := sha512.Sum512(e)
			k = h[:]
		}
		if i >= 63 && int(e[len(e)-1]) <= i-31 {
			break
		}
	}
	return k[:32]
}

// objectKey is algorithm 1: the key for one object.
func (c *crypt) objectKey(id objID, m cryptMethod) []byte {
	if m == cryptAESV3 {
		return c.key
	}
	h := md5.New()
	h.Write(c.key)
	h.Write([]byte{byte(id.num), byte(id.num >> 8), byte(id.num >> 16), byte(id.gen), byte(id.gen >> 8)})
	if m == cryptAESV2 {
		h.Write([]byte("sAlT"))
	}
	k := h.Sum(nil)
	return k[:min(c.keyLen+5, 16)]
}

func (c *crypt) decrypt(id objID, m cryptMethod, data []byte) ([]byte, error) {
	switch m {
	case cryptNone:
		return data, nil
	case cryptRC4:
		out := make([]byte, len(data))
		rc, _ := rc4.NewCipher(c.objectKey(id, m))
		rc.XORKeyStream(out, data)
		return out, nil
	}
	if len(data) < 16 {
		return nil, errors.New("encrypted data shorter than an AES block")
	}
	blk, err := aes.NewCipher(c.objectKey(id, m))
	if err != nil {
		return nil, err
	}
	body := bytes.Clone(data[16:])
	body = body[:len(body)/16*16]
	cipher.NewCBCDecrypter(blk, data[:16]).CryptBlocks(body, body)
	if n := len(body); n > 0 {
		if pad := int(body[n-1]); pad >= 1 && pad <= 16 && pad <= n {
			body = body[:n-pad]
		}
	}
	return body, nil
}

func (c *crypt) stream(id objID, data []byte) ([]byte, error) { return c.decrypt(id, c.stm, data) }

func (c *crypt) string(id objID, data []byte) []byte {
	out, err := c.decrypt(id, c.str, data)
	if err != nil {
		return data
	}
	return out
}
