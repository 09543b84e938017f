package geo

import (
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

func TestAppendCoord(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {-1e-20, "0"}, {180, "180"}, {-180, "-180"},
		{1.5, "1.5"}, {0.1, "0.10000000000000001"}, {13.36138933897018433, "13.36138933897018433"},
		{-179.99999731779098511, "-179.99999731779098511"}, {12.7584877610206604, "12.7584877610206604"},
		{85.05112878, "85.0511287799999991"}, {math.Exp2(-18), "0.00000381469726562"},
		{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"},
	}
	for _, tc := range tests {
		if got := string(AppendCoord([]byte("x"), tc.in)); got != "x"+tc.want {
			t.Errorf("AppendCoord(%v) = %q, want %q", tc.in, got, "x"+tc.want)
		}
	}
}

func TestAppendDist(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0.0000"}, {math.Copysign(0, -1), "0.0000"}, {0.775, "0.7750"}, {0.0001, "0.0001"},
		{0.00005, "0.0000"}, {0.00025, "0.0002"}, {1.23456, "1.2346"},
		{166274.15156960033, "166274.1516"}, {19909507.4083, "19909507.4083"}, {-0.5, "-0.5000"},
		{-0.00001, "0.0000"}, {math.NaN(), "-922337203685477.5808"}, {1e300, "-922337203685477.5808"},
	}
	for _, tc := range tests {
		if got := string(AppendDist([]byte("x"), tc.in)); got != "x"+tc.want {
			t.Errorf("AppendDist(%v) = %q, want %q", tc.in, got, "x"+tc.want)
		}
	}
}

func TestAppendScore(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "-0"}, {1.5, "1.5"}, {0.1, "0.10000000000000001"},
		{1e20, "1e+20"}, {1e16, "10000000000000000"}, {1e17, "1e+17"}, {1e-5, "1.0000000000000001e-05"},
		{3479099956230698, "3479099956230698"}, {10133099161583616, "10133099161583616"},
		{56.441257870158204, "56.441257870158204"}, {190.44242984775784, "190.44242984775784"},
		{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {-2.5, "-2.5"}, {123456789012345678, "1.2345678901234568e+17"},
	}
	for _, tc := range tests {
		if got := string(AppendScore(nil, tc.in)); got != tc.want {
			t.Errorf("AppendScore(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestAppendCoordFastPath compares the 128-bit fast path with strconv's
// exact 'f' formatting.
func TestAppendCoordFastPath(t *testing.T) {
	slow := func(x float64) string {
		s := strconv.FormatFloat(x, 'f', 17, 64)
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
		if s == "-0" {
			s = "0"
		}
		return s
	}
	rng := rand.New(rand.NewSource(6))
	fast := 0
	for i := 0; i < 300000; i++ {
		var x float64
		switch i % 4 {
		case 0:
			x = (rng.Float64() - 0.5) * 360
		case 1:
			x, _ = Decode(float64(rng.Int63n(1 << 52)))
		case 2:
			x = math.Float64frombits(rng.Uint64())
		default:
			x = math.Ldexp(float64(rng.Int63n(1<<20)), -rng.Intn(70)) // short binary fractions: exact ties
		}
		if x != x || math.IsInf(x, 0) {
			continue
		}
		if _, ok := appendFixed17(nil, x); ok {
			fast++
		}
		if got, want := string(AppendCoord(nil, x)), slow(x); got != want {
			t.Fatalf("AppendCoord(%v) = %s, want %s", x, got, want)
		}
	}
	if fast < 150000 {
		t.Fatalf("fast path used only %d times", fast)
	}
}
