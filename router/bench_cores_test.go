package router

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"

	"geoshard/geo"
	"geoshard/shard"
)

// BenchmarkUpdateShareNothing is BenchmarkUpdateParallel's control: every
// processor moves drivers of its own router (same map, same 200,000
// drivers), so no two cores ever write one cache line. What -cpu 2 gains
// over -cpu 1 here is what the machine gives this code with no sharing
// at all: the ceiling BenchmarkUpdateParallel can reach.
func BenchmarkUpdateShareNothing(b *testing.B) {
	maps := []struct {
		name string
		m    *shard.Map
	}{
		{"one-shard", shard.GridMap(3.0, 50.5, 7.0, 53.5, 1, 1, 200)},
		{"four-shards", shard.GridMap(3.0, 50.5, 7.0, 53.5, 2, 2, 200)},
	}
	const n = 200_000
	for _, mc := range maps {
		b.Run(mc.name, func(b *testing.B) {
			procs := runtime.GOMAXPROCS(0)
			routers := make([]*Router, procs)
			names := make([]string, n)
			start := make([][2]float64, n)
			rng := rand.New(rand.NewPCG(3, 4))
			cities := [][2]float64{{4.90, 52.37}, {4.48, 51.92}, {4.30, 52.07}, {5.12, 52.09}, {5.47, 51.44}}
			for i := range n {
				c := cities[rng.IntN(len(cities))]
				names[i] = fmt.Sprintf("driver:%d", i)
				start[i] = [2]float64{c[0] + rng.NormFloat64()*0.05, c[1] + rng.NormFloat64()*0.03}
			}
			pos := make([][][2]float64, procs)
			for p := range routers {
				routers[p] = New(Config{Regions: mc.m})
				pos[p] = append([][2]float64(nil), start...)
				for i := range n {
					routers[p].Add(drivers, names[i], geo.Encode(start[i][0], start[i][1]), AddFlags{})
				}
			}
			var next atomic.Int64
			b.ResetTimer()
			cpu := readCPU()
			defer cpu.report(b)
			b.RunParallel(func(pb *testing.PB) {
				id := int(next.Add(1)-1) % procs
				r, pos := routers[id], pos[id]
				rng := rand.New(rand.NewPCG(uint64(id), 7))
				i := 0
				for pb.Next() {
					p := &pos[i]
					step := (2 + rng.Float64()*48) / 111_000
					angle := rng.Float64() * 2 * math.Pi
					p[0] += step * math.Cos(angle) * 1.6
					p[1] += step * math.Sin(angle)
					r.Add(drivers, names[i], geo.Encode(p[0], p[1]), AddFlags{})
					if i++; i >= n {
						i = 0
					}
				}
			})
		})
	}
}

// BenchmarkWriteBookkeeping is what every single-node write does before
// it reaches a shard (find the key under the router's lock, lock the
// member's stripe, take a stamp from the global clock), from every
// processor at once: with one router all share (its key map lock's reader
// count and its clock are lines both cores write on every write), and
// with a router of their own (nothing shared). cpu-ns/op at -cpu 2 less
// that at -cpu 1 is what those shared lines cost a write.
func BenchmarkWriteBookkeeping(b *testing.B) {
	const members = 1 << 16
	hashes := make([]uint64, members)
	for i := range hashes {
		hashes[i] = shard.Hash(fmt.Sprintf("driver:%d", i))
	}
	op := func(r *Router, h uint64) int64 {
		_, st := r.lockMemberHash(drivers, "", h, false)
		s := r.stamp()
		st.mu.Unlock()
		return s
	}
	for _, own := range []bool{false, true} {
		name := map[bool]string{false: "shared", true: "own-router"}[own]
		b.Run(name, func(b *testing.B) {
			stride := runtime.GOMAXPROCS(0)
			routers := make([]*Router, stride)
			for p := range routers {
				if p == 0 || own {
					routers[p] = New(Config{})
					routers[p].Add(drivers, "driver:0", geo.Encode(4.9, 52.37), AddFlags{})
				} else {
					routers[p] = routers[0]
				}
			}
			var next atomic.Int64
			b.ResetTimer()
			cpu := readCPU()
			defer cpu.report(b)
			b.RunParallel(func(pb *testing.PB) {
				i := int(next.Add(1) - 1)
				r := routers[i%stride]
				for pb.Next() {
					op(r, hashes[i%members])
					i += stride
				}
			})
		})
	}
}
