package router

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"geoshard/shard"
)

// BenchmarkBigKeyScores reads 100 members' scores of a 1M metro key in one
// call (GEOPOS, GEOHASH, ZMSCORE of 100 members), to set against
// BenchmarkBigKeyReads/geopos-100, which reads them one Score at a time.
func BenchmarkBigKeyScores(b *testing.B) {
	r, _ := metro(b, shard.DefaultMap(), 1_000_000)
	rng := rand.New(rand.NewPCG(7, 7))
	names := make([]string, 100)
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		for i := range names {
			names[i] = fmt.Sprintf("driver:%d", rng.IntN(1_000_000))
		}
		for _, ok := range mustScores(b, r, names) {
			if !ok {
				b.Fatal("member missing")
			}
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

func mustScores(b *testing.B, r *Router, names []string) []bool {
	_, ok := r.Scores(drivers, names)
	return ok
}
