package shard

import (
	"math"
	"slices"

	"geoshard/geo"
)

// rmEarthRadius is Redis's Earth radius in metres (geo.Distance uses it).
const rmEarthRadius = 6372797.560856

// rmMetresPerDeg is the length of one degree of latitude on that sphere.
const rmMetresPerDeg = rmEarthRadius * math.Pi / 180

// Locate returns the shard that owns the point: the one whose polygon
// holds it, or the catch-all. A point on a border between two polygons
// belongs to exactly one of them. Locate does not allocate.
func (m *Map) Locate(lon, lat float64) ID {
	if id, ok := m.owner(lon, lat); ok {
		return id
	}
	return m.catchAll
}

// owner finds the polygon shard holding the point, if any.
func (m *Map) owner(lon, lat float64) (ID, bool) {
	if math.IsNaN(lon) || math.IsNaN(lat) {
		return 0, false
	}
	lon = rmNormLon(lon)
	// The world's top edge and the antimeridian are edges of no one's:
	// Redis accepts lat 85.05112878 and lon 180, so give them to the
	// polygon just inside.
	if lat == rmMaxLat {
		lat = math.Nextafter(lat, 0)
	}
	if lon == 180 {
		if id, ok := m.ownerAt(-180, lat); ok {
			return id, true
		}
		lon = math.Nextafter(180, 0)
	}
	return m.ownerAt(lon, lat)
}

func (m *Map) ownerAt(lon, lat float64) (id ID, found bool) {
	m.index.search(geo.Rect{MinLon: lon, MinLat: lat, MaxLon: lon, MaxLat: lat}, func(i int32) bool {
		p := &m.polys[i]
		if p.contains(lon, lat) {
			id, found = p.shard, true
			return false
		}
		return true
	})
	return id, found
}

// rmNormLon wraps a longitude into [-180, 180].
func rmNormLon(lon float64) float64 {
	if lon >= -180 && lon <= 180 {
		return lon
	}
	lon = math.Mod(lon+180, 360)
	if lon < 0 {
		lon += 360
	}
	return lon - 180
}

// Distance returns the distance in metres from the point to the shard's
// area, 0 when the shard owns the point (so Distance(Locate(p), p) is 0).
// For the catch-all it is the distance to the nearest border between the
// polygons and the area no polygon holds (the catch-all's area); 0 when no
// polygon holds the point. Distances are measured on a local
// equirectangular projection: within a fraction of a percent at margin
// scale, never an exact great-circle figure. Out-of-range IDs give +Inf.
func (m *Map) Distance(id ID, lon, lat float64) float64 {
	if int(id) >= len(m.names) {
		return math.Inf(1)
	}
	if math.IsNaN(lon) || math.IsNaN(lat) {
		if id == m.catchAll {
			return 0
		}
		return math.Inf(1)
	}
	if m.Locate(lon, lat) == id {
		return 0
	}
	lon = rmNormLon(lon)
	cosp := math.Cos(math.Max(-90, math.Min(90, lat)) * math.Pi / 180)
	if id == m.catchAll {
		return math.Sqrt(m.exposedDist2(lon, lat, cosp)) * rmMetresPerDeg
	}
	best := math.Inf(1)
	for _, pi := range m.byShard[id] {
		best = m.polys[pi].edgeDist2(lon, lat, cosp, best)
	}
	return math.Sqrt(best) * rmMetresPerDeg
}

// exposedDist2 finds the nearest exposed border (squared distance) by
// searching ever larger boxes around the point until what lies outside
// the box cannot be nearer.
func (m *Map) exposedDist2(lon, lat, cosp float64) float64 {
	best := math.Inf(1)
	for half := 0.25; ; half *= 4 {
		hx := 360.0
		if cosp > 0 && half/cosp < 360 {
			hx = half / cosp
		}
		var pieces [3]geo.Rect
		n := rmLonPieces(lon-hx, lon+hx, lat-half, lat+half, &pieces)
		for _, q := range pieces[:n] {
			m.expIndex.search(q, func(i int32) bool {
				s := &m.exposed[i]
				for _, shift := range [3]float64{0, 360, -360} {
					if d := rmSegDist2(lon+shift, lat, cosp, s.ax, s.ay, s.bx, s.by); d < best {
						best = d
					}
				}
				return true
			})
		}
		// Anything outside the box is more than half away.
		if best <= half*half || half >= 360 {
			return best
		}
	}
}

// rmLonPieces clips the longitude range [lo, hi] (which may run past ±180)
// to the map's longitudes, wrapping what runs past, and writes the
// resulting rectangles to out.
func rmLonPieces(lo, hi, minLat, maxLat float64, out *[3]geo.Rect) int {
	if hi-lo >= 360 {
		out[0] = geo.Rect{MinLon: -180, MinLat: minLat, MaxLon: 180, MaxLat: maxLat}
		return 1
	}
	n := 0
	add := func(a, b float64) {
		a, b = math.Max(a, -180), math.Min(b, 180)
		if a <= b {
			out[n] = geo.Rect{MinLon: a, MinLat: minLat, MaxLon: b, MaxLat: maxLat}
			n++
		}
	}
	add(lo, hi)
	if lo < -180 {
		add(lo+360, hi+360)
	}
	if hi > 180 {
		add(lo-360, hi-360)
	}
	return n
}

// rmSafety inflates the metres-to-degrees conversion, and rmSlackDeg is
// added to every expansion, so that rounding never makes Touching miss.
const (
	rmSafety   = 1.01
	rmSlackDeg = 1e-9
)

// Touching appends to dst every shard whose area, expanded by the margin,
// may hold a point of r, each once, in ID order. It never misses one; it
// may name a shard whose expanded area only comes close. A rectangle deep
// inside one polygon gives exactly that polygon's shard. r may run past
// ±180 in longitude (or have MinLon > MaxLon to cross the antimeridian);
// a rectangle with NaNs or MinLat > MaxLat gives every shard.
func (m *Map) Touching(r geo.Rect, dst []ID) []ID {
	start := len(dst)
	if math.IsNaN(r.MinLon+r.MaxLon+r.MinLat+r.MaxLat) || math.IsInf(r.MinLat+r.MaxLat, 0) ||
		r.MinLat > r.MaxLat {
		for id := range m.names {
			dst = append(dst, ID(id))
		}
		return dst
	}
	// Points beyond the world's latitudes are the catch-all's.
	needCatchAll := r.MinLat < rmMinLat || r.MaxLat > rmMaxLat
	if r.MinLon > r.MaxLon {
		r.MaxLon += 360
	}
	dlat := m.margin/rmMetresPerDeg*rmSafety + rmSlackDeg
	// Along a path of length d from a point of r, latitude moves at most
	// d/R, and longitude at most d/(R cos φ) for the largest |φ| reached.
	maxAbs := math.Max(math.Abs(r.MinLat), math.Abs(r.MaxLat)) + dlat
	lo, hi := -540.0, 540.0
	if maxAbs < 89.9 && r.MaxLon-r.MinLon < 360 {
		dlon := m.margin/(rmMetresPerDeg*math.Cos(maxAbs*math.Pi/180))*rmSafety + rmSlackDeg
		lo, hi = r.MinLon-dlon, r.MaxLon+dlon
		if shift := math.Floor((lo + 180) / 360); shift != 0 && !math.IsInf(shift, 0) {
			lo, hi = lo-shift*360, hi-shift*360
		}
	}
	var pieces [3]geo.Rect
	n := rmLonPieces(lo, hi, r.MinLat-dlat, r.MaxLat+dlat, &pieces)
	for _, q := range pieces[:n] {
		found := false
		m.index.search(q, func(i int32) bool {
			p := &m.polys[i]
			meets, inside := p.meetsRect(q)
			if !meets {
				return true
			}
			found = true
			dst = append(dst, p.shard)
			// Wholly inside one polygon: no other area reaches q.
			return !inside
		})
		if !needCatchAll && (!found || !m.expIndex.search(q, func(i int32) bool {
			s := &m.exposed[i]
			return !rmSegHitsRect(s.ax, s.ay, s.bx, s.by, q)
		})) {
			needCatchAll = true
		}
	}
	if needCatchAll {
		dst = append(dst, m.catchAll)
	}
	if len(dst)-start > 1 {
		slices.Sort(dst[start:])
		dst = dst[:start+len(slices.Compact(dst[start:]))]
	}
	return dst
}
