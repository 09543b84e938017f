package shard

import (
	"geoshard/geo"
)

// Nearest appends at least the n nearest hits of the circle search q
// written at or after minStamp (all of them when there are fewer), walking
// the R-tree outwards from the centre, in no particular order; members as
// near as the n-th may come too. Only members Redis's cell scan would
// visit count. It reports whether the walk saw every hit.
func (s *Shard) Nearest(k Key, q *geo.Search, minStamp int64, n int, dst []Hit) ([]Hit, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.sets[k]
	if st == nil {
		return dst, true
	}
	radius := q.RadiusMetres()
	found, complete := 0, true
	var last float64
	st.nearby(q.Lon, q.Lat, func(it *item, d float64) bool {
		if d > radius {
			return false // everything left is farther still
		}
		if found >= n && d > last {
			complete = false // everything left is farther than the n found
			return false
		}
		if it.stamp < minStamp {
			return true
		}
		cell := q.CellOf(it.score)
		if cell < 0 {
			return true
		}
		e := it.entry()
		dist, ok := q.Match(e.Lon, e.Lat)
		if !ok {
			return true
		}
		dst = append(dst, Hit{Entry: e, Dist: dist, Cell: cell})
		found++
		last = d
		return true
	})
	return dst, complete
}
