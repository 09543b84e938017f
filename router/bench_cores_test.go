package router

import (
	"fmt"
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
	const n = 200_000
	for _, mc := range updateMaps() {
		b.Run(mc.name, func(b *testing.B) {
			procs := runtime.GOMAXPROCS(0)
			routers := make([]*Router, procs)
			names, start := metroDrivers(n)
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
					moveDriver(rng, &pos[i])
					r.Add(drivers, names[i], geo.Encode(pos[i][0], pos[i][1]), AddFlags{})
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
