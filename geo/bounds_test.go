package geo

import (
	"math"
	"math/rand"
	"testing"
)

func randomCentre(rng *rand.Rand) (float64, float64) {
	switch rng.Intn(6) {
	case 0: // near the antimeridian
		return float64(1-2*rng.Intn(2)) * (180 - rng.Float64()*2), (rng.Float64() - 0.5) * 170
	case 1: // near the poles
		return (rng.Float64() - 0.5) * 360, float64(1-2*rng.Intn(2)) * (MaxLat - rng.Float64()*10)
	case 2: // exact edges
		edges := []float64{-180, 180, 0}
		lats := []float64{MinLat, MaxLat, 0}
		return edges[rng.Intn(3)], lats[rng.Intn(3)]
	}
	return (rng.Float64() - 0.5) * 360, (rng.Float64() - 0.5) * 2 * MaxLat
}

func randomShape(rng *rand.Rand) Shape {
	units := []float64{UnitM, UnitKM, UnitFT, UnitMI}
	unit := units[rng.Intn(len(units))]
	size := math.Pow(10, rng.Float64()*7.5) / unit // 1 m .. 30000 km
	if rng.Intn(20) == 0 {
		size = 0
	}
	if rng.Intn(2) == 0 {
		return Shape{Radius: size, Unit: unit}
	}
	return Shape{Box: true, Width: size * (0.2 + rng.Float64()*2), Height: size * (0.2 + rng.Float64()*2), Unit: unit}
}

// pointNear picks decoded positions around the shape's edge, where a
// too-small bound would show, and some anywhere.
func pointNear(rng *rand.Rand, s *Search) (float64, float64) {
	var lon, lat float64
	if rng.Intn(4) == 0 {
		lon, lat = (rng.Float64()-0.5)*360, (rng.Float64()-0.5)*2*MaxLat
	} else {
		extent := math.Max(s.radiusM, math.Max(s.widthM, s.heightM)) / EarthRadius / degToRad
		r := extent * (0.3 + rng.Float64()*1.5)
		a := rng.Float64() * 2 * math.Pi
		lat = s.Lat + r*math.Sin(a)
		lon = s.Lon + r*math.Cos(a)/math.Max(0.05, math.Cos(lat*degToRad))
		lon = math.Mod(lon+540, 360) - 180
		lat = math.Max(MinLat, math.Min(MaxLat, lat))
	}
	return Decode(Encode(lon, lat))
}

func TestBoundsContainEveryMatch(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	matched := 0
	for q := 0; q < 1500; q++ {
		lon, lat := randomCentre(rng)
		s := NewSearch(lon, lat, randomShape(rng))
		rects := s.Bounds(nil)
		for _, r := range rects {
			if r.MinLon > r.MaxLon || r.MinLat > r.MaxLat || r.MinLon < MinLon || r.MaxLon > MaxLon {
				t.Fatalf("search %+v: bad rect %+v", s.Shape, r)
			}
		}
		for i := 0; i < 400; i++ {
			plon, plat := pointNear(rng, s)
			if _, ok := s.Match(plon, plat); !ok {
				continue
			}
			matched++
			inside := false
			for _, r := range rects {
				inside = inside || r.Contains(plon, plat)
			}
			if !inside {
				t.Fatalf("centre %v,%v shape %+v: match %v,%v outside %+v", lon, lat, s.Shape, plon, plat, rects)
			}
		}
	}
	if matched < 10000 {
		t.Fatalf("only %d matches sampled", matched)
	}
}

func TestBoundsTight(t *testing.T) {
	tests := []struct {
		lon, lat float64
		shape    Shape
		n        int     // rectangles expected
		maxLon   float64 // max total longitude span, degrees
		maxLat   float64 // max latitude span, degrees
	}{
		{4.9, 52.37, Shape{Radius: 2, Unit: UnitKM}, 1, 0.06, 0.037},
		{4.9, 52.37, Shape{Box: true, Width: 4, Height: 2, Unit: UnitKM}, 1, 0.06, 0.019},
		{179.99, 0, Shape{Radius: 5, Unit: UnitKM}, 2, 0.091, 0.091},
		{-179.99, 0, Shape{Box: true, Width: 10, Height: 10, Unit: UnitKM}, 2, 0.091, 0.091},
		{0, 85, Shape{Radius: 1200, Unit: UnitKM}, 1, 360, 10.9},
		{0, 0, Shape{Radius: 50000, Unit: UnitKM}, 1, 360, 2 * MaxLat},
	}
	for _, tc := range tests {
		rects := NewSearch(tc.lon, tc.lat, tc.shape).Bounds(nil)
		if len(rects) != tc.n {
			t.Errorf("%v %v %+v: %d rects %+v", tc.lon, tc.lat, tc.shape, len(rects), rects)
			continue
		}
		lonSpan := 0.0
		for _, r := range rects {
			lonSpan += r.MaxLon - r.MinLon
			if r.MaxLat-r.MinLat > tc.maxLat {
				t.Errorf("%v %v %+v: lat span %v", tc.lon, tc.lat, tc.shape, r.MaxLat-r.MinLat)
			}
		}
		if lonSpan > tc.maxLon {
			t.Errorf("%v %v %+v: lon span %v > %v (%+v)", tc.lon, tc.lat, tc.shape, lonSpan, tc.maxLon, rects)
		}
	}
}

func TestMinDistanceLowerBound(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for q := 0; q < 3000; q++ {
		var r Rect
		w := math.Pow(10, rng.Float64()*4.5-3) // 0.001 .. 30 degrees
		h := math.Pow(10, rng.Float64()*4.5-3)
		r.MinLon = -180 + rng.Float64()*(360-w)
		r.MinLat = MinLat + rng.Float64()*(2*MaxLat-h)
		r.MaxLon, r.MaxLat = r.MinLon+w, math.Min(MaxLat, r.MinLat+h)
		if q%10 == 0 { // touching the antimeridian
			r.MaxLon = 180
			w = r.MaxLon - r.MinLon
		}
		lon, lat := randomCentre(rng)
		if q%3 == 0 { // close to the rectangle
			lon = r.MinLon + (rng.Float64()*3-1)*w
			lon = math.Mod(lon+540, 360) - 180
			lat = math.Max(MinLat, math.Min(MaxLat, r.MinLat+(rng.Float64()*3-1)*h))
		}
		lb := MinDistance(lon, lat, r)
		best := math.Inf(1)
		sample := func(plon, plat float64) {
			d := Distance(lon, lat, plon, plat)
			if d < lb {
				t.Fatalf("MinDistance(%v,%v,%+v) = %v > Distance to %v,%v = %v", lon, lat, r, lb, plon, plat, d)
			}
			best = math.Min(best, d)
		}
		for i := 0; i <= 200; i++ {
			f := float64(i) / 200
			sample(r.MinLon+f*(r.MaxLon-r.MinLon), r.MinLat)
			sample(r.MinLon+f*(r.MaxLon-r.MinLon), r.MaxLat)
			sample(r.MinLon, r.MinLat+f*(r.MaxLat-r.MinLat))
			sample(r.MaxLon, r.MinLat+f*(r.MaxLat-r.MinLat))
			sample(r.MinLon+rng.Float64()*(r.MaxLon-r.MinLon), r.MinLat+rng.Float64()*(r.MaxLat-r.MinLat))
		}
		if r.Contains(lon, lat) {
			if lb != 0 {
				t.Fatalf("inside but MinDistance = %v", lb)
			}
			continue
		}
		// Tight: within sampling error (edges sampled every 1/200) of the best.
		slack := 0.01*best + 1 + EarthRadius*degToRad*math.Max(w, h)/200
		if lb < best-slack {
			t.Fatalf("MinDistance(%v,%v,%+v) = %v, far below sampled %v", lon, lat, r, lb, best)
		}
	}
}

func TestMinDistanceCases(t *testing.T) {
	tests := []struct {
		lon, lat float64
		r        Rect
		want     float64 // approximate, metres
	}{
		{0, 0, Rect{-1, -1, 1, 1}, 0},
		{0, 3, Rect{-1, -1, 1, 1}, 2 * 111226.3},
		{179.5, 0, Rect{-180, -1, -179.5, 1}, 55613.2},        // the short way crosses the antimeridian
		{-179.5, 0, Rect{179, -1, 180, 1}, 55613.2},           // and the other way
		{0, 0, Rect{10, 5, 20, 10}, 1245420},                  // corner
		{0, 89, Rect{179, 80, 180, 85}, 0.5 * (2 * 111226.3)}, // over the pole... lower bound only
		{0, 0, Rect{1, 2, 0, 3}, 0},                           // empty rect
	}
	for _, tc := range tests {
		got := MinDistance(tc.lon, tc.lat, tc.r)
		if math.Abs(got-tc.want) > 0.01*tc.want+1 && !(tc.lat == 89 && got >= tc.want) {
			t.Errorf("MinDistance(%v,%v,%+v) = %v, want about %v", tc.lon, tc.lat, tc.r, got, tc.want)
		}
	}
}
