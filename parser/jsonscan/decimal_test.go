package jsonscan

import (
	"math/rand/v2"
	"testing"

	"tracestreamer/internal/testutil"
)

func TestScaleDecimal(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"1", 1000, true},
		{"1.5", 1500, true},
		{"1.2345", 1235, true}, // rounded half away from zero
		{"1.2344", 1234, true},
		{"-1.2345", -1235, true},
		{"1795349816583.282", 1795349816583282, true}, // beyond float64's exact ns
		{"9007199254740993.001", 9007199254740993001, true},
		{".75", 750, true},
		{"246.", 246000, true},
		{"01.23", 1230, true},
		{"050", 50000, true},
		{"+10.5", 10500, true},
		{"1e3", 1000000, true},
		{"1.5E-3", 2, true}, // 1.5 ns
		{"2e-4", 0, true},
		{"9223372036854775.807", 9223372036854775807, true},
		{"9223372036854775.808", 0, false}, // overflows int64
		{"1.5e", 0, false},
		{"2e+", 0, false},
		{".", 0, false},
		{"+", 0, false},
		{"-", 0, false},
		{"inf", 0, false},
		{"nan", 0, false},
		{"0x10", 0, false},
		{"", 0, false},
		{"1 ", 0, false},
	}
	for _, tt := range tests {
		got, ok := ScaleDecimal([]byte(tt.in), 3)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ScaleDecimal(%q, 3) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if v, ok := ScaleDecimal([]byte("2.5"), 9); v != 2500000000 || !ok {
		t.Errorf("seconds to ns: %d %v", v, ok)
	}
}

// TestPlainDecimal: where plainDecimal reads a text, it reads what
// scaleDecimal reads, for the scales the parsers use and a larger one, on
// the usual texts and on random ones made of digits, points, signs and
// exponents around its limits; and it reads the usual texts.
func TestPlainDecimal(t *testing.T) {
	texts := []string{"0", "1", "12.5", "1795349816583.282", "1795349816583.2825", "999999999999999.999",
		"9999999999999999", "999999999999999999", "123.", ".5", "-1", "+1", "1e3", "1.5e2", "01", "1.0",
		"1.000", "", "1..2", "1.2.3", "\"12\""}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		const alphabet = "0123456789012345678901234567890123456789..-+e"
		b := make([]byte, rng.IntN(22))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, scale := range []int{0, 3, 9, 15} {
		read := 0
		for _, s := range texts {
			v, ok := plainDecimal([]byte(s), scale)
			if !ok {
				continue
			}
			read++
			if w, wok := scaleDecimal([]byte(s), scale); !wok || w != v {
				t.Fatalf("%q scale %d: plainDecimal %d, scaleDecimal %d (ok %v)", s, scale, v, w, wok)
			}
		}
		if read < 1000 {
			t.Errorf("scale %d: only %d texts read by plainDecimal", scale, read)
		}
	}
	for _, tc := range []struct {
		in    string
		scale int
		want  int64
	}{
		{"1795349816583.282", 3, 1795349816583282},
		{"12.5", 3, 12500},
		{"0", 3, 0},
		{"2.5", 9, 2500000000},
		{"42", 0, 42},
		{"999999999999999.999", 3, 999999999999999999},
	} {
		if v, ok := plainDecimal([]byte(tc.in), tc.scale); !ok || v != tc.want {
			t.Errorf("plainDecimal(%q, %d) = %d, %v; want %d", tc.in, tc.scale, v, ok, tc.want)
		}
	}
}

// FuzzScaleDecimal: where plainDecimal reads a text, scaleDecimal reads the
// same value; ScaleDecimal gives scaleDecimal's answer for every text.
func FuzzScaleDecimal(f *testing.F) {
	for _, s := range []string{"1795349816583.282", "1.2345", "-1.5", "1e3", "246.", ".75", "999999999999999.999"} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, b []byte, scale uint8) {
		testutil.CountExec("FuzzScaleDecimal")
		s := int(scale % 20)
		w, wok := scaleDecimal(b, s)
		if v, ok := plainDecimal(b, s); ok && (!wok || v != w) {
			t.Fatalf("%q scale %d: plainDecimal %d, scaleDecimal %d (ok %v)", b, s, v, w, wok)
		}
		if v, ok := ScaleDecimal(b, s); ok != wok || v != w {
			t.Fatalf("%q scale %d: ScaleDecimal %d %v, scaleDecimal %d %v", b, s, v, ok, w, wok)
		}
	})
}
