package event

import (
	"bytes"

	"tracestreamer/parser/jsonscan"
)

// fastDecode decodes the top-level members of an element with a scanner
// made for the common case: plain keys, well-formed values. It accepts only
// what the general decoder (jsonscan) accepts and gives the same fields; for
// anything else (escaped keys, trailing commas, syntax errors, deep nesting,
// control characters) it reports false and the general decoder decides.
func (d *Decoder) fastDecode(raw []byte) bool {
	ev := d.ev
	var seen uint64  // keyHash bits of the unknown keys so far
	var known uint64 // the known keys so far, by their number (field)
	i := jsonscan.SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = jsonscan.SkipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return jsonscan.SkipSpace(raw, i+1) == len(raw)
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
		i = jsonscan.SkipSpace(raw, ke+1)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		vs := jsonscan.SkipSpace(raw, i+1)
		ve, ok := jsonscan.SkipBytes(raw, vs)
		if !ok {
			return false
		}
		// A key field knows is a repeat if its bit is set; only the others
		// are compared with each other (addKey).
		if k := ev.field(key, raw[vs:ve]); k >= 0 {
			if known&(1<<k) != 0 {
				ev.DupKeys++
			}
			known |= 1 << k
		} else {
			d.addKey(key, &seen)
		}
		i = jsonscan.SkipSpace(raw, ve)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case ',':
			i = jsonscan.SkipSpace(raw, i+1)
		case '}':
			return jsonscan.SkipSpace(raw, i+1) == len(raw)
		default:
			return false
		}
	}
}

// addKey notes a key of the current element, counting it in DupKeys if it
// was there before. seen is a 64-bit filter of the keys so far, which spares
// the comparisons for keys not seen yet; past manyKeys keys (the filter is
// full by then) keySet finds them, so that an element of many keys costs
// time in proportion to them, not to their square.
func (d *Decoder) addKey(key []byte, seen *uint64) {
	if len(d.keyEnd) >= manyKeys {
		if len(d.keySet) == 0 {
			if d.keySet == nil {
				d.keySet = make(map[string]struct{})
			}
			from := uint32(0)
			for _, end := range d.keyEnd {
				d.keySet[string(d.keyBuf[from:end])] = struct{}{}
				from = end
			}
		}
		if _, ok := d.keySet[string(key)]; ok {
			d.ev.DupKeys++
		} else {
			d.keySet[string(key)] = struct{}{}
		}
		return
	}
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

// manyKeys is the most keys of an element addKey compares one by one.
const manyKeys = 16

// resetKeys forgets the keys of the element decoded before, letting go of
// a large set.
func (d *Decoder) resetKeys() {
	d.keyBuf, d.keyEnd = d.keyBuf[:0], d.keyEnd[:0]
	if len(d.keySet) > 1<<12 {
		d.keySet = nil
	} else if len(d.keySet) > 0 {
		clear(d.keySet)
	}
}

// keyHash maps a key to one of 64 bits for the duplicate-key filter.
func keyHash(k []byte) uint {
	if len(k) == 0 {
		return 0
	}
	return uint(len(k)*31+int(k[0])*7+int(k[len(k)-1])) & 63
}
