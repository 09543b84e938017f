package cluster

import (
	"os"
	"slices"
	"sync/atomic"
	"testing"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// BenchmarkNonOwnerReads reads scores of Amsterdam drivers from 16
// goroutines through a node that does not own their shard: concurrent
// small calls to one peer, which share one pipelined connection
// (buspipe.go); GEOSHARD_BENCH_PIPELINE_OFF=1 gives each its own pooled
// connection, as before. go test ./cluster -run X -bench NonOwnerReads
func BenchmarkNonOwnerReads(b *testing.B) {
	nodes := benchNodesWith(b, NodeConfig{pipelineOff: os.Getenv("GEOSHARD_BENCH_PIPELINE_OFF") != ""})
	members, scores := benchDrivers()
	key := shard.Key{Name: "drivers"}
	for i := 0; i < len(members); i += 500 {
		if _, _, err := nodes["a"].r.TryAddMany(key, members[i:i+500], scores[i:i+500], router.AddFlags{}); err != nil {
			b.Fatal(err)
		}
	}
	via := "a"
	for _, id := range []string{"a", "b", "c"} {
		if !nodes[id].Table().Local(nodes[id].r.Regions().Locate(geo.Decode(scores[0]))) {
			via = id
		}
	}
	r := nodes[via].r
	var next atomic.Int64
	cpu0 := cpuTime()
	b.ResetTimer()
	b.SetParallelism(8) // 16 goroutines on 2 cores
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := int(next.Add(1)) % len(members)
			if _, ok := r.Score(key, members[i]); !ok {
				b.Errorf("no score for %s", members[i])
				return
			}
		}
	})
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-us/op")
}

// BenchmarkNonOwnerScores reads the scores of 100 drivers at once (GEOPOS
// of a dispatch screen's drivers) through node a, the drivers spread over
// every node's shards. go test ./cluster -run X -bench NonOwnerScores
func BenchmarkNonOwnerScores(b *testing.B) {
	nodes := benchNodesWith(b, NodeConfig{})
	members, scores := benchDrivers()
	key := shard.Key{Name: "drivers"}
	for i := 0; i < len(members); i += 500 {
		if _, _, err := nodes["a"].r.TryAddMany(key, members[i:i+500], scores[i:i+500], router.AddFlags{}); err != nil {
			b.Fatal(err)
		}
	}
	const asked = 100
	step := len(members) / asked
	var ask []string
	for i := range asked {
		ask = append(ask, members[i*step])
	}
	r := nodes["a"].r
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		if _, ok := r.Scores(key, ask); slices.Contains(ok, false) {
			b.Fatalf("a score missing: %v", ok)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-us/op")
}
