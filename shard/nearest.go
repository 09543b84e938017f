package shard

import (
	"geoshard/geo"
)

// Nearest appends, nearest first, up to n hits of the circle search q
// written at or after minStamp, walking the R-tree outwards from the
// centre. Only members Redis's cell scan would visit count. It reports
// whether the walk saw every hit (it found fewer than n).
func (s *Shard) Nearest(k Key, q *geo.Search, minStamp int64, n int, dst []Hit) ([]Hit, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.sets[k]
	if st == nil {
		return dst, true
	}
	radius := q.RadiusMetres()
	found, complete := 0, true
	st.spatial.Nearby(
		func(min, max [2]float64, it *item, isItem bool) float64 {
			if isItem {
				return geo.Distance(q.Lon, q.Lat, it.lon, it.lat)
			}
			return geo.MinDistance(q.Lon, q.Lat, geo.Rect{MinLon: min[0], MinLat: min[1], MaxLon: max[0], MaxLat: max[1]})
		},
		func(_, _ [2]float64, it *item, d float64) bool {
			if d > radius {
				return false // everything left is farther still
			}
			if it.stamp < minStamp {
				return true
			}
			cell := q.CellOf(it.score)
			if cell < 0 {
				return true
			}
			dist, ok := q.Match(it.lon, it.lat)
			if !ok {
				return true
			}
			dst = append(dst, Hit{Entry: it.entry(), Dist: dist, Cell: cell})
			found++
			if found == n {
				complete = false
				return false
			}
			return true
		})
	return dst, complete
}
