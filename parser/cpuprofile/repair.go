package cpuprofile

import (
	"bytes"
)

// The ArkTS runtime writes callFrame.functionName and callFrame.moduleName
// without JSON escaping, so a name containing '"' or '\' makes the profile
// invalid JSON (docs/format/cpuprofile.md#name-repair). Its call frame layout is fixed:
//
//	"functionName":"…",["moduleName":"…",]"scriptId":"…"
//
// which tells where such a name ends even when it contains quotes.
var (
	functionKey = []byte(`"functionName":"`)
	moduleKey   = []byte(`"moduleName":"`)
	moduleNext  = []byte(`","moduleName":"`)
	scriptNext  = []byte(`","scriptId":`)
)

// Repair rewrites the functionName and moduleName values of an ArkTS profile
// as properly escaped JSON strings, taking each value's bytes literally up to
// the member that follows it in the runtime's layout. It returns the repaired
// text and the number of values that needed escaping (0: b is returned as is).
func Repair(b []byte) ([]byte, int) {
	var out []byte
	fixed := 0
	rest := b
	for {
		i := bytes.Index(rest, functionKey)
		if i < 0 {
			break
		}
		start := i + len(functionKey)
		// The function name ends at the moduleName or scriptId member.
		endM := bytes.Index(rest[start:], moduleNext)
		endS := bytes.Index(rest[start:], scriptNext)
		if endS < 0 {
			break
		}
		end, hasModule := endS, false
		if endM >= 0 && endM < endS {
			end, hasModule = endM, true
		}
		out = append(out, rest[:start]...)
		var changed bool
		out, changed = appendEscaped(out, rest[start:start+end])
		if changed {
			fixed++
		}
		rest = rest[start+end:]
		if hasModule {
			// rest starts with `","moduleName":"`; the module name ends at scriptId.
			mstart := len(moduleNext)
			mend := bytes.Index(rest[mstart:], scriptNext)
			if mend < 0 {
				break
			}
			out = append(out, rest[:mstart]...)
			out, changed = appendEscaped(out, rest[mstart:mstart+mend])
			if changed {
				fixed++
			}
			rest = rest[mstart+mend:]
		}
	}
	if fixed == 0 {
		return b, 0
	}
	return append(out, rest...), fixed
}

// appendEscaped appends raw as the inside of a JSON string, escaping '"' and
// '\'; changed tells whether anything needed escaping.
func appendEscaped(dst, raw []byte) ([]byte, bool) {
	if bytes.IndexByte(raw, '"') < 0 && bytes.IndexByte(raw, '\\') < 0 {
		return append(dst, raw...), false
	}
	for _, c := range raw {
		if c == '"' || c == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, c)
	}
	return dst, true
}

// ParseRepairing parses b; if that fails, it repairs unescaped ArkTS names
// and parses again. repaired is the number of names it had to escape.
func ParseRepairing(b []byte) (p *Profile, repaired int, err error) {
	p, err = Parse(b)
	if err == nil {
		return p, 0, nil
	}
	fixedText, n := Repair(b)
	if n == 0 {
		return nil, 0, err
	}
	p, err2 := Parse(fixedText)
	if err2 != nil {
		return nil, 0, err // the original error says more
	}
	return p, n, nil
}
