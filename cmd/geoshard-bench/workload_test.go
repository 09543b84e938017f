package main

import (
	"math"
	"slices"
	"testing"
)

func TestFleetDeterministic(t *testing.T) {
	w := newWorkload(0.1)
	a, b := newFleet(w, 5000, 42), newFleet(w, 5000, 42)
	if !slices.Equal(a.lon, b.lon) || !slices.Equal(a.lat, b.lat) {
		t.Fatal("same seed gave different fleets")
	}
	c := newFleet(w, 5000, 43)
	if slices.Equal(a.lon, c.lon) {
		t.Fatal("different seeds gave the same fleet")
	}
	// A smaller fleet is a prefix of a larger one: -n changes the size,
	// not where the first drivers are.
	small := newFleet(w, 100, 42)
	if !slices.Equal(small.lon, a.lon[:100]) {
		t.Fatal("fleet of 100 is not a prefix of the fleet of 5000")
	}
}

func TestFleetInRegionAndClustered(t *testing.T) {
	tests := []struct {
		background  float64
		minNearCity float64 // share of drivers within 20 km of a metro centre
	}{
		{0, 0.99},
		{0.1, 0.85},
		{1, 0},
	}
	for _, tc := range tests {
		w := newWorkload(tc.background)
		f := newFleet(w, 20000, 1)
		near := 0
		for i := range f.size() {
			lon, lat := f.lon[i], f.lat[i]
			if !w.region.contains(lon, lat) || math.Abs(lat) > 85.05112878 {
				t.Fatalf("background %v: driver %d at %v,%v outside the region", tc.background, i, lon, lat)
			}
			for _, m := range w.metros {
				if distanceM(lon, lat, m.lon, m.lat) < 20_000 {
					near++
					break
				}
			}
		}
		share := float64(near) / float64(f.size())
		if share < tc.minNearCity {
			t.Errorf("background %v: %.3f of drivers near a city, want at least %.2f", tc.background, share, tc.minNearCity)
		}
		if tc.background == 1 && share > 0.5 {
			t.Errorf("all-background fleet still clustered: %.3f near a city", share)
		}
	}
}

func TestMoveIsSmall(t *testing.T) {
	w := newWorkload(0.1)
	rng := newRand(1, streamConn, 0, 0)
	lon, lat := 4.9041, 52.3676
	for range 10000 {
		nlon, nlat := w.move(rng, lon, lat)
		d := distanceM(lon, lat, nlon, nlat)
		if d < 1.9 || d > 50.1 {
			t.Fatalf("move of %.2f m, want 2..50 m", d)
		}
		lon, lat = nlon, nlat
	}
	// At the region's edge a move that would leave it stays put.
	edgeLon, edgeLat := w.region.maxLon, w.region.maxLat
	for range 1000 {
		nlon, nlat := w.move(rng, edgeLon, edgeLat)
		if !w.region.contains(nlon, nlat) {
			t.Fatalf("move left the region: %v,%v", nlon, nlat)
		}
	}
}

func TestRequestStreams(t *testing.T) {
	w := newWorkload(0.1)
	draw := func(phase, conn uint64) []float64 {
		rng := newRand(9, streamConn, phase, conn)
		var out []float64
		for range 50 {
			lon, lat := w.point(rng)
			out = append(out, lon, lat)
		}
		return out
	}
	if !slices.Equal(draw(1, 3), draw(1, 3)) {
		t.Fatal("same phase and connection gave different requests")
	}
	if slices.Equal(draw(1, 3), draw(1, 4)) || slices.Equal(draw(1, 3), draw(2, 3)) {
		t.Fatal("different connections or phases gave the same requests")
	}
}

// distanceM is the haversine distance Redis uses (earth radius 6372797.56 m).
func distanceM(lon1, lat1, lon2, lat2 float64) float64 {
	const r = 6372797.560856
	rad := math.Pi / 180
	u := math.Sin((lat2 - lat1) * rad / 2)
	v := math.Sin((lon2 - lon1) * rad / 2)
	return 2 * r * math.Asin(math.Sqrt(u*u+math.Cos(lat1*rad)*math.Cos(lat2*rad)*v*v))
}
