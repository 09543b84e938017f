package router

import (
	"math"
	"math/rand/v2"
	"testing"

	"geoshard/geo"
	"geoshard/shard"
)

// zone is an n-vertex ring round (lon, lat), about r metres out, its
// radius varying by ±20% so the ring is irregular (a city boundary, an
// airport's pickup area).
func zone(lon, lat, r float64, n int) []float64 {
	rng := rand.New(rand.NewPCG(uint64(n), 5))
	const degM = 111_195.0 // metres per degree of latitude
	v := make([]float64, 0, 2*n)
	for i := range n {
		a := 2 * math.Pi * float64(i) / float64(n)
		d := r * (0.8 + 0.4*rng.Float64())
		v = append(v, lon+d*math.Cos(a)/(degM*math.Cos(lat*math.Pi/180)), lat+d*math.Sin(a)/degM)
	}
	return v
}

// bboxSearch is the BYBOX search over the polygon's bounding box: centred
// on it, as wide as the box at its equatorward edge, where it is widest.
func bboxSearch(p *geo.Polygon) *geo.Search {
	b := p.Box()
	lon, lat := (b.MinLon+b.MaxLon)/2, (b.MinLat+b.MaxLat)/2
	w := geo.Distance(b.MinLon, b.MinLat, b.MaxLon, b.MinLat)
	h := geo.Distance(lon, b.MinLat, lon, b.MaxLat)
	return geo.NewSearch(lon, lat, geo.Shape{Box: true, Width: w, Height: h, Unit: 1})
}

// BenchmarkPolygon compares, at 1M drivers, a BYPOLYGON search with the
// BYBOX search over its bounding box (both unsorted, no WITHDIST): the
// polygon target is to cost no more than the box plus its
// point-in-polygon tests.
func BenchmarkPolygon(b *testing.B) {
	r, _ := metro(b, shard.DefaultMap(), 1_000_000)
	zones := []struct {
		name string
		v    []float64
	}{
		{"airport-12", zone(4.80, 52.33, 2_000, 12)},
		{"city-200", zone(4.90, 52.37, 6_000, 200)},
	}
	for _, z := range zones {
		p := geo.NewPolygon(z.v)
		shapes := []struct {
			name string
			q    *geo.Search
		}{{"polygon", geo.NewPolygonSearch(p)}, {"bbox", bboxSearch(p)}}
		for _, s := range shapes {
			s.q.NeedDist = false
			b.Run(z.name+"/"+s.name, func(b *testing.B) {
				hits := 0
				for b.Loop() {
					hits = len(r.Search(drivers, s.q, 0).Hits)
				}
				b.ReportMetric(float64(hits), "hits")
			})
		}
	}
}
