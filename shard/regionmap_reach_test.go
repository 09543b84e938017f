package shard

import (
	"math"
	"math/rand/v2"
	"testing"

	"geoshard/geo"
)

// Every point within the margin of a shard's area (where the router may
// keep one of its members) lies in the shard's Reach, on maps of fine and
// coarse areas with small and wide margins, up to the antimeridian.
func TestReachHoldsMargin(t *testing.T) {
	maps := []struct {
		name string
		m    *Map
		box  [4]float64 // where the points are drawn
	}{
		{"grid-margin-200m", GridMap(-10, 35, 30, 60, 20, 20, 200), [4]float64{-11, 34, 31, 61}},
		{"grid-margin-20km", GridMap(-10, 35, 30, 60, 8, 8, 20_000), [4]float64{-11, 34, 31, 61}},
		{"grid-antimeridian", GridMap(170, -20, 180, 20, 5, 5, 5_000), [4]float64{-180, -21, 180, 21}},
		{"default", DefaultMap(), [4]float64{-180, -85, 180, 85}},
	}
	for _, tc := range maps {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m
			rng := rand.New(rand.NewPCG(7, uint64(m.Len())))
			bounded := 0
			for id := range m.Len() {
				if _, ok := m.Reach(ID(id)); ok {
					bounded++
				}
			}
			if bounded == 0 {
				t.Fatal("no shard has a bounded reach")
			}
			checked := 0
			for range 3000 {
				lon := tc.box[0] + rng.Float64()*(tc.box[2]-tc.box[0])
				lat := tc.box[1] + rng.Float64()*(tc.box[3]-tc.box[1])
				if b, ok := m.Bounds(ID(rng.IntN(m.Len()))); ok && rng.IntN(4) > 0 {
					// Just past an edge of some shard's box, up to 1.2
					// margins out, where reaches are tight.
					lon, lat = nearEdge(rng, b, m.Margin()*1.2)
				}
				for id := range m.Len() {
					if m.Distance(ID(id), lon, lat) > m.Margin() {
						continue
					}
					checked++
					if r, ok := m.Reach(ID(id)); ok && !r.Contains(lon, lat) {
						t.Fatalf("%v,%v is within the margin of %s but outside its reach %+v", lon, lat, m.Name(ID(id)), r)
					}
				}
			}
			if _, ok := m.Reach(m.CatchAll()); ok {
				t.Error("the catch-all has a bounded reach")
			}
			if _, ok := m.Reach(ID(m.Len())); ok {
				t.Error("an unknown shard has a reach")
			}
			t.Logf("%d of %d shards bounded, %d point-shard pairs within the margin", bounded, m.Len(), checked)
		})
	}
}

// nearEdge returns a point on an edge or corner of b moved outwards by up
// to d metres.
func nearEdge(rng *rand.Rand, b geo.Rect, d float64) (lon, lat float64) {
	lon = b.MinLon + rng.Float64()*(b.MaxLon-b.MinLon)
	lat = b.MinLat + rng.Float64()*(b.MaxLat-b.MinLat)
	dlat := rng.Float64() * d / rmMetresPerDeg
	dlon := rng.Float64() * d / (rmMetresPerDeg * math.Cos(lat*math.Pi/180))
	switch rng.IntN(6) {
	case 0:
		lon = b.MinLon - dlon
	case 1:
		lon = b.MaxLon + dlon
	case 2:
		lat = b.MinLat - dlat
	case 3:
		lat = b.MaxLat + dlat
	case 4:
		lon, lat = b.MinLon-dlon, b.MinLat-dlat
	default:
		lon, lat = b.MaxLon+dlon, b.MaxLat+dlat
	}
	return max(-180, min(180, lon)), max(-85, min(85, lat))
}
