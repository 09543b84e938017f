package cluster

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"geoshard/cluster/etcdtest"
	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// BenchmarkColdLoad loads 50,000 drivers (as the tests' faultDrivers: most
// around Amsterdam, a fifth world-wide) into a fresh key through one of
// three in-process nodes, 500 a call as a GEOADD of 500 would.
// go test ./cluster -run X -bench ColdLoad -benchtime 5x
// benchNodes starts three in-process nodes on real buses and waits until
// node b has its share of shards. They run with one replica per shard, as
// nodes do by default (cluster-replicas 1); GEOSHARD_BENCH_REPLICAS=0
// measures without.
func benchNodes(b *testing.B) map[string]*Node {
	return benchNodesWith(b, NodeConfig{Replicas: benchReplicas()})
}

// benchReplicas is the benchmarks' replicas per shard: 1, or
// GEOSHARD_BENCH_REPLICAS.
func benchReplicas() int {
	if os.Getenv("GEOSHARD_BENCH_REPLICAS") == "0" {
		return 0
	}
	return 1
}

// benchNodesWith is benchNodes with the test-only fields of extra set on
// every node.
func benchNodesWith(b *testing.B, extra NodeConfig) map[string]*Node {
	etcd := etcdtest.Start(b)
	nodes := map[string]*Node{}
	for i, id := range []string{"a", "b", "c"} {
		n, err := StartNode(router.New(router.Config{PositionTTL: time.Minute}), NodeConfig{
			Endpoints: []string{etcd.Endpoint}, Cluster: "t", ID: id, Advertise: fmt.Sprintf("127.0.0.1:%d", 1+i),
			Password: "pw", LeaseTTL: 5 * time.Second, Rebalance: 100 * time.Millisecond,
			Replicas: extra.Replicas, pipelineOff: extra.pipelineOff})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(n.Close)
		nodes[id] = n
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if s := nodes["b"].Status(); s.Members == 3 && s.DownShards == 0 && s.LocalShards > 0 {
			break
		} else if time.Now().After(deadline) {
			b.Fatalf("nodes did not settle: %+v", s)
		}
	}
	time.Sleep(time.Second) // rebalancing steps
	if extra.Replicas > 0 {
		replicated(b, nodes)
		steady(b, nodes)
	}
	return nodes
}

// steady waits until no node's table changed for a second (ten
// rebalancing steps): a replica moved during a benchmark fills from its
// primary, whose copying would be counted as the benchmark's.
func steady(b *testing.B, nodes map[string]*Node) {
	last, since := int64(-1), time.Now()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		v := int64(0)
		for _, n := range nodes {
			v = v*1000 + n.Table().Version
		}
		if v != last {
			last, since = v, time.Now()
		} else if time.Since(since) > time.Second {
			return
		}
	}
	b.Fatal("the nodes' tables did not stay the same for a second")
}

// benchDrivers are 50,000 drivers as the tests' faultDrivers: most around
// Amsterdam, a fifth world-wide.
func benchDrivers() ([]string, []float64) {
	rng := rand.New(rand.NewPCG(12, 12))
	members, scores := make([]string, 50000), make([]float64, 50000)
	for i := range members {
		lon, lat := 4.9+(rng.Float64()-0.5)*0.6, 52.37+(rng.Float64()-0.5)*0.36
		if i%5 == 4 {
			lon, lat = -179+rng.Float64()*358, -80+rng.Float64()*160
		}
		members[i], scores[i] = fmt.Sprintf("driver:%d", i), geo.Encode(lon, lat)
	}
	return members, scores
}

func BenchmarkColdLoad(b *testing.B) {
	nodes := benchNodes(b)
	members, scores := benchDrivers()
	r := nodes["b"].r
	cpu0 := cpuTime()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		key := shard.Key{Name: fmt.Sprintf("drivers%d", n)}
		for i := 0; i < len(members); i += 500 {
			if _, _, err := r.TryAddMany(key, members[i:i+500], scores[i:i+500], router.AddFlags{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// cpuTime is the process's CPU time so far (user and system): the three
// nodes' work, which a loaded machine does not inflate as it does wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkNonOwnerUpdates writes existing Amsterdam drivers again, one
// member a call from 16 goroutines, through a node that does not own
// their shard. go test ./cluster -run X -bench NonOwnerUpdates
func BenchmarkNonOwnerUpdates(b *testing.B) {
	nodes := benchNodes(b)
	members, scores := benchDrivers()
	key := shard.Key{Name: "drivers"}
	// Through the node that holds the shard neither as primary nor as
	// replica (with one replica, exactly one of three), so every run takes
	// the same path: the conditional put to the primary, then the copy to
	// the replica in a message of its own. Through the replica's node the
	// second message is a local write, and a run cost 15 us of CPU per op
	// where another cost 23-27 (the placement is the leader's choice).
	via := "a"
	for _, id := range []string{"a", "b", "c"} {
		if !nodes[id].Table().Holds(nodes[id].r.Regions().Locate(geo.Decode(scores[0]))) {
			via = id
		}
	}
	r := nodes[via].r
	for i := 0; i < len(members); i += 500 {
		if _, _, err := nodes["a"].r.TryAddMany(key, members[i:i+500], scores[i:i+500], router.AddFlags{}); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < len(members); i += 500 { // via learns where they are
		if _, _, err := r.TryAddMany(key, members[i:i+500], scores[i:i+500], router.AddFlags{}); err != nil {
			b.Fatal(err)
		}
	}
	var next atomic.Int64
	cpu0 := cpuTime()
	b.ResetTimer()
	b.SetParallelism(8) // 16 goroutines on 2 cores
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := int(next.Add(1)) % len(members)
			if i%5 == 4 {
				continue // world-wide: not the Amsterdam shard
			}
			if _, _, err := r.TryAddMany(key, members[i:i+1], scores[i:i+1], router.AddFlags{}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-us/op")
}
