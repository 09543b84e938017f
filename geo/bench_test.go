package geo

import (
	"math/rand"
	"testing"
)

var (
	benchSink  float64
	benchBytes []byte
)

func benchPoints(n int) [][2]float64 {
	rng := rand.New(rand.NewSource(7))
	out := make([][2]float64, n)
	for i := range out {
		out[i] = [2]float64{(rng.Float64() - 0.5) * 360, (rng.Float64() - 0.5) * 2 * MaxLat}
	}
	return out
}

func BenchmarkEncode(b *testing.B) {
	pts := benchPoints(1024)
	for i := 0; i < b.N; i++ {
		p := pts[i&1023]
		benchSink += Encode(p[0], p[1])
	}
}

func BenchmarkDecode(b *testing.B) {
	pts := benchPoints(1024)
	scores := make([]float64, len(pts))
	for i, p := range pts {
		scores[i] = Encode(p[0], p[1])
	}
	for i := 0; i < b.N; i++ {
		lon, lat := Decode(scores[i&1023])
		benchSink += lon + lat
	}
}

func BenchmarkDistance(b *testing.B) {
	pts := benchPoints(1024)
	for i := 0; i < b.N; i++ {
		p, q := pts[i&1023], pts[(i+1)&1023]
		benchSink += Distance(p[0], p[1], q[0], q[1])
	}
}

func BenchmarkParseFloat(b *testing.B) {
	in := [][]byte{[]byte("13.361389"), []byte("-73.9454966"), []byte("200"), []byte("38.115556")}
	for i := 0; i < b.N; i++ {
		v, _ := ParseFloat(in[i&3])
		benchSink += v
	}
}

func BenchmarkAppendCoord(b *testing.B) {
	lon, lat := Decode(3479099956230698)
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = AppendCoord(buf[:0], lon)
		buf = AppendCoord(buf, lat)
	}
	benchBytes = buf
}

func BenchmarkAppendDist(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = AppendDist(buf[:0], 166274.15156960033+float64(i&1023))
	}
	benchBytes = buf
}

func BenchmarkNewSearch(b *testing.B) {
	shapes := []Shape{{Radius: 2, Unit: UnitKM}, {Box: true, Width: 4, Height: 3, Unit: UnitKM}}
	for i := 0; i < b.N; i++ {
		s := NewSearch(4.90, 52.37, shapes[i&1])
		benchSink += s.Cells[0].Min
	}
}

func BenchmarkMatch(b *testing.B) {
	s := NewSearch(4.90, 52.37, Shape{Radius: 2, Unit: UnitKM})
	lon, lat := Decode(Encode(4.8952, 52.3702))
	for i := 0; i < b.N; i++ {
		d, _ := s.Match(lon, lat)
		benchSink += d
	}
}

func BenchmarkSortTop(b *testing.B) {
	rng := rand.New(rand.NewSource(8))
	base := make([]float64, 1000)
	for i := range base {
		base[i] = rng.Float64() * 2000
	}
	work := make([]float64, len(base))
	dist := func(x *float64) float64 { return *x }
	for i := 0; i < b.N; i++ {
		copy(work, base)
		SortTop(work, 10, dist, false)
	}
}
