package jsonscan

import "math"

// ScaleDecimal converts the decimal text of a number (JSON syntax, and the
// numeric strings trace files use: "+10.5", ".75", "246.", "1e3") to an
// integer of unit 10^-scale of it, exactly: the digits are shifted, not passed
// through float64, and digits beyond the unit are rounded half away from zero.
// For µs → ns, scale is 3. ok is false for text that is not such a number or
// whose value does not fit in an int64.
func ScaleDecimal(b []byte, scale int) (v int64, ok bool) {
	i := 0
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var digits []byte // significant digits of integer and fraction parts
	point := -1       // number of integer digits
	start := i
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		digits = append(digits, b[i])
	}
	intDigits := i - start
	if i < len(b) && b[i] == '.' {
		i++
		fs := i
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			digits = append(digits, b[i])
		}
		if intDigits == 0 && i == fs {
			return 0, false // "." alone
		}
	}
	if len(digits) == 0 {
		return 0, false
	}
	point = intDigits
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		es := i
		exp := 0
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if exp < 100000 {
				exp = exp*10 + int(b[i]-'0')
			}
		}
		if i == es {
			return 0, false
		}
		if eneg {
			exp = -exp
		}
		point += exp
	}
	if i != len(b) {
		return 0, false
	}
	point += scale // the decimal point moves right by scale digits
	// Integer part: digits[:point] (zero-padded), rounding on digits[point].
	var u uint64
	for k := 0; k < point; k++ {
		d := uint64(0)
		if k < len(digits) {
			d = uint64(digits[k] - '0')
		}
		if u > (math.MaxUint64-d)/10 {
			return 0, false
		}
		u = u*10 + d
	}
	if point >= 0 && point < len(digits) && digits[point] >= '5' {
		u++
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}
