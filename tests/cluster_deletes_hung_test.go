package tests

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterDeletesHungNode (issue 12): while the primary of some shards
// is SIGSTOPped (its lease still running, so it keeps them) and health
// checks found it hung, a ZREM of a member it holds cannot reach it: it
// must answer -TRYAGAIN, not `1` with the member left on the stopped
// node, which serves it again once it wakes. Before, ZREM deleted the
// replica's copy alone and answered 1, and after SIGCONT the member was
// back through every node.
func TestClusterDeletesHungNode(t *testing.T) {
	// Calls to node c wait the 1 s call timeout; the lease outlasts them.
	tc := startCluster(t, 3, "--regions", clusterMap(t), "--cluster-lease-ttl", "40")
	ds := faultDrivers(600)
	load(t, tc.nodes["a"].c, ds)
	on := membersOn(t, tc, "c", ds)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	a := tc.nodes["a"].c
	resume := hungPeer(t, tc.nodes["c"])
	// Once health checks find c hung, deletes are not even sent to it (a
	// call sent before waits in its socket and runs when it wakes).
	unreachable(t, ctx, a, "c")
	removed := map[string]bool{}
	for _, m := range on {
		n, err := a.ZRem(ctx, "drivers", m).Result()
		t.Logf("node c stopped: ZREM drivers %s: %d %v", m, n, err)
		switch {
		case err == nil:
			removed[m] = n == 1
		case !strings.HasPrefix(err.Error(), "TRYAGAIN shard "):
			t.Errorf("ZREM drivers %s with node c stopped: %v, want 1 or -TRYAGAIN", m, err)
		}
	}
	resume()

	// What was acknowledged must hold once c is back, through every node.
	for m, ok := range removed {
		if !ok {
			continue
		}
		for _, id := range tc.ids() {
			if got := zscoreWhenUp(t, ctx, tc.nodes[id].c, m); got != redis.Nil {
				t.Errorf("ZREM drivers %s answered 1 while node c was stopped; after SIGCONT ZSCORE through %s: %v, want nil (redis.Nil: the member is gone)",
					m, id, got)
			}
		}
	}
	// A refused delete goes through once c is back, as a client retrying
	// would find.
	for _, m := range on {
		if removed[m] {
			continue
		}
		retried(t, ctx, "ZREM drivers "+m, func() error { return a.ZRem(ctx, "drivers", m).Err() })
		for _, id := range tc.ids() {
			if got := zscoreWhenUp(t, ctx, tc.nodes[id].c, m); got != redis.Nil {
				t.Errorf("after ZREM drivers %s: ZSCORE through %s: %v, want nil (redis.Nil: the member is gone)", m, id, got)
			}
		}
	}
}

// zscoreWhenUp asks a member's score, waiting out refusals while a node
// that was stopped answers health checks again; it returns the error
// (redis.Nil: no such member) or nil when the member has a score.
func zscoreWhenUp(t *testing.T, ctx context.Context, c *redis.Client, m string) error {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		err := c.ZScore(ctx, "drivers", m).Err()
		if err == nil || err == redis.Nil || time.Now().After(deadline) ||
			!strings.HasPrefix(err.Error(), "TRYAGAIN") {
			return err
		}
	}
}

// retried runs a command until it is not refused with -TRYAGAIN.
func retried(t *testing.T, ctx context.Context, what string, do func() error) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		err := do()
		if err == nil {
			return
		}
		if time.Now().After(deadline) || !strings.HasPrefix(err.Error(), "TRYAGAIN") {
			t.Fatalf("%s after node c was resumed: %v", what, err)
		}
	}
}

// unreachable waits until node id shows as unreachable through c.
func unreachable(t *testing.T, ctx context.Context, c *redis.Client, id string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		lines, _ := c.Do(ctx, "GEOSHARD", "NODES").StringSlice()
		for _, l := range lines {
			if strings.HasPrefix(l, "member id="+id+" ") && strings.Contains(l, " state=unreachable") {
				return
			}
		}
	}
	t.Fatalf("node %s never shown unreachable", id)
}
