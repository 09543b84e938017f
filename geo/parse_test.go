package geo

import (
	"math"
	"strings"
	"testing"
)

func TestParseFloat(t *testing.T) {
	negZero := math.Copysign(0, -1)
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"5", 5, true}, {"+5", 5, true}, {"-5", -5, true}, {".5", 0.5, true}, {"5.", 5, true},
		{"1e1", 10, true}, {"1E+01", 10, true}, {"1e-1", 0.1, true}, {"13.361389", 13.361389, true},
		{"0x10", 16, true}, {"0X10", 16, true}, {"0x1p4", 16, true}, {"0x1.8", 1.5, true}, {"-0x.8p1", -1, true},
		{"0xAbC", 0xabc, true}, {"0x1P-1074", 5e-324, true}, {"0x0", 0, true},
		{"inf", math.Inf(1), true}, {"-inf", math.Inf(-1), true}, {"+INF", math.Inf(1), true},
		{"infinity", math.Inf(1), true}, {"-InFiNiTy", math.Inf(-1), true},
		{"1e-310", 1e-310, true}, {"4.9e-324", 5e-324, true}, {"2.5e-324", 5e-324, true},
		{"0", 0, true}, {"-0", negZero, true}, {"0e99999", 0, true}, {"-0.0e-99999", negZero, true},
		{"1.7976931348623157e308", math.MaxFloat64, true},
		{"1" + strings.Repeat("0", 20000) + "e-20000", 1, true},
		{"0." + strings.Repeat("0", 20000) + "1e20001", 1, true},
		{"0x" + strings.Repeat("0", 300) + "1p-4", 0.0625, true},
		// rejected
		{"", 0, false}, {" 5", 0, false}, {"5 ", 0, false}, {"\t5", 0, false}, {"5\x00", 0, false},
		{"nan", 0, false}, {"NaN", 0, false}, {"-nan", 0, false}, {"nan(123)", 0, false},
		{"1e400", 0, false}, {"-1e400", 0, false}, {"1e-400", 0, false}, {"-1e-400", 0, false},
		{"2e-324", 0, false}, {"1e99999", 0, false}, {"0x1p99999", 0, false}, {"0x1p-99999", 0, false},
		{"1_0", 0, false}, {"0x_1p4", 0, false}, {"0x", 0, false}, {"0x.", 0, false}, {"0xg", 0, false},
		{"1e", 0, false}, {"1e+", 0, false}, {"0x1p", 0, false}, {".", 0, false}, {"+", 0, false},
		{"-", 0, false}, {"e5", 0, false}, {"inf ", 0, false}, {"infinit", 0, false}, {"in", 0, false},
		{"1.2.3", 0, false}, {"--1", 0, false}, {"+-1", 0, false}, {"1,5", 0, false}, {"abc", 0, false},
		{"0x1.8.1", 0, false}, {"1e5.5", 0, false},
	}
	for _, tc := range tests {
		got, ok := ParseFloat([]byte(tc.in))
		if ok != tc.ok || (ok && (got != tc.want || math.Signbit(got) != math.Signbit(tc.want))) {
			in := tc.in
			if len(in) > 40 {
				in = in[:40] + "..."
			}
			t.Errorf("ParseFloat(%q) = %v,%v; want %v,%v", in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseFloatNoAlloc(t *testing.T) {
	in := []byte("-73.9454966")
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := ParseFloat(in); !ok {
			t.Fatal("rejected")
		}
	})
	if allocs != 0 {
		t.Fatalf("ParseFloat allocates %v times per call", allocs)
	}
}

func TestParseInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"1", 1, true}, {"-1", -1, true}, {"10", 10, true},
		{"9223372036854775807", math.MaxInt64, true}, {"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775809", 0, false},
		{"18446744073709551616", 0, false}, {"99999999999999999999", 0, false},
		{"", 0, false}, {"-", 0, false}, {"+1", 0, false}, {"01", 0, false}, {"-0", 0, false},
		{"00", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"1.0", 0, false}, {"1e3", 0, false},
		{"0x10", 0, false}, {"-01", 0, false}, {"000000000000000000001", 0, false},
	}
	for _, tc := range tests {
		got, ok := ParseInt([]byte(tc.in))
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseInt(%q) = %v,%v; want %v,%v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseUnit(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"m", 1, true}, {"M", 1, true}, {"km", 1000, true}, {"KM", 1000, true}, {"Km", 1000, true},
		{"kM", 1000, true}, {"ft", 0.3048, true}, {"FT", 0.3048, true}, {"mi", 1609.34, true},
		{"MI", 1609.34, true}, {"mI", 1609.34, true}, {"m\x00x", 1, true},
		{"", 0, false}, {"meters", 0, false}, {"k", 0, false}, {"mm", 0, false}, {" m", 0, false},
		{"m ", 0, false}, {"\x00m", 0, false}, {"kn", 0, false}, {"\x0d", 0, false},
	}
	for _, tc := range tests {
		got, ok := ParseUnit([]byte(tc.in))
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseUnit(%q) = %v,%v; want %v,%v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestValidAndError(t *testing.T) {
	tests := []struct {
		lon, lat float64
		valid    bool
		msg      string
	}{
		{0, 0, true, ""},
		{-180, -85.05112878, true, ""},
		{180, 85.05112878, true, ""},
		{500, 1, false, "ERR invalid longitude,latitude pair 500.000000,1.000000"},
		{0, 85.05112879, false, "ERR invalid longitude,latitude pair 0.000000,85.051129"},
		{math.Inf(1), 0, false, "ERR invalid longitude,latitude pair inf,0.000000"},
		{0, math.Inf(-1), false, "ERR invalid longitude,latitude pair 0.000000,-inf"},
		{-180.0000001, 0, false, "ERR invalid longitude,latitude pair -180.000000,0.000000"},
		{1e30, 0, false, "ERR invalid longitude,latitude pair 1000000000000000019884624838656.000000,0.000000"},
		{math.NaN(), 0, false, "ERR invalid longitude,latitude pair nan,0.000000"},
	}
	for _, tc := range tests {
		if got := Valid(tc.lon, tc.lat); got != tc.valid {
			t.Errorf("Valid(%v,%v) = %v", tc.lon, tc.lat, got)
		}
		if tc.msg != "" {
			if got := InvalidPairError(tc.lon, tc.lat); got != tc.msg {
				t.Errorf("InvalidPairError(%v,%v) = %q, want %q", tc.lon, tc.lat, got, tc.msg)
			}
		}
	}
}
