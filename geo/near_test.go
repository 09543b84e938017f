package geo

import (
	"math/rand/v2"
	"testing"
)

// Near.Bound never exceeds the true distance to a point of the rectangle,
// and is not uselessly loose next to MinDistance.
func TestNearBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	loose := 0
	for i := range 20000 {
		lon, lat := rng.Float64()*360-180, rng.Float64()*170-85
		if i%2 == 0 { // near neighbours, as in a nearest-first walk
			lon, lat = 4.9+rng.NormFloat64()*0.1, 52.3+rng.NormFloat64()*0.1
		}
		w, h := rng.Float64()*rng.Float64()*40, rng.Float64()*rng.Float64()*20
		if i%2 == 0 {
			w, h = w/100, h/100
		}
		cx, cy := lon+rng.NormFloat64()*(1+w), lat+rng.NormFloat64()*(1+h)
		r := Rect{MinLon: max(cx-w/2, -180), MaxLon: min(cx+w/2, 180), MinLat: max(cy-h/2, -85), MaxLat: min(cy+h/2, 85)}
		if r.MinLon > r.MaxLon || r.MinLat > r.MaxLat {
			continue
		}
		n := NewNear(lon, lat)
		b := n.Bound(r)
		for range 20 {
			plon := r.MinLon + rng.Float64()*(r.MaxLon-r.MinLon)
			plat := r.MinLat + rng.Float64()*(r.MaxLat-r.MinLat)
			if d := Distance(lon, lat, plon, plat); b > d {
				t.Fatalf("bound %v exceeds distance %v from (%v,%v) to (%v,%v) in %+v", b, d, lon, lat, plon, plat, r)
			}
		}
		if exact := MinDistance(lon, lat, r); b < exact*0.9-1 {
			loose++
		}
	}
	if loose > 2000 {
		t.Fatalf("bound more than 10%% below MinDistance in %d of 20000 cases", loose)
	}
}

func BenchmarkNearBound(b *testing.B) {
	n := NewNear(4.9, 52.37)
	r := Rect{MinLon: 4.95, MinLat: 52.40, MaxLon: 4.97, MaxLat: 52.41}
	for b.Loop() {
		n.Bound(r)
	}
}

func BenchmarkMinDistance(b *testing.B) {
	r := Rect{MinLon: 4.95, MinLat: 52.40, MaxLon: 4.97, MaxLat: 52.41}
	for b.Loop() {
		MinDistance(4.9, 52.37, r)
	}
}
