package shard

import (
	"math"

	"geoshard/geo"
)

// rmPoly is one polygon of a shard, with its edges bucketed into
// horizontal bands so that point-in-polygon and rectangle tests look only
// at the edges near the query's latitude: a country border with thousands
// of vertices costs a handful of edge tests.
type rmPoly struct {
	shard   ID
	feature int // index of the feature in the source, for errors
	part    int // index of the polygon in its MultiPolygon
	bbox    geo.Rect
	rings   [][][2]float64 // closed; outer counter-clockwise, holes clockwise
	edges   []rmEdge

	bandLo, bandInv float64
	nBands          int
	bandOff         []int32 // len nBands+1; edges of band b: bandIdx[bandOff[b]:bandOff[b+1]]
	bandIdx         []int32
}

// rmMinBanded is the edge count below which bands do not pay.
const rmMinBanded = 24

func rmNewPoly(shard ID, feature, part int, rings [][][2]float64) rmPoly {
	p := rmPoly{shard: shard, feature: feature, part: part, rings: rings}
	first := true
	for _, r := range rings {
		for i := 0; i+1 < len(r); i++ {
			p.edges = append(p.edges, rmMakeEdge(r[i][0], r[i][1], r[i+1][0], r[i+1][1]))
		}
		for _, v := range r {
			if first {
				p.bbox = geo.Rect{MinLon: v[0], MinLat: v[1], MaxLon: v[0], MaxLat: v[1]}
				first = false
				continue
			}
			p.bbox.MinLon = math.Min(p.bbox.MinLon, v[0])
			p.bbox.MaxLon = math.Max(p.bbox.MaxLon, v[0])
			p.bbox.MinLat = math.Min(p.bbox.MinLat, v[1])
			p.bbox.MaxLat = math.Max(p.bbox.MaxLat, v[1])
		}
	}
	if len(p.edges) < rmMinBanded || p.bbox.MaxLat <= p.bbox.MinLat {
		return p
	}
	p.nBands = min(len(p.edges)/4, 4096)
	p.bandLo = p.bbox.MinLat
	p.bandInv = float64(p.nBands) / (p.bbox.MaxLat - p.bbox.MinLat)
	counts := make([]int32, p.nBands+1)
	for _, e := range p.edges {
		for b := p.band(e.y0); b <= p.band(e.y1); b++ {
			counts[b+1]++
		}
	}
	for b := 1; b <= p.nBands; b++ {
		counts[b] += counts[b-1]
	}
	p.bandOff = counts
	p.bandIdx = make([]int32, counts[p.nBands])
	fill := append([]int32(nil), counts[:p.nBands]...)
	for i, e := range p.edges {
		for b := p.band(e.y0); b <= p.band(e.y1); b++ {
			p.bandIdx[fill[b]] = int32(i)
			fill[b]++
		}
	}
	return p
}

// band maps a latitude to its band; it is monotonic, so an edge spanning
// [y0, y1] is listed in every band a latitude inside it maps to.
func (p *rmPoly) band(y float64) int {
	f := (y - p.bandLo) * p.bandInv
	if !(f > 0) {
		return 0
	}
	if f >= float64(p.nBands-1) {
		return p.nBands - 1
	}
	return int(f)
}

// contains is the crossing-number test with half-open edges: of two
// polygons sharing an edge, exactly one holds a point on it.
func (p *rmPoly) contains(x, y float64) bool {
	if !p.bbox.Contains(x, y) {
		return false
	}
	in := false
	if p.nBands == 0 {
		for i := range p.edges {
			e := &p.edges[i]
			if e.y0 <= y && y < e.y1 && x < e.x0+(y-e.y0)*e.k {
				in = !in
			}
		}
		return in
	}
	b := p.band(y)
	for _, ei := range p.bandIdx[p.bandOff[b]:p.bandOff[b+1]] {
		e := &p.edges[ei]
		if e.y0 <= y && y < e.y1 && x < e.x0+(y-e.y0)*e.k {
			in = !in
		}
	}
	return in
}

// edgesNear calls fn for every edge whose latitude range may meet
// [lo, hi] (an edge may come more than once).
func (p *rmPoly) edgesNear(lo, hi float64, fn func(e *rmEdge) bool) {
	if p.nBands == 0 {
		for i := range p.edges {
			if !fn(&p.edges[i]) {
				return
			}
		}
		return
	}
	b0, b1 := p.band(lo), p.band(hi)
	if b1-b0 > 4 {
		for i := range p.edges {
			if !fn(&p.edges[i]) {
				return
			}
		}
		return
	}
	for _, ei := range p.bandIdx[p.bandOff[b0]:p.bandOff[b1+1]] {
		if !fn(&p.edges[ei]) {
			return
		}
	}
}

// meetsRect reports whether the closed polygon and the closed rectangle
// share a point, and whether the rectangle lies wholly in its interior
// (no edge meets it and it is inside).
func (p *rmPoly) meetsRect(r geo.Rect) (meets, inside bool) {
	if !p.bbox.Intersects(r) {
		return false, false
	}
	if r.MinLon <= p.bbox.MinLon && p.bbox.MaxLon <= r.MaxLon &&
		r.MinLat <= p.bbox.MinLat && p.bbox.MaxLat <= r.MaxLat {
		return true, false
	}
	hit := false
	p.edgesNear(r.MinLat, r.MaxLat, func(e *rmEdge) bool {
		if e.y1 < r.MinLat || e.y0 > r.MaxLat {
			return true
		}
		if rmSegHitsRect(e.x0, e.y0, e.x1, e.y1, r) {
			hit = true
			return false
		}
		return true
	})
	if hit {
		return true, false
	}
	// No edge meets r: it is wholly inside or wholly outside.
	if p.contains((r.MinLon+r.MaxLon)/2, (r.MinLat+r.MaxLat)/2) {
		return true, true
	}
	return false, false
}

// onBoundary reports whether the point is within tol degrees of an edge.
func (p *rmPoly) onBoundary(x, y, tol float64) bool {
	found := false
	p.edgesNear(y-tol, y+tol, func(e *rmEdge) bool {
		if rmSegDist2(x, y, 1, e.x0, e.y0, e.x1, e.y1) <= tol*tol {
			found = true
			return false
		}
		return true
	})
	return found
}

// edgeDist2 returns the squared distance, in rmSegDist2 units, from the
// point to the polygon's boundary, or best if it cannot beat best. The
// point's longitude is tried as is and shifted by ±360 so that polygons
// across the antimeridian count as near.
func (p *rmPoly) edgeDist2(x, y, cosp, best float64) float64 {
	for _, shift := range [3]float64{0, 360, -360} {
		px := x + shift
		if rmBoxDist2(px, y, cosp, p.bbox) >= best {
			continue
		}
		for i := range p.edges {
			e := &p.edges[i]
			if d := rmSegDist2(px, y, cosp, e.x0, e.y0, e.x1, e.y1); d < best {
				best = d
			}
		}
	}
	return best
}
