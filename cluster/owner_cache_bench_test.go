package cluster

import (
	"fmt"
	"syscall"
	"testing"

	"geoshard/cluster/etcdtest"
	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// BenchmarkClusterUpdate: in-place updates of known members through a
// node that holds the shard neither as primary nor as replica (every write
// crosses the bus to both), three in-process nodes. It reports the CPU
// time of the whole process per write (all three nodes), which depends
// less on the machine's load than the wall time does.
func BenchmarkClusterUpdate(b *testing.B) {
	etcd := etcdtest.Start(b)
	nodes := startReplicated(b, etcd.Endpoint, "a", "b", "c")
	tb := replicated(b, nodes)
	m := nodes["a"].r.Regions()
	s1, _, x, _ := samePair(b, tb, m)
	p := pointIn(b, m, s1)
	rx := nodes[x].r
	k := shard.Key{Name: "bench"}
	const members = 1000
	for i := 0; i < members; i++ {
		if _, _, err := rx.TryAdd(k, fmt.Sprint("m", i), geo.Encode(p[0], p[1]), router.AddFlags{}); err != nil {
			b.Fatal(err)
		}
	}
	var before, after syscall.Rusage
	b.ReportAllocs()
	b.ResetTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	for i := 0; i < b.N; i++ {
		d := float64(i%100) * 1e-5
		if _, _, err := rx.TryAdd(k, fmt.Sprint("m", i%members), geo.Encode(p[0]+d, p[1]), router.AddFlags{}); err != nil {
			b.Fatal(err)
		}
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := func(r syscall.Rusage) int64 { return r.Utime.Nano() + r.Stime.Nano() }
	b.ReportMetric(float64(cpu(after)-cpu(before))/float64(b.N), "cpu-ns/op")
}
