package geo

import (
	"math"
	"testing"
)

// Coordinates of tests/unit/geo.tcl and GEO-SPEC.md §3, §10.
var knownPoints = []struct {
	name     string
	lon, lat float64
	score    float64
	lonS     string // GEOPOS text
	latS     string
	hash     string
}{
	{"Palermo", 13.361389, 38.115556, 3479099956230698, "13.36138933897018433", "38.11555639549629859", "sqc8b49rny0"},
	{"Catania", 15.087269, 37.502669, 3479447370796909, "15.08726745843887329", "37.50266842333162032", "sqdtr74hyu0"},
	{"origin", 0, 0, 3377699720527872, "0.00000268220901489", "0.00000126736058093", "s0000000000"},
	{"negzero", math.Copysign(0, -1), math.Copysign(0, -1), 3377699720527872, "0.00000268220901489", "0.00000126736058093", "s0000000000"},
	{"west", -180, 0, 1125899906842624, "-179.99999731779098511", "0.00000126736058093", "80000000000"},
	{"south", 0, -85.05112878, 2251799813685248, "0.00000268220901489", "-85.05112751263942528", ""},
	{"north edge", 0, 85.05112878, 6755399441055744, "0.00000268220901489", "85.0511287799999991", "up05b5048p0"},
	{"east edge", 180, 0, 10133099161583616, "180", "0.00000126736058093", "80000000000"},
	{"east edge rounded", 180, -28.20, 9307451917664516, "180", "", ""},
	{"edge1", 12.758489, 38.788135, 0, "12.7584877610206604", "38.78813451624225195", ""},
	{"edge2", 17.241510, 38.788135, 0, "17.24151045083999634", "38.78813451624225195", ""},
	{"wtc one", -74.0131604, 40.7126674, 1791873972053020, "", "", ""},
	{"union square", -73.9903085, 40.7362513, 1791875485187452, "", "", ""},
	{"central park n/q/r", -73.9733487, 40.7648057, 1791875761332224, "-73.97334784269332886", "40.76480639569881959", ""},
	{"4545", -73.9564142, 40.7480973, 1791875796750882, "-73.95641237497329712", "40.74809751381645384", ""},
	{"lic market", -73.9454966, 40.747533, 1791875804419201, "", "", ""},
	{"q4", -73.9375699, 40.7498929, 1791875830079666, "", "", ""},
	{"jfk", -73.7858139, 40.6428986, 1791895905559723, "", "", "dr5x0yyf1c0"},
	{"spain", -5.6, 42.6, 0, "", "", "ezs42e44yx0"},
}

func TestEncodeDecodeHashKnown(t *testing.T) {
	for _, p := range knownPoints {
		s := Encode(p.lon, p.lat)
		if p.score != 0 && s != p.score {
			t.Errorf("%s: Encode(%v,%v) = %.17g, want %.17g", p.name, p.lon, p.lat, s, p.score)
		}
		lon, lat := Decode(s)
		if got := string(AppendCoord(nil, lon)); p.lonS != "" && got != p.lonS {
			t.Errorf("%s: lon = %s, want %s", p.name, got, p.lonS)
		}
		if got := string(AppendCoord(nil, lat)); p.latS != "" && got != p.latS {
			t.Errorf("%s: lat = %s, want %s", p.name, got, p.latS)
		}
		if got := Hash(s); p.hash != "" && got != p.hash {
			t.Errorf("%s: hash = %s, want %s", p.name, got, p.hash)
		}
	}
}

func TestEncodeOverflowIntegers(t *testing.T) {
	// The exact integer before the double rounding of §3.1.
	if got := encodeBits(lonRange, latRange, 180, -28.20, Step); got != 9307451917664517 {
		t.Fatalf("bits = %d", got)
	}
	if Encode(181, 0) != 0 || Encode(0, 86) != 0 || Encode(math.NaN(), 0) != 0 {
		t.Fatal("invalid input must encode to 0")
	}
}

func TestDecodeOddScores(t *testing.T) {
	zeroLon, zeroLat := "-179.99999731779098511", "-85.05112751263942528"
	tests := []struct {
		score      float64
		lonS, latS string
	}{
		{0, zeroLon, zeroLat},
		{1e20, zeroLon, zeroLat},
		{math.Inf(1), zeroLon, zeroLat},
		{-1, "180", "85.0511287799999991"},
		{math.Exp2(52), "", "85.0511287799999991"},
		{3479099956230698, "13.36138933897018433", "38.11555639549629859"},
		{3479099956230698.5, "13.36138933897018433", "38.11555639549629859"},
	}
	for _, tc := range tests {
		lon, lat := Decode(tc.score)
		if got := string(AppendCoord(nil, lon)); tc.lonS != "" && got != tc.lonS {
			t.Errorf("Decode(%g) lon = %s, want %s", tc.score, got, tc.lonS)
		}
		if got := string(AppendCoord(nil, lat)); got != tc.latS {
			t.Errorf("Decode(%g) lat = %s, want %s", tc.score, got, tc.latS)
		}
	}
	// 1.5 is treated as 1.
	l1, a1 := Decode(1)
	l2, a2 := Decode(1.5)
	if l1 != l2 || a1 != a2 {
		t.Errorf("Decode(1.5) != Decode(1)")
	}
}

func TestCUint64(t *testing.T) {
	tests := []struct {
		in   float64
		want uint64
	}{
		{0, 0}, {1.9, 1}, {-1, math.MaxUint64}, {-1.5, math.MaxUint64}, {-2, math.MaxUint64 - 1},
		{1e20, 0}, {math.Inf(1), 0}, {math.Inf(-1), 1 << 63}, {-1e20, 1 << 63},
		{math.Exp2(63), 1 << 63}, {math.Exp2(64) - 2048, math.MaxUint64 - 2047}, {math.Exp2(64), 0},
	}
	for _, tc := range tests {
		if got := cUint64(tc.in); got != tc.want {
			t.Errorf("cUint64(%g) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}

func TestInterleaveRoundTrip(t *testing.T) {
	for _, v := range [][2]uint32{{0, 0}, {1, 0}, {0, 1}, {1 << 25, 1 << 26}, {0xFFFFFFFF, 0x12345678}} {
		bits := interleave(v[0], v[1])
		la, lo := deinterleave(bits)
		if la != v[0] || lo != v[1] {
			t.Errorf("round trip %x %x -> %x %x", v[0], v[1], la, lo)
		}
	}
	if interleave(1, 0) != 1 || interleave(0, 1) != 2 || interleave(1<<25, 0) != 1<<50 {
		t.Error("lat bits must be even, lon bits odd")
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []float64{0, -1, 1.5, 1e20, math.Inf(1), math.Inf(-1), math.NaN(), 3479099956230698, 1 << 52, 1 << 53, -1e300, 5e-324} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, score float64) {
		lon, lat := Decode(score)
		if !Valid(lon, lat) {
			t.Fatalf("Decode(%v) = %v,%v out of range", score, lon, lat)
		}
		_ = Hash(score)
		// A decoded position re-encodes to its own cell (for scores that are
		// real cells).
		if score >= 0 && score < 1<<52 {
			if got := Encode(lon, lat); got != math.Trunc(score) {
				t.Fatalf("Encode(Decode(%v)) = %v", score, got)
			}
		}
	})
}
