package geo

import (
	"math/rand/v2"
	"testing"
)

// Classify must agree with testing each member: no member of an Outside
// cell matches, every member of an Inside cell does.
func TestClassifyAgreesWithMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	counts := [3]int{}
	for range 3000 {
		lon, lat := 4+rng.Float64()*2, 51.5+rng.Float64()*1.5
		if rng.IntN(4) == 0 {
			lon, lat = rng.Float64()*360-180, rng.Float64()*170-85
		}
		s := NewSearch(lon, lat, Shape{Radius: rng.Float64() * 30, Unit: 1000})
		// A random aligned cell near the centre, 4^k scores wide.
		k := uint(2 * (2 + rng.IntN(14)))
		plon, plat := lon+rng.NormFloat64()*0.2, lat+rng.NormFloat64()*0.2
		if !Valid(plon, plat) {
			continue
		}
		start := uint64(Encode(plon, plat)) >> k << k
		lo, hi := float64(start), float64(start+1<<k)
		class := s.Classify(lo, hi)
		counts[class]++
		for range 50 {
			score := float64(start + rng.Uint64N(1<<k))
			_, ok := s.Match(Decode(score))
			if (class == Outside && ok) || (class == Inside && !ok) {
				t.Fatalf("search %+v at (%v, %v): cell [%v, %v) classed %d, but member %v matches=%v", s.Shape, lon, lat, lo, hi, class, score, ok)
			}
		}
	}
	if counts[Outside] < 100 || counts[Inside] < 100 {
		t.Fatalf("too few decided cells to mean anything: %v", counts)
	}
}
