package jsonscan

import "bytes"

// The in-memory skipper. SkipBytes checks a value held wholly in memory by
// its syntax without decoding anything: the Trace Event decoder's fast path
// skips every member of an element with it, and Decoder.SkipValue uses it when
// the value lies within its buffer. It accepts only what Decoder.SkipValue
// accepts (FuzzSkipBytes checks the two against each other); for what it does
// not handle (nesting deeper than 32, a trailing comma, an escape it does not
// know, a value that runs past b) it reports false and leaves the decision to
// the streaming decoder.
//
// The third skipper of the module, parser/traceevent/tokenizer's element
// finder, is different on purpose: it must find where an element ends in a
// stream without judging its syntax (a broken element is the decoder's to
// count, and reading must go on after it), so it follows only brackets and
// string quotes, across buffer refills.

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func SkipSpace(b []byte, i int) int {
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
// false for what it leaves to the streaming decoder.
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

// maxSkipDepth is the deepest nesting SkipBytes handles itself.
const maxSkipDepth = 32

// SkipBytes returns the end of the JSON value starting at b[i]; ok is false
// for anything it leaves to the streaming decoder (see above).
func SkipBytes(b []byte, i int) (end int, ok bool) {
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
	var stack [maxSkipDepth]byte
	sp := 0
	stack[sp] = b[i]
	sp++
	i++
	first := true
	for {
		i = SkipSpace(b, i)
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
			i = SkipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return 0, false
			}
			i = SkipSpace(b, i+1)
			if i >= len(b) {
				return 0, false
			}
		}
		switch b[i] {
		case '{', '[':
			if sp == maxSkipDepth {
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
			i = SkipSpace(b, i)
			if i >= len(b) {
				return 0, false
			}
			switch c := b[i]; {
			case c == ',':
				i = SkipSpace(b, i+1)
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
