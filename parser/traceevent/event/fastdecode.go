package event

import "bytes"

// fastDecode decodes the top-level members of an element with a scanner
// made for the common case: plain keys, well-formed values. It accepts only
// what the general decoder (jsonscan) accepts and gives the same fields; for
// anything else (escaped keys, trailing commas, syntax errors, deep nesting,
// control characters) it reports false and the general decoder decides.
func (d *Decoder) fastDecode(raw []byte) bool {
	ev := &d.ev
	var seen uint64 // keyHash bits of the keys so far
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipWS(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return skipWS(raw, i+1) == len(raw)
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return false
		}
		ks := i + 1
		ke := ks
		for ke < len(raw) && raw[ke] != '"' {
			if raw[ke] == '\\' || raw[ke] < 0x20 {
				return false
			}
			ke++
		}
		if ke >= len(raw) {
			return false
		}
		key := raw[ks:ke]
		i = skipWS(raw, ke+1)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		vs := skipWS(raw, i+1)
		ve, ok := skipValue(raw, vs)
		if !ok {
			return false
		}
		d.addKey(key, &seen)
		ev.field(key, raw[vs:ve])
		i = skipWS(raw, ve)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case ',':
			i = skipWS(raw, i+1)
		case '}':
			return skipWS(raw, i+1) == len(raw)
		default:
			return false
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the end of the string starting at b[i] ('"'); ok is
// false for what it leaves to the general decoder.
func skipString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\':
			i++
			if i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return 0, false
				}
				for _, h := range b[i+1 : i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return 0, false
					}
				}
				i += 4
			default:
				return 0, false
			}
		case c < 0x20:
			return 0, false
		}
	}
	return 0, false
}

// skipScalar returns the end of a number or literal starting at b[i].
func skipScalar(b []byte, i int) (int, bool) {
	switch c := b[i]; {
	case c == '-' || (c >= '0' && c <= '9'):
		j := i + 1
		for j < len(b) {
			c := b[j]
			if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
				j++
				continue
			}
			break
		}
		return j, true
	case c == 't' && bytes.HasPrefix(b[i:], []byte("true")):
		return i + 4, true
	case c == 'f' && bytes.HasPrefix(b[i:], []byte("false")):
		return i + 5, true
	case c == 'n' && bytes.HasPrefix(b[i:], []byte("null")):
		return i + 4, true
	}
	return 0, false
}

// maxFastDepth is the deepest nesting fastDecode handles itself.
const maxFastDepth = 32

// skipValue returns the end of the value starting at b[i].
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
	default:
		return skipScalar(b, i)
	}
	var stack [maxFastDepth]byte
	sp := 0
	stack[sp] = b[i]
	sp++
	i++
	first := true
	for {
		i = skipWS(b, i)
		if i >= len(b) {
			return 0, false
		}
		top := stack[sp-1]
		if first && (b[i] == '}' && top == '{' || b[i] == ']' && top == '[') {
			sp--
			i++
			if sp == 0 {
				return i, true
			}
			first = false
			goto after
		}
		if top == '{' {
			if b[i] != '"' {
				return 0, false
			}
			var ok bool
			if i, ok = skipString(b, i); !ok {
				return 0, false
			}
			i = skipWS(b, i)
			if i >= len(b) || b[i] != ':' {
				return 0, false
			}
			i = skipWS(b, i+1)
			if i >= len(b) {
				return 0, false
			}
		}
		switch b[i] {
		case '{', '[':
			if sp == maxFastDepth {
				return 0, false
			}
			stack[sp] = b[i]
			sp++
			i++
			first = true
			continue
		case '"':
			var ok bool
			if i, ok = skipString(b, i); !ok {
				return 0, false
			}
		default:
			var ok bool
			if i, ok = skipScalar(b, i); !ok {
				return 0, false
			}
		}
	after:
		for {
			i = skipWS(b, i)
			if i >= len(b) {
				return 0, false
			}
			switch c := b[i]; {
			case c == ',':
				i = skipWS(b, i+1)
				if i >= len(b) || b[i] == '}' || b[i] == ']' {
					return 0, false // a trailing comma: the general decoder counts it
				}
				first = false
			case c == '}' && stack[sp-1] == '{' || c == ']' && stack[sp-1] == '[':
				sp--
				i++
				if sp == 0 {
					return i, true
				}
				continue
			default:
				return 0, false
			}
			break
		}
	}
}

// addKey notes a key of the current element, counting it in DupKeys if it
// was there before. seen is a 64-bit filter of the keys so far, which spares
// the comparisons for keys not seen yet.
func (d *Decoder) addKey(key []byte, seen *uint64) {
	bit := uint64(1) << keyHash(key)
	if *seen&bit != 0 {
		from := uint32(0)
		for _, end := range d.keyEnd {
			if bytes.Equal(d.keyBuf[from:end], key) {
				d.ev.DupKeys++
				break
			}
			from = end
		}
	}
	*seen |= bit
	d.keyBuf = append(d.keyBuf, key...)
	d.keyEnd = append(d.keyEnd, uint32(len(d.keyBuf)))
}

// keyHash maps a key to one of 64 bits for the duplicate-key filter.
func keyHash(k []byte) uint {
	if len(k) == 0 {
		return 0
	}
	return uint(len(k)*31+int(k[0])*7+int(k[len(k)-1])) & 63
}
