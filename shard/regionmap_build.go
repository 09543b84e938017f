package shard

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"geoshard/geo"
)

// rmBuild validates the geometry of parsed features and builds the map.
// Feature i becomes shard ID i; the catch-all comes last.
func rmBuild(hdr rmHeader, feats []rmFeature) (*Map, error) {
	var errs rmErrs
	m := &Map{
		byName:  make(map[string]ID, len(feats)+1),
		margin:  hdr.margin,
		version: hdr.version,
		verNum:  hdr.verNum,
	}
	for id, f := range feats {
		m.names = append(m.names, f.name)
		m.byName[f.name] = ID(id)
		m.single = append(m.single, f.single)
		var mine []int32
		for j, rings := range f.polys {
			rings, ok := rmCleanPolygon(f, j, rings, &errs)
			if !ok {
				continue
			}
			mine = append(mine, int32(len(m.polys)))
			m.polys = append(m.polys, rmNewPoly(ID(id), f.feature, j, rings))
		}
		m.byShard = append(m.byShard, mine)
	}
	m.catchAll = ID(len(m.names))
	m.names = append(m.names, hdr.catchAll)
	m.byName[hdr.catchAll] = m.catchAll
	m.byShard = append(m.byShard, nil)
	m.single = append(m.single, false)
	if err := errs.err(); err != nil {
		return nil, err
	}

	boxes := make([]geo.Rect, len(m.polys))
	for i := range m.polys {
		boxes[i] = m.polys[i].bbox
	}
	m.index = rmBuildTree(boxes)

	sw := rmSweep(m, feats, &errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	rmCheckHoles(m, feats, &errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	rmCheckContainment(m, feats, sw, &errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	m.exposed = sw.exposed()
	boxes = boxes[:0]
	for _, s := range m.exposed {
		boxes = append(boxes, s.bbox())
	}
	m.expIndex = rmBuildTree(boxes)
	return m, nil
}

// rmWhere names a ring for an error message.
func rmWhere(f rmFeature, poly, ring int) string {
	if f.single {
		return fmt.Sprintf("ring %d", ring)
	}
	return fmt.Sprintf("polygon %d: ring %d", poly, ring)
}

// rmCleanPolygon drops repeated consecutive points, rejects degenerate
// rings and orients rings (outer counter-clockwise, holes clockwise) so
// that a polygon's interior is always left of its edges.
func rmCleanPolygon(f rmFeature, j int, rings [][][2]float64, errs *rmErrs) ([][][2]float64, bool) {
	out := make([][][2]float64, 0, len(rings))
	good := true
	for r, ring := range rings {
		clean := make([][2]float64, 0, len(ring))
		for _, v := range ring {
			if len(clean) == 0 || clean[len(clean)-1] != v {
				clean = append(clean, v)
			}
		}
		if len(clean) < 4 {
			errs.add(f.feature, f.name, "%s has fewer than 4 points once repeated points are dropped (%d distinct)", rmWhere(f, j, r), len(clean)-1)
			good = false
			continue
		}
		// A ring without area intersects itself; the sweep says so and
		// where, so orientation does not matter for it here.
		if a := rmSignedArea(clean); (r == 0) != (a > 0) {
			slices.Reverse(clean)
		}
		out = append(out, clean)
	}
	return out, good
}

// rmSweepSeg is a directed polygon edge in the validation sweep.
type rmSweepSeg struct {
	s          rmSeg
	box        geo.Rect
	poly, ring int32
	idx, n     int32 // edge index in its ring, edge count of the ring
	orig       int32 // for a copy shifted across the antimeridian, the original
}

// rmSweepResult is what the sweep learnt about each edge: where other
// polygons touch it and which parts of it a neighbour shares.
type rmSweepResult struct {
	segs    []rmSweepSeg
	splits  [][]float64    // parameters along the edge where another polygon touches it
	covered [][][2]float64 // parameter intervals shared with a neighbour's opposite edge
}

// rmSweep finds self-intersecting rings, crossing rings, and overlapping
// polygons, comparing only edges whose boxes meet (sorted by latitude).
func rmSweep(m *Map, feats []rmFeature, errs *rmErrs) *rmSweepResult {
	sw := &rmSweepResult{}
	for pi := range m.polys {
		p := &m.polys[pi]
		for ri, ring := range p.rings {
			n := int32(len(ring) - 1)
			for k := 0; k+1 < len(ring); k++ {
				s := rmSeg{ring[k][0], ring[k][1], ring[k+1][0], ring[k+1][1]}
				orig := int32(len(sw.segs))
				sw.segs = append(sw.segs, rmSweepSeg{s: s, box: s.bbox(), poly: int32(pi), ring: int32(ri), idx: int32(k), n: n, orig: orig})
				// An edge on the antimeridian borders whatever lies on the
				// other side of it: a shifted copy finds that neighbour.
				if s.ax == s.bx && (s.ax == 180 || s.ax == -180) {
					c := s
					c.ax, c.bx = -s.ax, -s.bx
					sw.segs = append(sw.segs, rmSweepSeg{s: c, box: c.bbox(), poly: int32(pi), ring: int32(ri), idx: int32(k), n: n, orig: orig})
				}
			}
		}
	}
	sw.splits = make([][]float64, len(sw.segs))
	sw.covered = make([][][2]float64, len(sw.segs))
	order := make([]int32, len(sw.segs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(sw.segs[a].box.MinLat, sw.segs[b].box.MinLat) })

	type pair struct{ a, b int32 }
	reported := make(map[pair]bool)
	// report blames polygon a's feature, once per pair of polygons.
	report := func(a, b int32, format string, args ...any) {
		key := pair{min(a, b), max(a, b)}
		if reported[key] {
			return
		}
		reported[key] = true
		pa := &m.polys[a]
		f := feats[pa.shard]
		errs.add(f.feature, f.name, format, args...)
	}
	for oi, i := range order {
		si := &sw.segs[i]
		for _, j := range order[oi+1:] {
			sj := &sw.segs[j]
			if sj.box.MinLat > si.box.MaxLat {
				break
			}
			if sj.box.MinLon > si.box.MaxLon || sj.box.MaxLon < si.box.MinLon {
				continue
			}
			rmSweepPair(m, feats, sw, i, j, report)
		}
	}
	return sw
}

func rmSweepPair(m *Map, feats []rmFeature, sw *rmSweepResult, i, j int32, report func(a, b int32, format string, args ...any)) {
	a, b := &sw.segs[i], &sw.segs[j]
	shifted := a.orig != i || b.orig != j
	if shifted && a.poly == b.poly {
		return
	}
	kind, t0, t1, same := rmIntersect(a.s, b.s)
	if kind == rmApart {
		return
	}
	if shifted {
		if kind == rmOverlap && !same {
			rmCover(sw, a.orig, b.orig, t0, t1)
		}
		return
	}
	pa, pb := &m.polys[a.poly], &m.polys[b.poly]
	fa := feats[pa.shard]
	switch {
	case a.poly == b.poly && a.ring == b.ring:
		d := a.idx - b.idx
		adjacent := d == 1 || d == -1 || d == a.n-1 || d == 1-a.n
		if adjacent && kind != rmOverlap {
			return
		}
		report(a.poly, a.poly, "%s intersects itself near (%v, %v)", rmWhere(fa, pa.part, int(a.ring)), a.s.ax, a.s.ay)
	case a.poly == b.poly:
		if kind == rmTouch {
			return
		}
		report(a.poly, a.poly, "%s and ring %d cross or overlap near (%v, %v)", rmWhere(fa, pa.part, int(a.ring)), b.ring, a.s.ax, a.s.ay)
	default:
		overlap := func() {
			fb := feats[pb.shard]
			if pa.shard == pb.shard {
				report(a.poly, b.poly, "polygons %d and %d overlap near (%v, %v)", pa.part, pb.part, a.s.ax, a.s.ay)
				return
			}
			report(a.poly, b.poly, "area overlaps the area of feature %d (shard %q) near (%v, %v)", fb.feature, fb.name, a.s.ax, a.s.ay)
		}
		switch {
		case kind == rmCross:
			overlap()
		case kind == rmOverlap && same:
			overlap()
		case kind == rmOverlap:
			rmCover(sw, i, j, t0, t1)
		default: // touch: remember where, for the containment test
			rmSplitAt(sw, i, b.s.ax, b.s.ay)
			rmSplitAt(sw, i, b.s.bx, b.s.by)
			rmSplitAt(sw, j, a.s.ax, a.s.ay)
			rmSplitAt(sw, j, a.s.bx, a.s.by)
		}
	}
}

// rmCover records that edges i and j share, in opposite directions, the
// part [t0, t1] of edge i: each is the other's neighbour there.
func rmCover(sw *rmSweepResult, i, j int32, t0, t1 float64) {
	sw.covered[i] = append(sw.covered[i], [2]float64{t0, t1})
	a, b := sw.segs[i].s, sw.segs[j].s
	u0, u1 := rmParam(b, a.ax+t0*(a.bx-a.ax), a.ay+t0*(a.by-a.ay)), rmParam(b, a.ax+t1*(a.bx-a.ax), a.ay+t1*(a.by-a.ay))
	if u0 > u1 {
		u0, u1 = u1, u0
	}
	sw.covered[j] = append(sw.covered[j], [2]float64{math.Max(0, u0), math.Min(1, u1)})
	rmSplitAt(sw, i, b.ax, b.ay)
	rmSplitAt(sw, i, b.bx, b.by)
	rmSplitAt(sw, j, a.ax, a.ay)
	rmSplitAt(sw, j, a.bx, a.by)
}

// rmParam returns the parameter of the projection of (x, y) on s.
func rmParam(s rmSeg, x, y float64) float64 {
	ux, uy := s.bx-s.ax, s.by-s.ay
	return ((x-s.ax)*ux + (y-s.ay)*uy) / (ux*ux + uy*uy)
}

// rmSplitAt records (x, y) as a split point of edge i when it lies inside it.
func rmSplitAt(sw *rmSweepResult, i int32, x, y float64) {
	s := sw.segs[i].s
	if rmOrient(s.ax, s.ay, s.bx, s.by, x, y) != 0 {
		return
	}
	if t := rmParam(s, x, y); t > 1e-12 && t < 1-1e-12 {
		sw.splits[i] = append(sw.splits[i], t)
	}
}

// rmCheckHoles requires every hole to lie inside its outer ring and
// outside the other holes (rings do not cross: the sweep checked).
func rmCheckHoles(m *Map, feats []rmFeature, errs *rmErrs) {
	for pi := range m.polys {
		p := &m.polys[pi]
		f := feats[p.shard]
		for h := 1; h < len(p.rings); h++ {
			hole := p.rings[h]
			mx, my := (hole[0][0]+hole[1][0])/2, (hole[0][1]+hole[1][1])/2
			if !rmRingContains(p.rings[0], mx, my) {
				errs.add(f.feature, f.name, "%s is a hole outside its outer ring", rmWhere(f, p.part, h))
				continue
			}
			for o := 1; o < len(p.rings); o++ {
				if o != h && rmRingContains(p.rings[o], mx, my) {
					errs.add(f.feature, f.name, "holes %d and %d overlap", o, h)
				}
			}
		}
	}
}

// rmCheckContainment finds overlaps the sweep cannot see because no edges
// cross: a polygon inside another, or meeting it only at vertices. Each
// edge is cut where other polygons touch it; the middle of every piece
// must not lie strictly inside another polygon.
func rmCheckContainment(m *Map, feats []rmFeature, sw *rmSweepResult, errs *rmErrs) {
	reported := make(map[[2]int32]bool)
	for i := range sw.segs {
		sg := &sw.segs[i]
		if sg.orig != int32(i) {
			continue
		}
		ts := append([]float64{0, 1}, sw.splits[i]...)
		slices.Sort(ts)
		for k := 0; k+1 < len(ts); k++ {
			if ts[k+1]-ts[k] < 1e-12 {
				continue
			}
			t := (ts[k] + ts[k+1]) / 2
			x, y := sg.s.ax+t*(sg.s.bx-sg.s.ax), sg.s.ay+t*(sg.s.by-sg.s.ay)
			m.index.search(geo.Rect{MinLon: x, MinLat: y, MaxLon: x, MaxLat: y}, func(q int32) bool {
				if q == sg.poly {
					return true
				}
				other := &m.polys[q]
				if !other.contains(x, y) || other.onBoundary(x, y, 1e-9) {
					return true
				}
				key := [2]int32{min(q, sg.poly), max(q, sg.poly)}
				if reported[key] {
					return true
				}
				reported[key] = true
				pa := &m.polys[sg.poly]
				fa, fb := feats[pa.shard], feats[other.shard]
				if pa.shard == other.shard {
					errs.add(fa.feature, fa.name, "polygons %d and %d overlap near (%v, %v)", pa.part, other.part, x, y)
				} else {
					errs.add(fa.feature, fa.name, "area overlaps the area of feature %d (shard %q) near (%v, %v)", fb.feature, fb.name, x, y)
				}
				return true
			})
		}
	}
}

// exposed returns the parts of polygon edges that no neighbour shares:
// the border between the polygons and the catch-all's area.
func (sw *rmSweepResult) exposed() []rmSeg {
	var out []rmSeg
	for i := range sw.segs {
		sg := &sw.segs[i]
		if sg.orig != int32(i) {
			continue
		}
		cov := sw.covered[i]
		slices.SortFunc(cov, func(a, b [2]float64) int { return cmp.Compare(a[0], b[0]) })
		at := 0.0
		emit := func(t0, t1 float64) {
			if t1-t0 <= 1e-12 {
				return
			}
			s := sg.s
			p := func(t float64) (float64, float64) {
				switch t {
				case 0:
					return s.ax, s.ay
				case 1:
					return s.bx, s.by
				}
				return s.ax + t*(s.bx-s.ax), s.ay + t*(s.by-s.ay)
			}
			ax, ay := p(t0)
			bx, by := p(t1)
			out = append(out, rmSeg{ax, ay, bx, by})
		}
		for _, c := range cov {
			if c[0] > at {
				emit(at, c[0])
			}
			at = math.Max(at, c[1])
		}
		if at < 1 {
			emit(at, 1)
		}
	}
	return out
}
