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

// Decryption with the empty user password, or a password the caller gives
// (Limits.Password), as user or owner password (PDF 32000-2 §7.6). The library
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
// file ID string, with the empty user password and then, if it is not
// empty, password as the user and as the owner password. It returns
// ErrPassword when none of them opens the file.
func newCrypt(enc map[string]any, id []byte, password string) (*crypt, error) {
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
	passwords := []string{""}
	if password != "" {
		passwords = append(passwords, password)
	}
	if r >= 5 {
		oe, _ := enc["OE"].(pdfString)
		ue, _ := enc["UE"].(pdfString)
		if len(u) < 48 || len(ue) < 32 {
			return nil, fmt.Errorf("%w: short U or UE", ErrEncryption)
		}
		for _, pw := range passwords {
			// UTF-8, at most 127 bytes (SASLprep is not applied: it changes
			// only unusual characters).
			b := []byte(pw)[:min(len(pw), 127)]
			if key := aes256Key(int(r), b, u, ue, nil); key != nil {
				c.key = key
				return c, nil
			}
			if len(o) >= 48 && len(oe) >= 32 {
				if key := aes256Key(int(r), b, o, oe, u[:48]); key != nil {
					c.key = key
					return c, nil
				}
			}
		}
		return nil, ErrPassword
	}
	if r < 2 || len(o) < 32 || len(u) < 32 {
		return nil, fmt.Errorf("%w: R=%d", ErrEncryption, r)
	}
	encMeta := true
	if b, ok := enc["EncryptMetadata"].(bool); ok {
		encMeta = b
	}
	n := c.keyLen
	if r == 2 {
		n = 5
	}
	n = min(n, 16)
	c.keyLen = n
	for _, pw := range passwords {
		user := padPassword([]byte(pw))
		if key := rc4FileKey(user, o, u, p, id, int(r), n, encMeta); key != nil {
			c.key = key
			return c, nil
		}
		if pw == "" {
			continue // the empty owner password opens nothing the empty user password does not
		}
		if key := rc4FileKey(ownerToUser(user, o, int(r), n), o, u, p, id, int(r), n, encMeta); key != nil {
			c.key = key
			return c, nil
		}
	}
	return nil, ErrPassword
}

// padPassword is step (a) of algorithm 2: the password, Latin-1, padded or
// cut to 32 bytes.
func padPassword(pw []byte) []byte {
	out := make([]byte, 0, 32)
	out = append(out, pw[:min(len(pw), 32)]...)
	return append(out, passwordPad[:32-len(out)]...)
}

// rc4FileKey is algorithm 2 (the file key from a padded user password),
// checked against U by algorithms 4 and 5; nil when the password is wrong.
func rc4FileKey(pw, o, u []byte, p int64, id []byte, r, n int, encMeta bool) []byte {
	h := md5.New()
	h.Write(pw)
	h.Write(o[:32])
	var pb [4]byte
	binary.LittleEndian.PutUint32(pb[:], uint32(p))
	h.Write(pb[:])
	h.Write(id)
	if r >= 4 && !encMeta {
		h.Write([]byte{0xff, 0xff, 0xff, 0xff})
	}
	key := h.Sum(nil)
	if r >= 3 {
		for i := 0; i < 50; i++ {
			s := md5.Sum(key[:n])
			key = s[:]
		}
	}
	key = key[:n]
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
		rc4Rounds(key, want, 0, 19)
		want = want[:16]
	}
	if !bytes.HasPrefix(u, want) {
		return nil
	}
	return key
}

// rc4Rounds encrypts buf in place with key XOR i for i from first to last
// (counting down when last < first), as algorithms 5 and 7 do.
func rc4Rounds(key, buf []byte, first, last int) {
	step := 1
	if last < first {
		step = -1
	}
	k := make([]byte, len(key))
	for i := first; ; i += step {
		for j := range k {
			k[j] = key[j] ^ byte(i)
		}
		rc, _ := rc4.NewCipher(k)
		rc.XORKeyStream(buf, buf)
		if i == last {
			return
		}
	}
}

// ownerToUser is algorithm 7: the padded user password recovered from O
// with a padded owner password.
func ownerToUser(owner, o []byte, r, n int) []byte {
	s := md5.Sum(owner)
	key := s[:]
	if r >= 3 {
		for i := 0; i < 50; i++ {
			s = md5.Sum(key)
			key = s[:]
		}
	}
	key = key[:n]
	user := bytes.Clone(o[:32])
	if r == 2 {
		rc, _ := rc4.NewCipher(key)
		rc.XORKeyStream(user, user)
	} else {
		rc4Rounds(key, user, 19, 0)
	}
	return user
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

// aes256Key checks pw against the hash in h (U, or O with udata the first
// 48 bytes of U) and unwraps the file key from e (UE or OE), algorithms
// 2.A and 2.B; nil when the password is wrong.
func aes256Key(rev int, pw, h, e, udata []byte) []byte {
	hash := func(salt []byte) []byte {
		if rev == 5 {
			s := sha256.New()
			s.Write(pw)
			s.Write(salt)
			s.Write(udata)
			return s.Sum(nil)
		}
		return hash2B(pw, salt, udata)
	}
	if !bytes.Equal(hash(h[32:40]), h[:32]) {
		return nil
	}
	ik := hash(h[40:48])
	blk, err := aes.NewCipher(ik[:32])
	if err != nil {
		return nil
	}
	key := make([]byte, 32)
	cipher.NewCBCDecrypter(blk, make([]byte, 16)).CryptBlocks(key, e[:32])
	return key
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
