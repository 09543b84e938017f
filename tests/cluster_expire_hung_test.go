package tests

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterKeyDropsHungNode (issue 12): a geo key whose drop cannot
// reach a SIGSTOPped holder must not look dropped. Before, SET over a geo
// key answered OK and stored the string while the stopped node kept the
// members (the key was then a string through one node and a geo key
// through the others), and a key whose TTL ran out lost its TTL while its
// members stayed: it never expired, and was served as alive (ZCARD 600,
// PTTL -1). Now SET answers -TRYAGAIN and stores nothing, the expired
// key answers -TRYAGAIN to every command naming it, keeps its TTL, and
// is gone everywhere once the node is back. Meanwhile the expiry cycle,
// retrying the due key, holds no keyspace lock across its remote calls:
// GETs of another key through the same node never wait for the stopped
// node (before the health checks notice it, a drop sent to it waits the
// call timeout).
func TestClusterKeyDropsHungNode(t *testing.T) {
	tc := startCluster(t, 3, "--regions", clusterMap(t), "--cluster-lease-ttl", "40")
	ds := faultDrivers(600)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	a := tc.nodes["a"].c
	for _, key := range []string{"setover", "expiring", "late", "later", "stored", "pastexp", "renamed", "ttlsrc"} {
		for i := 0; i < len(ds); i += 200 {
			// A write refused while shards still settle is tried again.
			retried(t, ctx, "GEOADD "+key, func() error { return a.GeoAdd(ctx, key, ds[i:min(i+200, len(ds))]...).Err() })
		}
	}
	// Strings before the stop: SET of a new name asks every node whether
	// a geo key has it (not what this test is about).
	for _, key := range []string{"plain", "plain2", "plain3"} {
		if err := a.Set(ctx, key, "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// A TTL far off: the cycle must not count the key on every node under
	// the lock to tell whether it is gone.
	for _, key := range []string{"later", "ttlsrc"} {
		if err := a.PExpire(ctx, key, time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// Due 300 ms from now: c is stopped well before, and the first drops
	// are sent to it before health checks find it hung.
	if err := a.PExpireAt(ctx, "expiring", time.Now().Add(300*time.Millisecond)).Err(); err != nil {
		t.Fatal(err)
	}
	resume := hungPeer(t, tc.nodes["c"])
	slowest, cmds := stringsWhile(ctx, t, a, 2500*time.Millisecond)
	t.Logf("node c stopped: %d GET and SET of string keys through a, slowest %v (load %.1f per CPU)", cmds, slowest, loadPerCPU())
	if slowest > 500*time.Millisecond {
		t.Errorf("a GET or SET of a string through a took %v while c was stopped and a key was due: the expiry held the keyspace lock across a call to c (call timeout 1 s)", slowest)
	}
	unreachable(t, ctx, a, "c")
	// late runs out once health checks found c hung: its drop is refused
	// (expiring's first drops were sent to c, and run when it wakes).
	if err := a.PExpire(ctx, "late", 200*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)

	setErr := a.Set(ctx, "setover", "str", 0).Err()
	t.Logf("node c stopped: SET setover str: %v", setErr)
	checkRefused(t, "SET setover str", setErr)
	store := func() (int64, error) {
		return a.GeoSearchStore(ctx, "later", "stored", &redis.GeoSearchStoreQuery{
			GeoSearchQuery: redis.GeoSearchQuery{Longitude: 4.9, Latitude: 52.37, Radius: 2, RadiusUnit: "km"}}).Result()
	}
	_, err := store()
	t.Logf("node c stopped: GEOSEARCHSTORE stored later ...: %v", err)
	checkRefused(t, "GEOSEARCHSTORE over a geo key", err)
	err = a.PExpire(ctx, "pastexp", -time.Millisecond).Err()
	t.Logf("node c stopped: PEXPIRE pastexp -1: %v", err)
	checkRefused(t, "PEXPIRE pastexp -1 (a delete)", err)
	err = a.Rename(ctx, "plain3", "renamed").Err()
	t.Logf("node c stopped: RENAME plain3 renamed (a geo key): %v", err)
	checkRefused(t, "RENAME a string onto a geo key", err)
	err = a.Rename(ctx, "ttlsrc", "ttldst").Err()
	t.Logf("node c stopped: RENAME ttlsrc ttldst: %v", err)
	checkRefused(t, "RENAME of a geo key", err)
	if ttl, err := a.PTTL(ctx, "ttlsrc").Result(); ttl <= 0 || err != nil {
		t.Errorf("PTTL ttlsrc after its RENAME was refused = %v %v, want its TTL (under a minute): nothing renamed", ttl, err)
	}
	for _, key := range []string{"expiring", "late"} {
		begin := time.Now()
		n, err := a.ZCard(ctx, key).Result()
		t.Logf("node c stopped, %s due: ZCARD %s: %d %v (%v)", key, key, n, err, time.Since(begin))
		if err == nil {
			t.Errorf("ZCARD %s through a after its TTL ran out, with c stopped = %d, want -TRYAGAIN: the expired key is served as alive", key, n)
		} else {
			checkRefused(t, "ZCARD "+key, err)
		}
		ttl, err := a.PTTL(ctx, key).Result()
		t.Logf("node c stopped: PTTL %s: %v %v", key, ttl, err)
		if err == nil {
			t.Errorf("PTTL %s through a after its TTL ran out, with c stopped = %v, want -TRYAGAIN (the TTL must stay for the retry)", key, ttl)
		}
	}
	resume()

	// Once c is back: the expired key goes everywhere (the cycle or the
	// next access retries), and SET, retried as a client would, leaves a
	// string and no geo members.
	var stored int64
	retried(t, ctx, "GEOSEARCHSTORE", func() (err error) { stored, err = store(); return err })
	retried(t, ctx, "PEXPIRE pastexp -1", func() error { return a.PExpire(ctx, "pastexp", -time.Millisecond).Err() })
	retried(t, ctx, "SET setover str", func() error { return a.Set(ctx, "setover", "str", 0).Err() })
	retried(t, ctx, "RENAME plain3 renamed", func() error { return a.Rename(ctx, "plain3", "renamed").Err() })
	for _, id := range tc.ids() {
		c := tc.nodes[id].c
		if got := zcardWhenUp(t, ctx, c, "stored", stored); got != stored {
			t.Errorf("after GEOSEARCHSTORE answered %d: ZCARD stored through %s = %d: the old members stayed", stored, id, got)
		}
		for _, key := range []string{"expiring", "late", "pastexp"} {
			if got := zcardWhenUp(t, ctx, c, key, 0); got != 0 {
				t.Errorf("after c resumed: ZCARD %s through %s = %d, want 0: its TTL ran out while c was stopped", key, id, got)
			}
		}
		if id == "a" {
			continue // strings are per node: a holds the string
		}
		for _, key := range []string{"setover", "renamed"} {
			if got := zcardWhenUp(t, ctx, c, key, 0); got != 0 {
				t.Errorf("after a string replaced %s through a: ZCARD %s through %s = %d, want 0: the key is both a string and a geo key", key, key, id, got)
			}
		}
	}
	if v, err := a.Get(ctx, "setover").Result(); v != "str" || err != nil {
		t.Errorf("GET setover through a = %q %v, want \"str\"", v, err)
	}
}

// stringsWhile sends GETs and SETs (a command that takes the keyspace
// alone) of string keys through c for d (at most 100,000) and returns the
// slowest reply's time and the count.
func stringsWhile(ctx context.Context, t *testing.T, c *redis.Client, d time.Duration) (slowest time.Duration, n int) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end) && n < 100_000; n++ {
		begin := time.Now()
		err := c.Get(ctx, "plain").Err()
		if n%2 == 1 {
			err = c.Set(ctx, "plain2", n, 0).Err()
		}
		if err != nil {
			t.Fatalf("GET plain / SET plain2: %v", err)
		}
		slowest = max(slowest, time.Since(begin))
		time.Sleep(time.Millisecond)
	}
	return slowest, n
}

// checkRefused fails unless err is -TRYAGAIN.
func checkRefused(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil || !strings.HasPrefix(err.Error(), "TRYAGAIN") {
		t.Errorf("%s through a with c stopped: %v, want -TRYAGAIN: the stopped node keeps the members", what, err)
	}
}

// zcardWhenUp reads a key's size until it is want, waiting out refusals
// (the stopped node answering health checks again, a retried expiry) for
// up to 20 s, and returns the last size read.
func zcardWhenUp(t *testing.T, ctx context.Context, c *redis.Client, key string, want int64) int64 {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		n, err := c.ZCard(ctx, key).Result()
		if err == nil && (n == want || time.Now().After(deadline)) {
			return n
		}
		if err != nil && (time.Now().After(deadline) || !strings.HasPrefix(err.Error(), "TRYAGAIN")) {
			t.Fatalf("ZCARD %s: %v", key, err)
		}
	}
}
