package jsonscan

import "math"

// ScaleDecimal converts the decimal text of a number (JSON syntax, and the
// numeric strings trace files use: "+10.5", ".75", "246.", "1e3") to an
// integer of unit 10^-scale of it, exactly: the digits are shifted, not passed
// through float64, and digits beyond the unit are rounded half away from zero.
// For µs → ns, scale is 3. ok is false for text that is not such a number or
// whose value does not fit in an int64.
//
// The usual text, digits with at most scale of them after a point (a trace's
// 1795349816583.282 µs), is read in one pass (plainDecimal); any other goes
// through the digits' shift (scaleDecimal).
func ScaleDecimal(b []byte, scale int) (v int64, ok bool) {
	if v, ok := plainDecimal(b, scale); ok {
		return v, true
	}
	return scaleDecimal(b, scale)
}

// plainDecimal reads digits with at most scale of them after a point, 18
// digits in all at most, as an integer of unit 10^-scale: what scaleDecimal
// gives for them. ok is false for any other text (a sign, a point without
// digits on both sides, more digits, an exponent), which scaleDecimal then
// reads.
func plainDecimal(b []byte, scale int) (int64, bool) {
	if scale < 0 || scale > 18 {
		return 0, false
	}
	var v int64
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		v = v*10 + int64(b[i]-'0')
	}
	if i == 0 || i > 18-scale { // 18 digits fit an int64
		return 0, false
	}
	n := 0
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9' && n < scale; i++ {
			v = v*10 + int64(b[i]-'0')
			n++
		}
		if n == 0 {
			return 0, false
		}
	}
	if i != len(b) {
		return 0, false
	}
	for ; n < scale; n++ {
		v *= 10
	}
	return v, true
}

// scaleDecimal is ScaleDecimal for every text: the significant digits are
// collected, the point moved by the exponent and the scale, and the digits
// beyond the unit rounded.
func scaleDecimal(b []byte, scale int) (v int64, ok bool) {
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
