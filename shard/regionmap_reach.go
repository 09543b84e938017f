package shard

import (
	"math"

	"geoshard/geo"
)

// Reach returns a rectangle that holds every point within the margin of
// shard id's area: every position the router can leave one of id's
// members at (see router's place). ok is false when no rectangle short of
// the world does: the catch-all, a shard near a pole or across the
// antimeridian, or an unknown ID. A search may skip the parts of its plan
// outside it. The rectangles are computed once per map, on first use.
func (m *Map) Reach(id ID) (r geo.Rect, ok bool) {
	m.reachOnce.Do(func() { m.reach = m.buildReach() })
	if int(id) >= len(m.reach) {
		return r, false
	}
	r = m.reach[id]
	return r, r.MinLat <= r.MaxLat
}

// buildReach expands each shard's bounding box as Touching expands a
// search's: the same safety factor and slack, so that where Touching
// names a shard for a point, the point lies in its Reach.
func (m *Map) buildReach() []geo.Rect {
	out := make([]geo.Rect, len(m.names))
	for id := range out {
		out[id] = geo.Rect{MinLat: 1, MaxLat: -1} // unbounded
		b, ok := m.Bounds(ID(id))
		if !ok || ID(id) == m.catchAll {
			continue
		}
		dlat := m.margin/rmMetresPerDeg*rmSafety + rmSlackDeg
		// A point within the margin sits at a latitude below maxAbs,
		// where a degree of longitude is shortest.
		maxAbs := math.Max(math.Abs(b.MinLat), math.Abs(b.MaxLat)) + dlat
		if maxAbs >= 89.9 {
			continue
		}
		dlon := m.margin/(rmMetresPerDeg*math.Cos(maxAbs*math.Pi/180))*rmSafety + rmSlackDeg
		r := geo.Rect{MinLon: b.MinLon - dlon, MinLat: b.MinLat - dlat, MaxLon: b.MaxLon + dlon, MaxLat: b.MaxLat + dlat}
		if r.MinLon < -180 || r.MaxLon > 180 || math.IsNaN(r.MinLon+r.MaxLon+r.MinLat+r.MaxLat) {
			continue
		}
		out[id] = r
	}
	return out
}
