package tests

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// timedLoad loads the drivers through c (500 a GEOADD, as load) and
// returns how long it took; the key must then hold every driver.
func timedLoad(t *testing.T, c *redis.Client, ds []*redis.GeoLocation) time.Duration {
	t.Helper()
	begin := time.Now()
	load(t, c, ds)
	took := time.Since(begin)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if n, err := c.ZCard(ctx, "drivers").Result(); n != int64(len(ds)) || err != nil {
		t.Fatalf("after the load ZCARD is %d (%v), want %d", n, err, len(ds))
	}
	return took
}

// TestClusterColdLoad (issue 12, defect 8 / target 6): a cold load of
// 50,000 drivers through one node of three took 8.6-11.3 s against 0.4 s
// on a single node, each new member asking every node for a copy of it.
// It must take at most twice the single node's time.
func TestClusterColdLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 50,000 drivers three times")
	}
	ds := faultDrivers(50000)
	single := startGeoshardPlain(t, "single", "--position-ttl", "3600")
	sc := redis.NewClient(&redis.Options{Addr: single.addr, Protocol: 2, DisableIdentity: true})
	defer sc.Close()
	tc := startCluster(t, 3, "--cluster-lease-ttl", "5")
	one := timedLoad(t, sc, ds)
	through := map[string]time.Duration{}
	for _, id := range []string{"b", "c"} {
		// Node c loads the same drivers again: existing members, the
		// writes then replace copies other nodes hold.
		through[id] = timedLoad(t, tc.nodes[id].c, ds)
	}
	t.Logf("50,000 drivers, 500 a GEOADD: single node %v; 3 nodes, cold through b %v, again through c %v",
		one.Round(time.Millisecond), through["b"].Round(time.Millisecond), through["c"].Round(time.Millisecond))
	if through["b"] > 2*one+200*time.Millisecond {
		t.Errorf("cold load through a node took %v, more than twice the single node's %v", through["b"], one)
	}
}
