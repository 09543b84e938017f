package geo

import (
	"math"
	"math/bits"
)

// How a score range meets a search (Classify).
const (
	Partial = iota // some members may match: test each one
	Outside        // no member can match
	Inside         // every member matches
)

// Classify tells how the members with scores in [lo, hi) meet a circle
// search, where [lo, hi) is an aligned geohash cell: a power-of-four
// range whose scores all decode inside one rectangle. It lets a scan skip
// whole stretches of a Redis cell that lie outside the circle and take the
// ones deep inside without computing a distance, with the same members in
// the same order as testing each one. Polygons are classified the same way
// (Polygon.classify); boxes, and ranges that are not cells, are Partial.
func (s *Search) Classify(lo, hi float64) int {
	if (s.Shape.Box && s.Shape.Polygon == nil) || !(lo >= 0 && hi <= 1<<52 && hi > lo) {
		return Partial
	}
	start, width := uint64(lo), uint64(hi)-uint64(lo)
	k := bits.TrailingZeros64(width)
	if k%2 != 0 || width != 1<<k || start%width != 0 || float64(start) != lo {
		return Partial
	}
	step := uint(Step - k/2)
	a := decodeArea(start>>k, step)
	r := Rect{MinLon: a.lonMin, MinLat: a.latMin, MaxLon: a.lonMax, MaxLat: a.latMax}
	if p := s.Shape.Polygon; p != nil {
		return p.classify(r)
	}
	if s.near.Bound(r) > s.radiusM {
		return Outside
	}
	// Any point q of the cell is reached from its centre c by going along
	// c's meridian to q's latitude, then along q's parallel: a path no
	// shorter than the great circle.
	cLon, cLat := (a.lonMin+a.lonMax)/2, (a.latMin+a.latMax)/2
	minAbs := 0.0
	if a.latMin > 0 || a.latMax < 0 {
		minAbs = math.Min(math.Abs(a.latMin), math.Abs(a.latMax))
	}
	half := EarthRadius * ((a.latMax-a.latMin)/2*degToRad + math.Cos(minAbs*degToRad)*(a.lonMax-a.lonMin)/2*degToRad)
	if (Distance(s.Lon, s.Lat, cLon, cLat)+half)*(1+relMargin)+distMargin < s.radiusM {
		return Inside
	}
	return Partial
}
