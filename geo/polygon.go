package geo

import "math"

// Polygon is the area of a BYPOLYGON search (Valkey 9.0's GEOSEARCH
// shape): one ring of at least three vertices, closed implicitly from the
// last vertex back to the first.
//
// Geometry is planar in degrees, as in Valkey: an edge is the straight
// line between its vertices on the longitude/latitude plane, and no edge
// wraps across the antimeridian (a zone across 180° is searched as two
// polygons, one on each side). A point is inside when it is inside by the
// even-odd rule (so a self-intersecting ring alternates in and out, like
// Valkey's ray casting), or lies on an edge or a vertex: the border
// belongs to the polygon, as it does to BYRADIUS circles and BYBOX boxes.
//
// A Polygon is not modified after NewPolygon and may be shared.
type Polygon struct {
	lon, lat   []float64
	box        Rect    // the vertices' bounding box: every point inside lies in it
	cLon, cLat float64 // Centroid
}

// NewPolygon builds the polygon of vertices given as lon, lat pairs. The
// caller checks there are at least three, each Valid.
func NewPolygon(lonLat []float64) *Polygon {
	n := len(lonLat) / 2
	p := &Polygon{lon: make([]float64, n), lat: make([]float64, n)}
	p.box = Rect{MinLon: math.Inf(1), MinLat: math.Inf(1), MaxLon: math.Inf(-1), MaxLat: math.Inf(-1)}
	for i := range n {
		x, y := lonLat[2*i], lonLat[2*i+1]
		p.lon[i], p.lat[i] = x, y
		p.box.MinLon, p.box.MaxLon = math.Min(p.box.MinLon, x), math.Max(p.box.MaxLon, x)
		p.box.MinLat, p.box.MaxLat = math.Min(p.box.MinLat, y), math.Max(p.box.MaxLat, y)
	}
	p.cLon, p.cLat = vertexCentroid(p.lon, p.lat)
	return p
}

// vertexCentroid is the centre Valkey measures BYPOLYGON distances from:
// the mean of the vertices as points on the sphere, projected back to the
// surface. It is the centroid of the vertices, not of the area.
func vertexCentroid(lons, lats []float64) (lon, lat float64) {
	var x, y, z float64
	for i := range lons {
		lo, la := lons[i]*degToRad, lats[i]*degToRad
		x += EarthRadius * math.Cos(la) * math.Cos(lo)
		y += EarthRadius * math.Cos(la) * math.Sin(lo)
		z += EarthRadius * math.Sin(la)
	}
	n := float64(len(lons))
	x, y, z = x/n, y/n, z/n
	return math.Atan2(y, x) / degToRad, math.Atan2(z, math.Sqrt(x*x+y*y)) / degToRad
}

// Len returns the number of vertices.
func (p *Polygon) Len() int { return len(p.lon) }

// Vertex returns the i-th vertex.
func (p *Polygon) Vertex(i int) (lon, lat float64) { return p.lon[i], p.lat[i] }

// Box returns the bounding box of the vertices, which holds the polygon.
func (p *Polygon) Box() Rect { return p.box }

// Centroid returns the point WITHDIST, ASC/DESC and STOREDIST measure from
// (see vertexCentroid).
func (p *Polygon) Centroid() (lon, lat float64) { return p.cLon, p.cLat }

// Contains reports whether the point is inside the polygon or on its
// border. Each edge decides by the sign of one cross product, without a
// division, so a point on an axis-parallel edge (the usual fence) is
// found on it exactly.
func (p *Polygon) Contains(x, y float64) bool {
	if !p.box.Contains(x, y) {
		return false
	}
	in := false
	n := len(p.lon)
	ax, ay := p.lon[n-1], p.lat[n-1]
	for i := range n {
		bx, by := p.lon[i], p.lat[i]
		if (y >= ay || y >= by) && (y <= ay || y <= by) { // y within the edge's span
			o := (bx-ax)*(y-ay) - (by-ay)*(x-ax) // > 0: left of a->b
			if o == 0 && x >= math.Min(ax, bx) && x <= math.Max(ax, bx) {
				return true
			}
			// Half-open in latitude, so a ray through a vertex counts once.
			if (ay > y) != (by > y) && (by > ay) == (o > 0) {
				in = !in
			}
		}
		ax, ay = bx, by
	}
	return in
}

// polyMargin is how far, in degrees (about 1 cm), an edge must stay from a
// rectangle for Classify to call the whole rectangle in or out. It dwarfs
// the rounding of the cross products in Contains (below 1e-12 degrees), so
// the call agrees with testing each point.
const polyMargin = 1e-7

// classify tells how the rectangle r meets the polygon: Outside, Inside,
// or Partial when an edge passes within polyMargin of it.
func (p *Polygon) classify(r Rect) int {
	g := Rect{r.MinLon - polyMargin, r.MinLat - polyMargin, r.MaxLon + polyMargin, r.MaxLat + polyMargin}
	if !g.Intersects(p.box) {
		return Outside
	}
	n := len(p.lon)
	ax, ay := p.lon[n-1], p.lat[n-1]
	for i := range n {
		bx, by := p.lon[i], p.lat[i]
		if segmentMeetsRect(ax, ay, bx, by, g) {
			return Partial
		}
		ax, ay = bx, by
	}
	// No border crosses g: all of it is on one side.
	if p.Contains((r.MinLon+r.MaxLon)/2, (r.MinLat+r.MaxLat)/2) {
		return Inside
	}
	return Outside
}

// segmentMeetsRect reports whether segment a-b meets rectangle g, by the
// separating axis test: the two coordinate axes, then the segment's normal.
func segmentMeetsRect(ax, ay, bx, by float64, g Rect) bool {
	if math.Max(ax, bx) < g.MinLon || math.Min(ax, bx) > g.MaxLon ||
		math.Max(ay, by) < g.MinLat || math.Min(ay, by) > g.MaxLat {
		return false
	}
	pos, neg := false, false
	for _, c := range [4][2]float64{{g.MinLon, g.MinLat}, {g.MaxLon, g.MinLat}, {g.MinLon, g.MaxLat}, {g.MaxLon, g.MaxLat}} {
		o := (bx-ax)*(c[1]-ay) - (by-ay)*(c[0]-ax)
		pos = pos || o >= 0
		neg = neg || o <= 0
	}
	return pos && neg
}
