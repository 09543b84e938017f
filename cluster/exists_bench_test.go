package cluster

import (
	"fmt"
	"testing"
	"time"

	"geoshard/cluster/etcdtest"
	"geoshard/router"
	"geoshard/shard"
)

// BenchmarkKindLookup asks whether a geo key of 50,000 drivers has the
// name (what SET, GET, TYPE, EXISTS ask) through node a, with replicas
// (the default): TryCard gathers every member from every node to dedupe
// them, TryExists one copy a shard. cpu-us/op is the three nodes' CPU
// (one process). go test ./cluster -run X -bench KindLookup
func BenchmarkKindLookup(b *testing.B) {
	etcd := etcdtest.Start(b)
	nodes := map[string]*Node{}
	for i, id := range []string{"a", "b", "c"} {
		n, err := StartNode(router.New(router.Config{PositionTTL: time.Minute}), NodeConfig{
			Endpoints: []string{etcd.Endpoint}, Cluster: "t", ID: id, Advertise: fmt.Sprintf("127.0.0.1:%d", 1+i),
			Password: "pw", LeaseTTL: 5 * time.Second, Rebalance: 100 * time.Millisecond, Replicas: 1})
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
	members, scores := benchDrivers()
	key := shard.Key{Name: "drivers"}
	for i := 0; i < len(members); i += 500 {
		if _, _, err := nodes["a"].r.TryAddMany(key, members[i:i+500], scores[i:i+500], router.AddFlags{}); err != nil {
			b.Fatal(err)
		}
	}
	r := nodes["a"].r
	for _, bc := range []struct {
		name string
		ask  func() bool
	}{
		{"TryCard", func() bool { n, err := r.TryCard(key); return n > 0 && err == nil }},
		{"TryExists", func() bool { ok, err := r.TryExists(key); return ok && err == nil }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				if !bc.ask() {
					b.Fatal("the key does not exist")
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-us/op")
		})
	}
}
