package geo

import "math"

// NewPolygonSearch plans a BYPOLYGON search: centred on the polygon's
// centroid, it scans the cells that cover the polygon's bounding box and
// keeps the members Polygon.Contains accepts. Distances are in metres.
func NewPolygonSearch(p *Polygon) *Search {
	return NewSearch(0, 0, Shape{Polygon: p, Unit: 1})
}

// planPolygon follows Valkey's plan for a polygon (the nine cells around
// the centroid, sized by the farthest corner of the vertices' bounding
// box), with two guarantees Valkey's leaves out, since a polygon search
// has no Redis answer to reproduce and must simply be right: the cells
// always cover the whole bounding box (going coarser until they do), and
// no cell is scanned twice, so no member is reported twice.
func (s *Search) planPolygon() {
	b := s.Shape.Polygon.Box()
	bb := box{b.MinLon, b.MinLat, b.MaxLon, b.MaxLat}
	// The centroid of a ring along one parallel lies poleward of it, even
	// past the score's latitude limit: the cells are planned from the
	// nearest point of the box instead.
	lon := math.Min(math.Max(s.Lon, bb.minLon), bb.maxLon)
	lat := math.Min(math.Max(s.Lat, bb.minLat), bb.maxLat)
	rangeMeters := 0.0
	for _, c := range [4][2]float64{{bb.minLon, bb.maxLat}, {bb.maxLon, bb.maxLat}, {bb.minLon, bb.minLat}, {bb.maxLon, bb.minLat}} {
		rangeMeters = math.Max(rangeMeters, Distance(lon, lat, c[0], c[1]))
	}
	step := estimateSteps(rangeMeters, lat)
	s.planCells(lon, lat, bb, step, true)
	for s.step > 1 && !covers(lon, lat, bb, s.step) {
		s.planCells(lon, lat, bb, s.step-1, false)
	}
	cells := s.Cells[:0]
	for i, c := range s.Cells {
		if !containsCell(s.Cells[:i], c) {
			cells = append(cells, c)
		}
	}
	s.Cells = cells
}

// covers reports whether the cell of (lon, lat) at step and its
// neighbours reach every side of bb (planCells drops a neighbour only on a
// side the centre cell already passes).
func covers(lon, lat float64, bb box, step uint) bool {
	c := decodeArea(encodeBits(lonRange, latRange, lon, lat, step), step)
	w, h := c.lonMax-c.lonMin, c.latMax-c.latMin
	return c.lonMin-w <= bb.minLon && c.lonMax+w >= bb.maxLon &&
		c.latMin-h <= bb.minLat && c.latMax+h >= bb.maxLat
}

func containsCell(cells []Cell, c Cell) bool {
	for _, d := range cells {
		if d == c {
			return true
		}
	}
	return false
}
