package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterDifferential sends the differential's random command streams
// through each node of a 3-node cluster in turn: every reply must equal
// redis-server's, as a single geoshard's does.
func TestClusterDifferential(t *testing.T) {
	ref := startRedis(t)
	single := startGeoshardPlain(t, "geoshard-single", "--position-ttl", "3600", "--fanout-timeout", "5000")
	tc := startCluster(t, 3, "--fanout-timeout", "5000")
	// Cluster-aware clients are told, on every node as on a single one,
	// what a standalone Redis tells them (tests/cluster_ops_test.go).
	for _, p := range []*serverProc{single, tc.nodes["a"].proc} {
		if r := dialRaw(t, p).mustDo(t, "CLUSTER", "SLOTS"); string(r) != "-ERR This instance has cluster support disabled\r\n" {
			t.Errorf("%s: CLUSTER SLOTS = %q", p.addr, r)
		}
	}
	n := diffCommands(t, 1000)
	for i, seed := range diffSeeds(t, 21, 22, 23) {
		id := string(rune('a' + i%3))
		t.Run(fmt.Sprintf("%s/node=%s", streamName(seed, false), id), func(t *testing.T) {
			runStream(t, seed, false, n, ref, []*serverProc{single, tc.nodes[id].proc})
		})
	}
}

// chaosDriver is one simulated driver's position.
type chaosDriver struct {
	name     string
	lon, lat float64
}

// TestClusterChaos kills and restarts nodes while drivers ping across
// borders through every node and searches run. A search never returns a
// driver twice and always answers within the fan-out timeout (plus
// slack); one ping interval after the shards of a dead node are
// reassigned, every driver is found again.
func TestClusterChaos(t *testing.T) {
	const (
		drivers  = 240
		interval = 250 * time.Millisecond
		fanout   = 200 * time.Millisecond
	)
	tc := startCluster(t, 3, "--regions", clusterMap(t), "--fanout-timeout", "200")
	rng := rand.New(rand.NewPCG(7, 7))
	ds := make([]chaosDriver, drivers)
	for i := range ds {
		ds[i] = chaosDriver{fmt.Sprintf("driver:%d", i), 4.72 + rng.Float64()*0.41, 52.26 + rng.Float64()*0.18}
	}

	var (
		mu       sync.Mutex
		live     = []*redis.Client{tc.nodes["a"].c, tc.nodes["b"].c, tc.nodes["c"].c}
		rounds   atomic.Int64 // ping rounds completed
		roundEnd sync.Map     // round -> time it ended
	)
	clients := func() []*redis.Client {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(live)
	}
	setLive := func(cs ...*redis.Client) {
		mu.Lock()
		live = cs
		mu.Unlock()
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	// Drivers: every round each one moves up to ~1 km and pings through a
	// node that changes from round to round.
	wg.Add(1)
	go func() {
		defer wg.Done()
		prng := rand.New(rand.NewPCG(8, 8))
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for round := 0; round < 400 && ctx.Err() == nil; round++ {
			cs := clients()
			pipes := make([]redis.Pipeliner, len(cs))
			for i, c := range cs {
				pipes[i] = c.Pipeline()
			}
			for i := range ds {
				d := &ds[i]
				d.lon = min(max(d.lon+(prng.Float64()-0.5)*0.02, 4.71), 5.14)
				d.lat = min(max(d.lat+(prng.Float64()-0.5)*0.01, 52.26), 52.45)
				pipes[(i+round)%len(pipes)].GeoAdd(ctx, "drivers", &redis.GeoLocation{Name: d.name, Longitude: d.lon, Latitude: d.lat})
			}
			var pw sync.WaitGroup
			for _, p := range pipes {
				pw.Add(1)
				go func() {
					defer pw.Done()
					pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
					p.Exec(pctx) // a ping through a node just killed is lost: the next one repairs it
					cancel()
				}()
			}
			pw.Wait()
			roundEnd.Store(rounds.Add(1), time.Now())
			select {
			case <-ctx.Done():
			case <-tick.C:
			}
		}
	}()

	// search asks a live node for every driver and checks nobody is
	// returned twice; it returns how many it found and how long it took.
	search := func() (int, time.Duration) {
		t.Helper()
		cs := clients()
		c := cs[rand.IntN(len(cs))]
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		begin := time.Now()
		res, err := c.GeoSearch(sctx, "drivers", &redis.GeoSearchQuery{Longitude: 4.92, Latitude: 52.35,
			Radius: 60, RadiusUnit: "km", Sort: "ASC"}).Result()
		took := time.Since(begin)
		if err != nil {
			t.Errorf("search: %v", err)
			return 0, took
		}
		seen := map[string]bool{}
		for _, m := range res {
			if seen[m] {
				t.Errorf("search returned %s twice", m)
			}
			seen[m] = true
		}
		return len(res), took
	}
	// whole waits until a search finds every driver, checking each search
	// returns in time, and returns how long it took.
	whole := func(limit time.Duration, what string) time.Duration {
		t.Helper()
		begin := time.Now()
		found := 0
		for time.Since(begin) < limit {
			n, took := search()
			if took > fanout+2*time.Second {
				t.Errorf("%s: a search took %v", what, took)
			}
			if found = n; n == drivers {
				return time.Since(begin)
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("%s: searches found %d of %d drivers after %v", what, found, drivers, limit)
		return 0
	}
	// afterRound waits until a full ping round has run after now.
	afterRound := func() {
		start := rounds.Load()
		for i := 0; i < 200 && rounds.Load() < start+2; i++ {
			time.Sleep(interval / 5)
		}
	}

	afterRound()
	whole(10*time.Second, "start")

	for _, victim := range []string{"c", "a"} {
		t.Logf("killing node %s", victim)
		killed := time.Now()
		tc.kill(victim)
		var rest []*redis.Client
		var restIDs []string
		for _, id := range []string{"a", "b", "c"} {
			if n, ok := tc.nodes[id]; ok {
				rest = append(rest, n.c)
				restIDs = append(restIDs, id)
			}
		}
		setLive(rest...)
		// While its lease runs out, searches keep answering in time.
		var slowest time.Duration
		for i := 0; i < 10; i++ {
			_, took := search()
			slowest = max(slowest, took)
			time.Sleep(50 * time.Millisecond)
		}
		if slowest > fanout+2*time.Second {
			t.Errorf("node %s down: slowest search %v", victim, slowest)
		}
		tc.settled(15*time.Second, restIDs...)
		reassigned := time.Since(killed)
		afterRound()
		w := whole(5*time.Second, "after reassignment")
		t.Logf("node %s killed: shards reassigned after %v, searches whole %v later (%v after the kill); slowest search while down %v",
			victim, reassigned.Round(time.Millisecond), w.Round(time.Millisecond),
			time.Since(killed).Round(time.Millisecond), slowest.Round(time.Millisecond))

		// It comes back (on a new port) and takes shards again.
		joined := time.Now()
		n := tc.start(victim)
		var all []*redis.Client
		for _, id := range []string{"a", "b", "c"} {
			all = append(all, tc.nodes[id].c)
		}
		tc.settled(20*time.Second, "a", "b", "c")
		setLive(all...)
		rebalanced := time.Since(joined)
		afterRound()
		w = whole(5*time.Second, "after rejoin")
		m, _ := clusterInfo(n.c)
		t.Logf("node %s rejoined: balanced after %v with %s shards, searches whole %v later",
			victim, rebalanced.Round(time.Millisecond), m["cluster_local_shards"], w.Round(time.Millisecond))
	}
	stop()
	wg.Wait()
}

// TestClusterEtcdDown stops etcd: the nodes keep serving with the last
// map, say so in INFO, and recover once etcd is back.
func TestClusterEtcdDown(t *testing.T) {
	tc := startCluster(t, 3, "--regions", clusterMap(t), "--fanout-timeout", "500")
	ctx := context.Background()
	for i := 0; i < 90; i++ {
		c := tc.nodes[string(rune('a'+i%3))].c
		if err := c.GeoAdd(ctx, "drivers", &redis.GeoLocation{Name: fmt.Sprintf("d%d", i),
			Longitude: 4.72 + float64(i)*0.0045, Latitude: 52.26 + float64(i%30)*0.006}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	count := func(c *redis.Client) int {
		res, err := c.GeoSearch(ctx, "drivers", &redis.GeoSearchQuery{Longitude: 4.92, Latitude: 52.35,
			Radius: 60, RadiusUnit: "km"}).Result()
		if err != nil {
			t.Fatalf("search: %v", err)
		}
		return len(res)
	}
	tc.etcd.Stop()
	// Past the lease TTL the nodes notice; they keep every shard.
	var info map[string]string
	for i := 0; i < 100; i++ {
		info, _ = clusterInfo(tc.nodes["a"].c)
		if info["cluster_etcd"] == "unreachable" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if info["cluster_etcd"] != "unreachable" || info["cluster_map"] != "last_known" {
		t.Fatalf("etcd down, INFO says etcd=%q map=%q", info["cluster_etcd"], info["cluster_map"])
	}
	for _, id := range []string{"a", "b", "c"} {
		if n := count(tc.nodes[id].c); n != 90 {
			t.Errorf("etcd down: node %s finds %d of 90", id, n)
		}
	}
	tc.etcd.Restart()
	tc.settled(20*time.Second, "a", "b", "c")
	for _, id := range []string{"a", "b", "c"} {
		if n := count(tc.nodes[id].c); n != 90 {
			t.Errorf("etcd back: node %s finds %d of 90", id, n)
		}
	}
}
