package cpuprofile

import (
	"bytes"
	"context"
)

// Repair is the name repair over a whole text in memory, as the repair once
// was done: the specification that repairReader, the repair ParseRepairing
// and ParseRepairingReader use, is checked against (TestRepairReaderSameAsRepair,
// FuzzParseReader). It rewrites the functionName and moduleName values of an
// ArkTS profile as properly escaped JSON strings, taking each value's bytes
// literally up to the member that follows it in the runtime's layout, and
// returns the repaired text, the number of values that needed escaping (0: b
// is returned as is) and the offset in b of the first of them. It gives up
// (0 values) where a call frame does not follow the layout.
func Repair(ctx context.Context, b []byte) (_ []byte, fixed int, first int) {
	return repair(ctx, b, &repairStats{})
}

// next finds the occurrences of sep in b for positions that never decrease:
// each byte of b is searched at most once (plus len(sep)), so the searches of
// a whole pass cost O(len(b)) however many values end at the same, distant,
// separator — or at none.
type next struct {
	b, sep []byte
	at     int // the occurrence found last, -1 before the first search, len(b) once there is none
	st     *repairStats
}

// repairStats counts the repair's work (for tests).
type repairStats struct{ searched int64 }

func newNext(b, sep []byte, st *repairStats) *next { return &next{b: b, sep: sep, at: -1, st: st} }

// from returns the first occurrence of sep at or after i (len(b): none); i must
// not be less than in the previous call.
func (n *next) from(i int) int {
	if n.at >= i {
		return n.at
	}
	if j := bytes.Index(n.b[i:], n.sep); j >= 0 {
		n.at = i + j
	} else {
		n.at = len(n.b)
	}
	n.st.searched += int64(min(n.at+len(n.sep), len(n.b)) - i)
	return n.at
}

func repair(ctx context.Context, b []byte, st *repairStats) (_ []byte, fixed int, first int) {
	var out []byte
	fn, mod, script := newNext(b, functionKey, st), newNext(b, moduleNext, st), newNext(b, scriptNext, st)
	copied := 0 // b[:copied] is in out (nothing while fixed is 0)
	scan := 0   // where the next call frame is looked for
	for values := 0; ; values++ {
		if values%repairCheck == 0 && ctx.Err() != nil {
			return b, 0, 0
		}
		i := fn.from(scan)
		if i == len(b) {
			break
		}
		start := i + len(functionKey)
		// The function name ends at the moduleName or scriptId member.
		endS := script.from(start)
		if endS == len(b) {
			return b, 0, 0 // not the ArkTS layout
		}
		ends := []int{endS}
		if endM := mod.from(start); endM < endS {
			// The module name ends at the scriptId member after it (not
			// one that overlaps the moduleName member's own bytes).
			if endS = script.from(endM + len(moduleNext)); endS == len(b) {
				return b, 0, 0
			}
			ends = []int{endM, endS}
		}
		vstart := start
		for _, vend := range ends {
			if raw := b[vstart:vend]; needsEscape(raw) {
				if fixed == 0 {
					first = vstart
					out = make([]byte, 0, len(b)+len(b)/64)
				}
				out = append(out, b[copied:vstart]...)
				out = appendEscaped(out, raw)
				copied = vend
				fixed++
			}
			vstart = vend + len(moduleNext)
		}
		scan = endS
	}
	if fixed == 0 {
		return b, 0, 0
	}
	return append(out, b[copied:]...), fixed, first
}

func needsEscape(raw []byte) bool {
	return bytes.IndexByte(raw, '"') >= 0 || bytes.IndexByte(raw, '\\') >= 0
}

// appendEscaped appends raw as the inside of a JSON string, escaping '"' and
// '\'.
func appendEscaped(dst, raw []byte) []byte {
	for _, c := range raw {
		if c == '"' || c == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, c)
	}
	return dst
}
