package tests

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Value pools for the random command streams. Everything here is chosen to
// hit the edges GEO-SPEC.md documents: poles, the antimeridian, the
// overflowing edges, ties, tiny and huge radii, strtod quirks.

const maxLat = 85.05112878

// area is a place where random points cluster.
type area struct {
	name             string
	lon, lat         float64 // centre
	halfLon, halfLat float64 // half extent in degrees
}

// dataAreas are where the random data lives; the adversarial region map
// grids exactly these areas.
var dataAreas = []area{
	{"amsterdam", 4.8952, 52.3702, 0.06, 0.04},
	{"sicily", 14.2, 37.6, 1.2, 0.8},
	{"nyc", -73.97, 40.75, 0.1, 0.08},
	{"sydney", 151.2093, -33.8688, 0.06, 0.05},
	{"fiji", 180, -17.7, 0.5, 0.4}, // straddles the antimeridian
	{"svalbard", 15.6, 78.2, 2.0, 0.6},
	{"north", 0, 84.8, 180, 0.25},
	{"south", 0, -84.8, 180, 0.25},
	{"origin", 0, 0, 0.0006, 0.0006},
}

type point struct{ lon, lat float64 }

// edgePoints are exact values with documented special behaviour.
var edgePoints = []point{
	{180, 0}, {-180, 0}, {180, 36}, {-180, 36}, {180, -17.7}, {-180, -17.7},
	{0, maxLat}, {0, -maxLat}, {0, 85.05112877}, {180, maxLat}, {-180, -maxLat},
	{0, 0}, {13.361389, 38.115556}, {15.087269, 37.502669}, {179.9999, 85},
	{-114.226074, 84.177962}, {-40.045207, 79.9}, {0.000001, 0}, {0.00001, 0},
}

// badFloats fail strtod-style parsing ("not a valid float" and friends).
var badFloats = []string{"nan", "NaN", "1e400", "-1e400", "1e-400", " 5", "5 ", "", "abc",
	"1,5", "0x", "1e", "--1", "+-1", "5\x00", "1_0", "\t1"}

// oddValidFloats parse fine with strtod (some give out-of-range pairs).
var oddValidFloats = []string{"+5", ".5", "5.", "1e1", "0x10", "0x1p4", "-0", "+0", "1e-310",
	"inf", "-inf", "infinity", "+inf", "1E1", "00012", "-.5e1", "200", "-180.0000001",
	"85.05112879", "-85.05112879", "90", "1e300", "180.0", "-180"}

var goodUnits = []string{"m", "km", "ft", "mi", "M", "KM", "Km", "kM", "FT", "Mi", "MI"}
var badUnits = []string{"meters", "", "k", "mm", "kms", "miles", "yd", "m ", " km", "\x00"}
var unitFactor = map[string]float64{"m": 1, "km": 1000, "ft": 0.3048, "mi": 1609.34}

var badInts = []string{"01", "-0", "+1", " 1", "1 ", "abc", "1.0", "", "9223372036854775808",
	"-9223372036854775809", "0x10", "1e3"}

// specialMembers are binary and odd member names.
var specialMembers = []string{"", "\x00", "a\x00b", "a\r\nb", "\r\n", "4545", "-0", "1e5",
	"ünïcødé", "Palermo", "Catania", "m 1", "\xff\xfe", "*1", "$-1",
	strings.Repeat("long-member-", 7), "wtc one", "central park n/q/r"}

// scorePool mixes geo scores, plain numbers and the odd ones of §3.2.
// "-0" is left out on purpose: Redis shows it as "0" or "-0" depending on
// the key's encoding (listpack or skiplist); edgecases_test.go pins both.
var scorePool = []string{"0", "1", "1.5", "-1", "0.1", "1e20", "inf", "-inf", "+inf",
	"3479099956230698", "3479447370796909", "3377699720527872", "6755399441055744",
	"10133099161583616", "4503599627370496", "1125899906842624", "2251799813685248",
	"1791875761332224", "9007199254740993", "-3e-5", "1e-310", "0x10", "123456789.123"}

var badScores = []string{"nan", "abc", "", " 1", "1e400", "--1", "1 "}

// valueGen draws values from one seeded source.
type valueGen struct {
	r       *rand.Rand
	history []point  // recent points, reused to make ties
	added   []string // recently added members, so lookups mostly hit
}

func (v *valueGen) chance(p float64) bool  { return v.r.Float64() < p }
func (v *valueGen) pick(s []string) string { return s[v.r.IntN(len(s))] }
func (v *valueGen) uniform(lo, hi float64) float64 {
	return lo + (hi-lo)*v.r.Float64()
}

// randCase returns word in upper, lower or mixed case.
func (v *valueGen) randCase(word string) string {
	switch n := v.r.IntN(10); {
	case n < 7:
		return strings.ToUpper(word)
	case n < 9:
		return strings.ToLower(word)
	default:
		b := []byte(strings.ToLower(word))
		for i := range b {
			if v.chance(0.5) {
				b[i] = strings.ToUpper(string(b[i]))[0]
			}
		}
		return string(b)
	}
}

// point returns a position, mostly clustered in dataAreas.
func (v *valueGen) point() point {
	var p point
	switch n := v.r.IntN(100); {
	case n < 6:
		p = edgePoints[v.r.IntN(len(edgePoints))]
	case n < 14 && len(v.history) > 0:
		p = v.history[v.r.IntN(len(v.history))] // a tie with an earlier point
	case n < 20:
		a := dataAreas[v.r.IntN(len(dataAreas))]
		p = point{a.lon, a.lat}
	case n < 27:
		p = point{v.uniform(-180, 180), v.uniform(-85, 85)}
	default:
		a := dataAreas[v.r.IntN(len(dataAreas))]
		p = point{a.lon + v.uniform(-a.halfLon, a.halfLon), a.lat + v.uniform(-a.halfLat, a.halfLat)}
		if p.lon > 180 {
			p.lon -= 360
		}
		if p.lon < -180 {
			p.lon += 360
		}
		p.lat = math.Max(-85.0511, math.Min(85.0511, p.lat))
	}
	if len(v.history) < 64 {
		v.history = append(v.history, p)
	} else {
		v.history[v.r.IntN(len(v.history))] = p
	}
	return p
}

// coord formats a valid coordinate in one of the many ways clients do.
func (v *valueGen) coord(x float64) string {
	switch n := v.r.IntN(20); {
	case n < 12:
		return strconv.FormatFloat(x, 'f', 6, 64)
	case n < 15:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case n < 17:
		return strconv.FormatFloat(x, 'f', v.r.IntN(10), 64)
	case n < 18:
		return strconv.FormatFloat(x, 'e', -1, 64)
	case n < 19:
		return strconv.FormatFloat(x, 'g', 17, 64)
	default:
		if x >= 0 {
			return "+" + strconv.FormatFloat(x, 'f', 5, 64)
		}
		return strconv.FormatFloat(x, 'f', 7, 64)
	}
}

// centre returns a search centre: often a position already used.
func (v *valueGen) centre(pBad float64) (string, string) {
	if len(v.history) > 0 && v.chance(0.4) {
		p := v.history[v.r.IntN(len(v.history))]
		return v.coord(p.lon), v.coord(p.lat)
	}
	return v.lonLat(pBad)
}

// lonLat returns a coordinate pair, bad with probability pBad.
func (v *valueGen) lonLat(pBad float64) (string, string) {
	p := v.point()
	lon, lat := v.coord(p.lon), v.coord(p.lat)
	if v.chance(pBad) {
		bad := v.badFloat()
		if v.chance(0.5) {
			lon = bad
		} else {
			lat = bad
		}
	}
	return lon, lat
}

func (v *valueGen) badFloat() string {
	if v.chance(0.5) {
		return v.pick(badFloats)
	}
	return v.pick(oddValidFloats)
}

func (v *valueGen) unit() string {
	if v.chance(0.7) {
		return v.pick([]string{"m", "km", "km", "mi", "ft"})
	}
	return v.pick(goodUnits)
}

// distance returns a radius or box side in unit, from 0.1 m to ~3000 km,
// and sometimes one of the special values.
func (v *valueGen) distance(unit string) string {
	if v.chance(0.1) {
		return v.pick([]string{"0", "-0", "inf", "+inf", "1e-310", "0x10", "50000", "50000000",
			"20037726.37", "1e30", "0.000001", ".5"})
	}
	var metres float64
	switch n := v.r.IntN(20); {
	case n < 3:
		metres = math.Pow(10, v.uniform(-1, 2)) // 0.1 m to 100 m: cells, ties
	case n < 14:
		metres = math.Pow(10, v.uniform(3, 5.7)) // 1 km to 500 km
	default:
		metres = math.Pow(10, v.uniform(4, 6.5)) // 10 km to 3000 km
	}
	x := metres / unitFactor[strings.ToLower(unit)]
	switch v.r.IntN(4) {
	case 0:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case 1:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return strconv.FormatFloat(x, 'f', 3, 64)
	}
}

func (v *valueGen) badDistance() string {
	return v.pick([]string{"-1", "-0.001", "-inf", "nan", "abc", "", " 1", "1e400", "1km"})
}

// count returns a COUNT argument.
func (v *valueGen) count() string {
	return v.pick([]string{"1", "1", "2", "3", "3", "5", "10", "20", "100", "100000"})
}

func (v *valueGen) badCount() string {
	if v.chance(0.4) {
		return v.pick([]string{"0", "-1", "-100"})
	}
	return v.pick(badInts)
}

func (v *valueGen) score() string {
	switch n := v.r.IntN(10); {
	case n < 4:
		return v.pick(scorePool)
	case n < 7:
		// A valid 52-bit geo score: decodes to an ordinary position.
		return strconv.FormatUint(v.r.Uint64N(1<<52), 10)
	case n < 9:
		return strconv.Itoa(v.r.IntN(200) - 100)
	default:
		return strconv.FormatFloat(v.uniform(-1e6, 1e6), 'g', -1, 64)
	}
}

// member returns a member name: mostly m0..m299, sometimes a binary one.
func (v *valueGen) member() string {
	if v.chance(0.08) {
		return v.pick(specialMembers)
	}
	return fmt.Sprintf("m%d", v.r.IntN(300))
}

// addedMember returns a member that was probably added recently.
func (v *valueGen) addedMember() string {
	if len(v.added) == 0 || v.chance(0.3) {
		return v.member()
	}
	return v.added[v.r.IntN(len(v.added))]
}

// newMember returns a member for a write and remembers it.
func (v *valueGen) newMember() string {
	m := v.member()
	if len(v.added) < 32 {
		v.added = append(v.added, m)
	} else {
		v.added[v.r.IntN(len(v.added))] = m
	}
	return m
}

func (v *valueGen) members(lo, hi int) []string {
	n := lo + v.r.IntN(hi-lo+1)
	out := make([]string, n)
	for i := range out {
		out[i] = v.member()
	}
	return out
}
