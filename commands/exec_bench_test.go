package commands

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// cpuNow is the process's CPU time (user + system, every thread): a
// parallel benchmark reports CPU per op next to wall time per op, because
// on a shared machine wall time at -cpu 2 says more about the neighbours
// than about the code, while CPU per op at -cpu 2 against -cpu 1 shows
// what contention (cache lines moving between cores, lock hand-offs)
// costs each op.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// fleet is drivers around a few Dutch cities, as the load tool places
// them, with their GEOADD words prepared so that a benchmark measures the
// engine, not the formatting of its input.
type fleet struct {
	names [][]byte
	pos   [][2]float64
}

func newFleet(n int) *fleet {
	rng := rand.New(rand.NewPCG(3, 4))
	cities := [][2]float64{{4.90, 52.37}, {4.48, 51.92}, {4.30, 52.07}, {5.12, 52.09}, {5.47, 51.44}}
	f := &fleet{names: make([][]byte, n), pos: make([][2]float64, n)}
	for i := range n {
		c := cities[rng.IntN(len(cities))]
		f.names[i] = []byte("driver:" + strconv.Itoa(i))
		f.pos[i] = [2]float64{c[0] + rng.NormFloat64()*0.05, c[1] + rng.NormFloat64()*0.03}
	}
	return f
}

// move shifts driver i 2-50 m and returns its new position as GEOADD words.
func (f *fleet) move(rng *rand.Rand, i int, lon, lat []byte) ([]byte, []byte) {
	p := &f.pos[i]
	step := (2 + rng.Float64()*48) / 111_000
	angle := rng.Float64() * 2 * math.Pi
	p[0] += step * math.Cos(angle) * 1.6
	p[1] += step * math.Sin(angle)
	return strconv.AppendFloat(lon[:0], p[0], 'f', 6, 64), strconv.AppendFloat(lat[:0], p[1], 'f', 6, 64)
}

// loadFleet writes the whole fleet with 100-member GEOADDs.
func loadFleet(b *testing.B, e *Engine, f *fleet) {
	c := e.NewClient("127.0.0.1:50000", "127.0.0.1:6379")
	argv := [][]byte{[]byte("GEOADD"), []byte("drivers")}
	for i := range f.names {
		argv = append(argv, strconv.AppendFloat(nil, f.pos[i][0], 'f', 6, 64),
			strconv.AppendFloat(nil, f.pos[i][1], 'f', 6, 64), f.names[i])
		if len(argv) == 2+300 || i == len(f.names)-1 {
			c.W.Buf = c.W.Buf[:0]
			e.Exec(c, argv)
			if c.W.Buf[0] != ':' {
				b.Fatalf("load: %q", c.W.Buf)
			}
			argv = argv[:2]
		}
	}
}

// BenchmarkExecGeoaddMove is the load tool's update phase inside the
// engine: one GEOADD moving an existing driver, through Exec as a
// connection runs it (command lookup, checks, counters, keyspace lock,
// router). Compare -cpu 1,2 for how the engine scales with cores.
func BenchmarkExecGeoaddMove(b *testing.B) {
	const n = 200_000
	e := testEngine(b)
	f := newFleet(n)
	loadFleet(b, e, f)
	var next atomic.Int64
	stride := runtime.GOMAXPROCS(0)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuNow()
	defer func() { b.ReportMetric(float64(cpuNow()-cpu)/float64(b.N), "cpu-ns/op") }()
	b.RunParallel(func(pb *testing.PB) {
		// Each goroutine moves its own drivers, so f.pos needs no lock.
		id := int(next.Add(1)-1) % stride
		rng := rand.New(rand.NewPCG(uint64(id), 7))
		c := e.NewClient("127.0.0.1:50001", "127.0.0.1:6379")
		argv := [][]byte{[]byte("GEOADD"), []byte("drivers"), nil, nil, nil}
		var lon, lat []byte
		for i := id; pb.Next(); {
			lon, lat = f.move(rng, i, lon, lat)
			argv[2], argv[3], argv[4] = lon, lat, f.names[i]
			c.W.Buf = c.W.Buf[:0]
			e.Exec(c, argv)
			if c.W.Buf[0] != ':' {
				b.Fatalf("update: %q", c.W.Buf)
			}
			if i += stride; i >= n {
				i = id
			}
		}
	})
}

// BenchmarkExecGeoaddLoad is the load tool's bulk load inside the engine:
// GEOADDs of 100 new members each, into a fresh key of at most 100,000
// members; an op is one member (so -benchtime Nx loads N members).
func BenchmarkExecGeoaddLoad(b *testing.B) {
	f := newFleet(100_000)
	e := testEngine(b)
	c := e.NewClient("127.0.0.1:50000", "127.0.0.1:6379")
	argv := [][]byte{[]byte("GEOADD"), []byte("drivers")}
	words := make([][3][]byte, len(f.names))
	for i := range f.names {
		words[i] = [3][]byte{strconv.AppendFloat(nil, f.pos[i][0], 'f', 6, 64),
			strconv.AppendFloat(nil, f.pos[i][1], 'f', 6, 64), f.names[i]}
	}
	b.ReportAllocs()
	i := 0
	for n := 0; n < b.N; n++ {
		argv = append(argv, words[i][0], words[i][1], words[i][2])
		i++
		if len(argv) < 2+300 && n < b.N-1 && i < len(words) {
			continue
		}
		c.W.Buf = c.W.Buf[:0]
		e.Exec(c, argv)
		if c.W.Buf[0] != ':' {
			b.Fatalf("load: %q", c.W.Buf)
		}
		argv = argv[:2]
		if i == len(words) { // the fleet is in: the next members go to a fresh key
			b.StopTimer()
			c.W.Buf = c.W.Buf[:0]
			e.Exec(c, [][]byte{[]byte("DEL"), []byte("drivers")})
			i = 0
			b.StartTimer()
		}
	}
}
