package shard

import (
	"math"

	"geoshard/geo"
)

// Region geometry is planar in longitude/latitude: an edge is the straight
// line between its vertices on the equirectangular plane, which is what
// GIS tools draw and what makes point-in-polygon exact and cheap.

// rmEdge is a polygon edge stored bottom-up (y0 <= y1) so that two
// polygons sharing an edge compute the very same crossing abscissa, and a
// point on a shared border belongs to exactly one of them.
type rmEdge struct {
	x0, y0, x1, y1 float64
	k              float64 // dx/dy, 0 for horizontal edges
}

func rmMakeEdge(ax, ay, bx, by float64) rmEdge {
	if ay > by || (ay == by && ax > bx) {
		ax, ay, bx, by = bx, by, ax, ay
	}
	e := rmEdge{x0: ax, y0: ay, x1: bx, y1: by}
	if by != ay {
		e.k = (bx - ax) / (by - ay)
	}
	return e
}

// rmSeg is a directed segment (used for exposed borders).
type rmSeg struct{ ax, ay, bx, by float64 }

func (s rmSeg) bbox() geo.Rect {
	return geo.Rect{
		MinLon: math.Min(s.ax, s.bx), MinLat: math.Min(s.ay, s.by),
		MaxLon: math.Max(s.ax, s.bx), MaxLat: math.Max(s.ay, s.by),
	}
}

// rmOrientEps is the relative tolerance under which three points count as
// collinear: vertices that GIS tools place "on" a neighbour's edge are
// off it by rounding only.
const rmOrientEps = 1e-9

// rmOrient returns +1 when c is left of a->b, -1 when right, 0 when the
// three points are collinear within tolerance.
func rmOrient(ax, ay, bx, by, cx, cy float64) int {
	ux, uy := bx-ax, by-ay
	vx, vy := cx-ax, cy-ay
	cross := ux*vy - uy*vx
	tol := rmOrientEps * (math.Abs(ux) + math.Abs(uy)) * (math.Abs(vx) + math.Abs(vy))
	switch {
	case cross > tol:
		return 1
	case cross < -tol:
		return -1
	}
	return 0
}

// rmSegKind classifies how two segments meet.
type rmSegKind int

const (
	rmApart   rmSegKind = iota // no common point
	rmTouch                    // common point(s) at an endpoint, no crossing
	rmCross                    // proper crossing at interior points of both
	rmOverlap                  // collinear with a common part of positive length
)

// rmOnSeg reports whether c, already collinear with a-b, lies within its box.
func rmOnSeg(ax, ay, bx, by, cx, cy float64) bool {
	return cx >= math.Min(ax, bx) && cx <= math.Max(ax, bx) &&
		cy >= math.Min(ay, by) && cy <= math.Max(ay, by)
}

// rmIntersect classifies segments a and b. For rmOverlap, t0 < t1 are the
// parameters along a of the common part and same tells whether the two
// run the same way.
func rmIntersect(a, b rmSeg) (kind rmSegKind, t0, t1 float64, same bool) {
	o1 := rmOrient(a.ax, a.ay, a.bx, a.by, b.ax, b.ay)
	o2 := rmOrient(a.ax, a.ay, a.bx, a.by, b.bx, b.by)
	o3 := rmOrient(b.ax, b.ay, b.bx, b.by, a.ax, a.ay)
	o4 := rmOrient(b.ax, b.ay, b.bx, b.by, a.bx, a.by)
	if o1 == 0 && o2 == 0 {
		ux, uy := a.bx-a.ax, a.by-a.ay
		l2 := ux*ux + uy*uy
		s0 := ((b.ax-a.ax)*ux + (b.ay-a.ay)*uy) / l2
		s1 := ((b.bx-a.ax)*ux + (b.by-a.ay)*uy) / l2
		same = s1 > s0
		lo, hi := math.Max(0, math.Min(s0, s1)), math.Min(1, math.Max(s0, s1))
		switch {
		case hi-lo > 1e-12:
			return rmOverlap, lo, hi, same
		case hi-lo >= -1e-12:
			return rmTouch, lo, lo, same
		}
		return rmApart, 0, 0, false
	}
	if o1*o2 < 0 && o3*o4 < 0 {
		return rmCross, 0, 0, false
	}
	if (o1 == 0 && rmOnSeg(a.ax, a.ay, a.bx, a.by, b.ax, b.ay)) ||
		(o2 == 0 && rmOnSeg(a.ax, a.ay, a.bx, a.by, b.bx, b.by)) ||
		(o3 == 0 && rmOnSeg(b.ax, b.ay, b.bx, b.by, a.ax, a.ay)) ||
		(o4 == 0 && rmOnSeg(b.ax, b.ay, b.bx, b.by, a.bx, a.by)) {
		return rmTouch, 0, 0, false
	}
	return rmApart, 0, 0, false
}

// rmSegHitsRect reports whether the closed segment and the closed
// rectangle share a point.
func rmSegHitsRect(x0, y0, x1, y1 float64, r geo.Rect) bool {
	if math.Max(x0, x1) < r.MinLon || math.Min(x0, x1) > r.MaxLon ||
		math.Max(y0, y1) < r.MinLat || math.Min(y0, y1) > r.MaxLat {
		return false
	}
	if r.Contains(x0, y0) || r.Contains(x1, y1) {
		return true
	}
	// The boxes overlap, so the segment meets the rectangle unless all
	// four corners lie strictly on one side of its line.
	dx, dy := x1-x0, y1-y0
	side := func(cx, cy float64) float64 { return dx*(cy-y0) - dy*(cx-x0) }
	a := side(r.MinLon, r.MinLat)
	b := side(r.MaxLon, r.MinLat)
	c := side(r.MaxLon, r.MaxLat)
	d := side(r.MinLon, r.MaxLat)
	if a > 0 && b > 0 && c > 0 && d > 0 || a < 0 && b < 0 && c < 0 && d < 0 {
		return false
	}
	return true
}

// rmSegDist2 returns the squared planar distance, in degrees of latitude,
// from (px, py) to segment a-b after scaling longitudes by cosp: an
// equirectangular projection centred on the point.
func rmSegDist2(px, py, cosp, ax, ay, bx, by float64) float64 {
	ax, bx = (ax-px)*cosp, (bx-px)*cosp
	ay, by = ay-py, by-py
	ux, uy := bx-ax, by-ay
	l2 := ux*ux + uy*uy
	t := 0.0
	if l2 > 0 {
		t = -(ax*ux + ay*uy) / l2
		t = math.Max(0, math.Min(1, t))
	}
	dx, dy := ax+t*ux, ay+t*uy
	return dx*dx + dy*dy
}

// rmBoxDist2 is a lower bound, in the units of rmSegDist2, of the squared
// distance from the point to anything inside the box.
func rmBoxDist2(px, py, cosp float64, r geo.Rect) float64 {
	dx := math.Max(0, math.Max(r.MinLon-px, px-r.MaxLon)) * cosp
	dy := math.Max(0, math.Max(r.MinLat-py, py-r.MaxLat))
	return dx*dx + dy*dy
}

// rmSignedArea returns twice the signed planar area of a closed ring,
// positive when counter-clockwise. Coordinates are taken relative to the
// first vertex to keep rounding small.
func rmSignedArea(ring [][2]float64) float64 {
	ox, oy := ring[0][0], ring[0][1]
	var s float64
	for i := 0; i+1 < len(ring); i++ {
		x0, y0 := ring[i][0]-ox, ring[i][1]-oy
		x1, y1 := ring[i+1][0]-ox, ring[i+1][1]-oy
		s += x0*y1 - x1*y0
	}
	return s
}

// rmRingContains is a plain crossing-number test against one closed ring
// (used while validating, before polygons are indexed).
func rmRingContains(ring [][2]float64, x, y float64) bool {
	in := false
	for i := 0; i+1 < len(ring); i++ {
		e := rmMakeEdge(ring[i][0], ring[i][1], ring[i+1][0], ring[i+1][1])
		if e.y0 <= y && y < e.y1 && x < e.x0+(y-e.y0)*e.k {
			in = !in
		}
	}
	return in
}
