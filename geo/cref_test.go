//go:build cgo

package geo

import (
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"geoshard/geo/internal/cref"
)

// randomDoubles mixes ordinary, huge, tiny, integral and special values.
func randomDoubles(rng *rand.Rand, n int) []float64 {
	out := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1.5, 2.5, -2.5, 1e20, -1e20, math.Exp2(52),
		math.Exp2(53), math.Exp2(63), math.Exp2(64), math.MaxFloat64, -math.MaxFloat64, 5e-324, -5e-324,
		math.Inf(1), math.Inf(-1), 4503599627370495.5, 9223372036854775807, 0.49999999999999994}
	for len(out) < n {
		switch rng.Intn(5) {
		case 0:
			out = append(out, math.Float64frombits(rng.Uint64()))
		case 1:
			out = append(out, (rng.Float64()-0.5)*400)
		case 2:
			out = append(out, math.Trunc(rng.Float64()*math.Exp2(float64(rng.Intn(66))))+float64(rng.Intn(3))*0.5)
		case 3:
			out = append(out, rng.NormFloat64()*math.Pow(10, float64(rng.Intn(40)-20)))
		default:
			out = append(out, float64(rng.Int63n(1<<20))/4)
		}
	}
	return out
}

func TestAgainstLibcConversions(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, x := range randomDoubles(rng, 20000) {
		if x == x { // NaN spelling is libc specific and never reaches these functions
			if got, want := string(appendCF(nil, x)), cref.PrintfF(x); got != want {
				t.Fatalf("%%f of %v: got %q want %q", x, got, want)
			}
			want := cref.PrintfLf17(x)
			if strings.Contains(want, ".") && !strings.ContainsAny(want, "in") {
				want = strings.TrimRight(want, "0")
				want = strings.TrimSuffix(want, ".")
				if want == "-0" {
					want = "0"
				}
			}
			if got := string(AppendCoord(nil, x)); got != want {
				t.Fatalf("%%.17Lf of %v: got %q want %q", x, got, want)
			}
			if got, want := string(AppendScore(nil, x)), cref.PrintfG17(x); got != want {
				t.Fatalf("%%.17g of %v: got %q want %q", x, got, want)
			}
		}
		if got, want := cUint64(x), cref.Uint64(x); got != want {
			t.Fatalf("(uint64_t)%v: got %#x want %#x", x, got, want)
		}
		if got, want := llrint(x), cref.Llrint(x); got != want {
			t.Fatalf("llrint(%v): got %d want %d", x, got, want)
		}
		if got, want := llrint(x*10000), cref.Llrint(x*10000); got != want {
			t.Fatalf("llrint(%v): got %d want %d", x*10000, got, want)
		}
	}
}

// TestDistanceMatchesLibm checks the single-call C haversine against the
// same formula evaluated with libm functions called one by one.
func TestDistanceMatchesLibm(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	ref := func(lon1, lat1, lon2, lat2 float64) float64 {
		lon1r, lon2r := float64(lon1*degToRad), float64(lon2*degToRad)
		v := cref.Sin((lon2r - lon1r) / 2)
		if v == 0 {
			return latDistance(lat1, lat2)
		}
		lat1r, lat2r := float64(lat1*degToRad), float64(lat2*degToRad)
		u := cref.Sin((lat2r - lat1r) / 2)
		a := float64(u*u) + float64(float64(float64(cref.Cos(lat1r)*cref.Cos(lat2r))*v)*v)
		return (2.0 * EarthRadius) * cref.Asin(math.Sqrt(a))
	}
	goDiffs := 0
	for i := 0; i < 20000; i++ {
		lon1, lat1 := (rng.Float64()-0.5)*360, (rng.Float64()-0.5)*170
		lon2, lat2 := lon1+rng.NormFloat64()*math.Pow(10, float64(rng.Intn(5)-3)), lat1+rng.NormFloat64()
		if i%3 == 0 {
			lon2, lat2 = (rng.Float64()-0.5)*360, (rng.Float64()-0.5)*170
		}
		if i%7 == 0 {
			lon2 = lon1
		}
		got, want := Distance(lon1, lat1, lon2, lat2), ref(lon1, lat1, lon2, lat2)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Distance(%v,%v,%v,%v) = %v, libm formula %v", lon1, lat1, lon2, lat2, got, want)
		}
		if back := Distance(lon2, lat2, lon1, lat1); back != got {
			t.Fatalf("Distance not symmetric: %v vs %v", got, back)
		}
		if distanceGo(lon1, lat1, lon2, lat2) != got {
			goDiffs++
		}
	}
	t.Logf("Go math differs from libm in the last bit for %d of 20000 distances", goDiffs)
}

func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"5", "+5", ".5", "5.", "1e1", "0x10", "0x1p4", "0x1.8P-3", "inf", "-Infinity",
		"nan", "1e400", "1e-400", "1e-310", " 5", "5 ", "", "1_0", "0x", "1e", "2.4703282292062328e-324",
		"0x1p-1075", "0x1.0000000000001p-1074", "0e-99999", "-0", "1.7976931348623158e308", "0x.8", "00x1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := ParseFloat(b)
		want, wok := cref.String2d(b)
		if ok != wok || (ok && math.Float64bits(got) != math.Float64bits(want)) {
			t.Fatalf("ParseFloat(%q) = %v,%v; strtod says %v,%v", b, got, ok, want, wok)
		}
	})
}

// TestParseFloatAgainstStrtod runs generated inputs through both parsers
// (the fuzz target only replays its seeds in a normal test run).
func TestParseFloatAgainstStrtod(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	alphabet := "0123456789.eE+-xXpPabcdfinINFty _"
	var inputs []string
	for _, x := range randomDoubles(rng, 3000) {
		inputs = append(inputs, strconv.FormatFloat(x, 'g', -1, 64), strconv.FormatFloat(x, 'e', 25, 64),
			strconv.FormatFloat(x, 'x', -1, 64), strconv.FormatFloat(x, 'x', 3, 64))
	}
	for i := 0; i < 20000; i++ {
		n := 1 + rng.Intn(12)
		b := make([]byte, n)
		for j := range b {
			b[j] = alphabet[rng.Intn(len(alphabet))]
		}
		inputs = append(inputs, string(b))
		// Mostly-valid shapes: digits, optional point, optional exponent.
		s := strconv.Itoa(rng.Intn(100000))
		if rng.Intn(2) == 0 {
			s += "." + strconv.Itoa(rng.Intn(1000))
		}
		if rng.Intn(2) == 0 {
			s += "e" + strconv.Itoa(rng.Intn(700)-350)
		}
		if rng.Intn(4) == 0 {
			s = "0x" + strconv.FormatInt(rng.Int63(), 16) + "p" + strconv.Itoa(rng.Intn(2300)-1150)
		}
		inputs = append(inputs, s)
	}
	for _, s := range inputs {
		got, ok := ParseFloat([]byte(s))
		want, wok := cref.String2d([]byte(s))
		if ok != wok || (ok && math.Float64bits(got) != math.Float64bits(want)) {
			t.Fatalf("ParseFloat(%q) = %v,%v; strtod says %v,%v", s, got, ok, want, wok)
		}
	}
}
