package plan

import (
	"fmt"
	"math"

	"geoshard/geo"
	"geoshard/shard"
)

// The areas the planner works on: a workload's extent, the equal grid it
// compares proposals with, and a map's extent.

// workloadBounds is the extent of the pings and search centres, padded so
// that searches at the edge stay inside (up to 3 km of radius) and
// clipped to Redis's range.
func workloadBounds(w *Workload, margin float64) geo.Rect {
	r := geo.Rect{MinLon: math.Inf(1), MinLat: math.Inf(1), MaxLon: math.Inf(-1), MaxLat: math.Inf(-1)}
	grow := func(lon, lat float64) {
		r.MinLon, r.MaxLon = math.Min(r.MinLon, lon), math.Max(r.MaxLon, lon)
		r.MinLat, r.MaxLat = math.Min(r.MinLat, lat), math.Max(r.MaxLat, lat)
	}
	maxR := 0.0
	for _, p := range w.Pings {
		grow(p.Lon, p.Lat)
	}
	for _, s := range w.Searches {
		grow(s.Lon, s.Lat)
		maxR = math.Max(maxR, s.RadiusM)
	}
	pad := math.Min(maxR, 3000) + margin + 100
	dLat := pad / mPerDegLat
	cos := math.Cos(math.Min(math.Max(math.Abs(r.MinLat), math.Abs(r.MaxLat)), 80) * math.Pi / 180)
	dLon := pad / (mPerDegLat * cos)
	return geo.Rect{
		MinLon: math.Max(r.MinLon-dLon, -180), MaxLon: math.Min(r.MaxLon+dLon, 180),
		MinLat: math.Max(r.MinLat-dLat, -85.05), MaxLat: math.Min(r.MaxLat+dLat, 85.05),
	}
}

// NaiveGrid is the map an operator would draw without looking: the bounds
// cut into n equal cells, as square a grid as n allows (2x2 for 4, 3x2
// for 6, nx1 for a prime), with the given margin.
func NaiveGrid(b geo.Rect, n int, margin float64) (*shard.Map, error) {
	if n < 1 || n > maxProposeShards {
		return nil, fmt.Errorf("naive grid: %d shards out of range 1..%d", n, maxProposeShards)
	}
	if !(b.MinLon < b.MaxLon && b.MinLat < b.MaxLat) || !geo.Valid(b.MinLon, b.MinLat) || !geo.Valid(b.MaxLon, b.MaxLat) {
		return nil, fmt.Errorf("naive grid: invalid bounds %+v", b)
	}
	rows := 1
	for d := 1; d*d <= n; d++ {
		if n%d == 0 {
			rows = d
		}
	}
	if !(margin >= 0) || math.IsInf(margin, 0) {
		return nil, fmt.Errorf("naive grid: invalid margin %v", margin)
	}
	return gridMap(b, n/rows, rows, margin)
}

// gridMap is shard.GridMap, which panics on a box too small for its
// cells, turned into an error.
func gridMap(b geo.Rect, cols, rows int, margin float64) (m *shard.Map, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("naive grid: %v", p)
		}
	}()
	return shard.GridMap(b.MinLon, b.MinLat, b.MaxLon, b.MaxLat, cols, rows, margin), nil
}

// MapBounds is the union of a map's areas (the catch-all has none); ok is
// false when no shard has an area.
func MapBounds(m *shard.Map) (r geo.Rect, ok bool) {
	for id := 0; id < m.Len(); id++ {
		b, has := m.Bounds(shard.ID(id))
		if !has {
			continue
		}
		if !ok {
			r, ok = b, true
			continue
		}
		r = geo.Rect{
			MinLon: math.Min(r.MinLon, b.MinLon), MinLat: math.Min(r.MinLat, b.MinLat),
			MaxLon: math.Max(r.MaxLon, b.MaxLon), MaxLat: math.Max(r.MaxLat, b.MaxLat),
		}
	}
	return r, ok
}
