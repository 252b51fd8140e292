package jsonscan

import "testing"

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
