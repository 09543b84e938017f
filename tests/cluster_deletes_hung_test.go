package tests

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterDeletesHungNode (issue 12): while the primary of some shards
// is SIGSTOPped (its lease still running, so it keeps them), a ZREM of a
// member it holds and a FLUSHALL cannot reach it: they must answer
// -TRYAGAIN, not `1` and `OK` with the member left on the stopped node,
// which serves it again once it wakes. Before, ZREM deleted the replica's
// copy alone and answered 1, FLUSHALL flushed the others and answered OK,
// and after SIGCONT the members were back through every node.
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
	err := a.FlushAll(ctx).Err()
	t.Logf("node c stopped: FLUSHALL: %v", err)
	flushed := err == nil
	if err != nil && !strings.HasPrefix(err.Error(), "TRYAGAIN shard ") {
		t.Errorf("FLUSHALL with node c stopped: %v, want OK or -TRYAGAIN", err)
	}
	resume()

	// What was acknowledged must hold once c is back, through every node.
	for m, ok := range removed {
		if !ok {
			continue
		}
		for _, id := range tc.ids() {
			if got := zscoreWhenUp(t, ctx, tc.nodes[id].c, m); got != redis.Nil {
				t.Errorf("ZREM drivers %s answered 1 while node c was stopped; after SIGCONT ZSCORE through %s: %v",
					m, id, got)
			}
		}
	}
	if flushed {
		for _, id := range tc.ids() {
			if n, err := tc.nodes[id].c.ZCard(ctx, "drivers").Result(); n != 0 || err != nil {
				t.Errorf("FLUSHALL answered OK while node c was stopped; after SIGCONT ZCARD through %s: %d %v", id, n, err)
			}
		}
	}
	// A refused delete goes through once c is back, as a client retrying
	// would find.
	for _, m := range on {
		if !removed[m] && !flushed {
			retried(t, ctx, "ZREM drivers "+m, func() error { return a.ZRem(ctx, "drivers", m).Err() })
		}
	}
	if !flushed {
		retried(t, ctx, "FLUSHALL", func() error { return a.FlushAll(ctx).Err() })
	}
	for _, id := range tc.ids() {
		if n, err := tc.nodes[id].c.ZCard(ctx, "drivers").Result(); n != 0 || err != nil {
			t.Errorf("after FLUSHALL: ZCARD through %s: %d %v", id, n, err)
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
