package geo

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// ratContains is the reference point-in-polygon test: exact rational
// arithmetic, border included, even-odd rule inside.
func ratContains(v []float64, x, y float64) bool {
	rx, ry := new(big.Rat).SetFloat64(x), new(big.Rat).SetFloat64(y)
	n := len(v) / 2
	in := false
	for i := range n {
		j := (i + n - 1) % n
		ax, ay := new(big.Rat).SetFloat64(v[2*j]), new(big.Rat).SetFloat64(v[2*j+1])
		bx, by := new(big.Rat).SetFloat64(v[2*i]), new(big.Rat).SetFloat64(v[2*i+1])
		// o = (bx-ax)*(y-ay) - (by-ay)*(x-ax)
		t1 := new(big.Rat).Mul(new(big.Rat).Sub(bx, ax), new(big.Rat).Sub(ry, ay))
		t2 := new(big.Rat).Mul(new(big.Rat).Sub(by, ay), new(big.Rat).Sub(rx, ax))
		o := t1.Sub(t1, t2).Sign()
		minX, maxX := math.Min(v[2*j], v[2*i]), math.Max(v[2*j], v[2*i])
		minY, maxY := math.Min(v[2*j+1], v[2*i+1]), math.Max(v[2*j+1], v[2*i+1])
		if o == 0 && x >= minX && x <= maxX && y >= minY && y <= maxY {
			return true
		}
		if (v[2*j+1] > y) != (v[2*i+1] > y) {
			// The ray to +x crosses the edge where the point is left of an
			// upward edge or right of a downward one.
			if (v[2*i+1] > v[2*j+1]) == (o > 0) {
				in = !in
			}
		}
	}
	return in
}

func TestPolygonContains(t *testing.T) {
	square := []float64{0, 0, 2, 0, 2, 2, 0, 2}
	bowtie := []float64{0, 0, 2, 2, 2, 0, 0, 2} // crosses itself at (1, 1)
	// A ring that winds twice round (2,2): even-odd leaves the core out.
	twice := []float64{0, 0, 4, 0, 4, 4, 1, 4, 1, 1, 3, 1, 3, 3, 0, 3}
	tests := []struct {
		name string
		v    []float64
		x, y float64
		want bool
	}{
		{"inside", square, 1, 1, true},
		{"outside", square, 3, 1, false},
		{"west edge", square, 0, 1, true},
		{"east edge", square, 2, 1, true},
		{"south edge", square, 1, 0, true},
		{"north edge", square, 1, 2, true},
		{"vertex", square, 2, 2, true},
		{"past a vertex on its parallel", square, 3, 2, false},
		{"past a vertex on its meridian", square, 2, 3, false},
		{"bow-tie left lobe", bowtie, 0.5, 1, true},
		{"bow-tie right lobe", bowtie, 1.5, 1, true},
		{"bow-tie above the crossing", bowtie, 1, 1.5, false},
		{"bow-tie crossing point", bowtie, 1, 1, true},
		{"double winding core is out", twice, 2, 2, false},
		{"double winding ring is in", twice, 0.5, 0.5, true},
		{"diagonal edge", []float64{0, 0, 3, 3, 3, 0}, 1.5, 1.5, true},
		{"degenerate ring: on it", []float64{0, 0, 1, 1, 2, 2}, 1, 1, true},
		{"degenerate ring: off it", []float64{0, 0, 1, 1, 2, 2}, 1, 1.5, false},
	}
	for _, tc := range tests {
		if got := NewPolygon(tc.v).Contains(tc.x, tc.y); got != tc.want {
			t.Errorf("%s: Contains(%v, %v) = %v, want %v", tc.name, tc.x, tc.y, got, tc.want)
		}
		if got := ratContains(tc.v, tc.x, tc.y); got != tc.want {
			t.Errorf("%s: reference says %v, want %v", tc.name, got, tc.want)
		}
	}
}

// randomRing returns n vertices round (lon, lat) within r degrees: a star
// (simple) ring, or with self it visits them in random order.
func randomRing(rng *rand.Rand, lon, lat, r float64, n int, self bool) []float64 {
	v := make([]float64, 0, 2*n)
	for i := range n {
		a := 2 * math.Pi * (float64(i) + rng.Float64()*0.9) / float64(n)
		d := r * (0.2 + 0.8*rng.Float64())
		x := math.Min(math.Max(lon+d*math.Cos(a), MinLon), MaxLon)
		y := math.Min(math.Max(lat+d*math.Sin(a), MinLat), MaxLat)
		v = append(v, x, y)
	}
	if self {
		rng.Shuffle(n, func(i, j int) {
			v[2*i], v[2*j] = v[2*j], v[2*i]
			v[2*i+1], v[2*j+1] = v[2*j+1], v[2*i+1]
		})
	}
	return v
}

// Contains agrees with the exact reference on random points, on decoded
// member positions and on points placed exactly on vertices and edges.
func TestPolygonContainsMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for k := range 40 {
		v := randomRing(rng, rng.Float64()*300-150, rng.Float64()*140-70, 0.01+rng.Float64()*10, 3+rng.IntN(30), k%3 == 0)
		p := NewPolygon(v)
		b := p.Box()
		for range 40 {
			x := b.MinLon + rng.Float64()*(b.MaxLon-b.MinLon)
			y := b.MinLat + rng.Float64()*(b.MaxLat-b.MinLat)
			if k%2 == 0 {
				x, y = Decode(Encode(x, y))
			}
			if got, want := p.Contains(x, y), ratContains(v, x, y); got != want {
				t.Fatalf("ring %v point (%v, %v): Contains %v, exact %v", v, x, y, got, want)
			}
		}
		for i := 0; i < len(v); i += 2 {
			if !p.Contains(v[i], v[i+1]) {
				t.Fatalf("ring %v: vertex %d not contained", v, i/2)
			}
		}
	}
}

// Classify of any cell agrees with testing each point of it.
func TestPolygonClassify(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for k := range 60 {
		v := randomRing(rng, 4.9, 52.37, 0.05+rng.Float64()*0.3, 3+rng.IntN(40), k%4 == 0)
		q := NewPolygonSearch(NewPolygon(v))
		for range 200 {
			// A random aligned cell near the polygon, 4^k units wide.
			x, y := 4.9+(rng.Float64()-0.5), 52.37+(rng.Float64()-0.5)
			score := uint64(Encode(x, y))
			shift := 2 * uint(rng.IntN(13))
			lo := score >> shift << shift
			hi := lo + 1<<shift
			class := q.Classify(float64(lo), float64(hi))
			if class == Partial {
				continue
			}
			for range 50 {
				s := lo + rng.Uint64N(hi-lo)
				_, ok := q.Match(Decode(float64(s)))
				if ok != (class == Inside) {
					t.Fatalf("ring %v cell [%d,%d) classified %d, score %d matches %v", v, lo, hi, class, s, ok)
				}
			}
		}
	}
}

// Every point the polygon contains lies in a cell the plan scans, once.
func TestPolygonPlanCovers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for k := range 300 {
		lon, lat := rng.Float64()*340-170, rng.Float64()*160-80
		r := math.Pow(10, -3+rng.Float64()*5) // 1e-3 .. 100 degrees
		v := randomRing(rng, lon, lat, r, 3+rng.IntN(12), k%5 == 0)
		q := NewPolygonSearch(NewPolygon(v))
		for i, a := range q.Cells {
			for _, b := range q.Cells[i+1:] {
				if a.Min < b.Max && b.Min < a.Max {
					t.Fatalf("ring %v: cells %v and %v overlap", v, a, b)
				}
			}
		}
		b := q.Shape.Polygon.Box()
		for range 200 {
			x := b.MinLon + rng.Float64()*(b.MaxLon-b.MinLon)
			y := b.MinLat + rng.Float64()*(b.MaxLat-b.MinLat)
			s := Encode(x, y)
			if _, ok := q.Match(Decode(s)); ok && q.CellOf(s) < 0 {
				t.Fatalf("ring %v: contained point (%v, %v) in no scanned cell (step %d)", v, x, y, q.step)
			}
		}
	}
}

// Valkey's documented example: distances from the vertices' centroid, in
// metres.
func TestPolygonValkeyExample(t *testing.T) {
	p := NewPolygon([]float64{12.41098696654226, 38.05033923003755, 15.107936245794182, 38.00616649901906,
		18.148439288534455, 38.63804787603499, 17.80831874257693, 39.50316813110968, 12.458468633214036, 38.57719533463012})
	q := NewPolygonSearch(p)
	for _, tc := range []struct {
		lon, lat float64
		want     string // Valkey's WITHDIST
	}{
		{13.361389, 38.115556, "166482.0159"},
		{17.241510, 38.788135, "180861.7725"},
	} {
		d, ok := q.Match(Decode(Encode(tc.lon, tc.lat)))
		if got := string(AppendDist(nil, d)); !ok || got != tc.want {
			t.Errorf("(%v, %v): %v %s, want %s", tc.lon, tc.lat, ok, got, tc.want)
		}
	}
	for _, out := range [][2]float64{{15.087269, 37.502669}, {12.758489, 38.788135}} { // Catania, edge1
		if _, ok := q.Match(Decode(Encode(out[0], out[1]))); ok {
			t.Errorf("%v matched", out)
		}
	}
}
