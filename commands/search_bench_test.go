package commands

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// benchmarkExecSearch runs one GEOSEARCH shape of the load tool through
// Exec over 200,000 metro drivers, centred on random drivers, and reports
// the process's CPU per search next to the garbage (-benchmem): what the
// server does for a search short of the socket.
func benchmarkExecSearch(b *testing.B, opts ...string) {
	const n = 200_000
	e := testEngine(b)
	f := newFleet(n)
	loadFleet(b, e, f)
	c := e.NewClient("127.0.0.1:50002", "127.0.0.1:6379")
	argv := [][]byte{[]byte("GEOSEARCH"), []byte("drivers"), []byte("FROMLONLAT"), nil, nil}
	for _, o := range opts {
		argv = append(argv, []byte(o))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var lon, lat []byte
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuNow()
	for b.Loop() {
		p := f.pos[rng.IntN(n)]
		lon, lat = strconv.AppendFloat(lon[:0], p[0], 'f', 6, 64), strconv.AppendFloat(lat[:0], p[1], 'f', 6, 64)
		argv[3], argv[4] = lon, lat
		c.W.Buf = c.W.Buf[:0]
		e.Exec(c, argv)
		if c.W.Buf[0] != '*' {
			b.Fatalf("search: %q", c.W.Buf)
		}
	}
	b.ReportMetric(float64(cpuNow()-cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkExecGeosearchKnn is the load tool's knn phase: 2 km, the 10
// nearest with their distances.
func BenchmarkExecGeosearchKnn(b *testing.B) {
	benchmarkExecSearch(b, "BYRADIUS", "2", "km", "ASC", "COUNT", "10", "WITHDIST")
}

// BenchmarkExecGeosearchWide is the load tool's wide phase: every driver
// within 5 km, unsorted.
func BenchmarkExecGeosearchWide(b *testing.B) {
	benchmarkExecSearch(b, "BYRADIUS", "5", "km")
}
