package router

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// BenchmarkLoad adds 1M new drivers of a metro, the way a bulk load does
// (issue 10, target 3); cpu-ns/member is the process's CPU per member.
func BenchmarkLoad(b *testing.B) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(1, 2))
	cities := [][2]float64{{4.90, 52.37}, {4.48, 51.92}, {4.30, 52.07}, {5.12, 52.09}, {5.47, 51.44}}
	names := make([]string, n)
	scores := make([]float64, n)
	for i := range n {
		c := cities[rng.IntN(len(cities))]
		names[i] = fmt.Sprintf("driver:%d", i)
		scores[i] = geo.Encode(c[0]+rng.NormFloat64()*0.05, c[1]+rng.NormFloat64()*0.03)
	}
	var cpu time.Duration
	for b.Loop() {
		r := New(Config{Regions: shard.DefaultMap()})
		start := cpuTime()
		for i := range n {
			r.Add(drivers, names[i], scores[i], AddFlags{})
		}
		cpu += cpuTime() - start
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/n, "cpu-ns/member")
}
