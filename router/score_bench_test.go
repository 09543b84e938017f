package router

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"geoshard/shard"
)

// BenchmarkScore reads members' scores (ZSCORE, GEOPOS, GEODIST) of a 1M
// metro key; cpu-ns/op is the process's CPU per read. A narrow owner
// table reads the score in the member's shard.
func BenchmarkScore(b *testing.B) {
	r, _ := metro(b, shard.DefaultMap(), 1_000_000)
	names := make([]string, 1<<16)
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range names {
		names[i] = fmt.Sprintf("driver:%d", rng.IntN(1_000_000))
	}
	b.ResetTimer()
	cpu := cpuTime()
	i := 0
	for b.Loop() {
		if _, ok := r.Score(drivers, names[i&(len(names)-1)]); !ok {
			b.Fatal("member missing")
		}
		i++
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}
