package tests

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterZremCost: a driver going offline (ZREM) costs messages about
// that member, not the key. Before, ZREM counted the whole key before and
// after the removal (is it there? did the last member take it?), and a
// count with replicas gathers every member from every node: two copies of
// the key across the bus per ZREM, with the keyspace held alone. A key
// with a TTL is still counted after the removal, so that its last member
// takes the TTL with it, as in Redis.
func TestClusterZremCost(t *testing.T) {
	ref := startRedis(t)
	rc := redis.NewClient(&redis.Options{Addr: ref.addr, Protocol: 2, DisableIdentity: true})
	defer rc.Close()
	tc := startCluster(t, 3, "--cluster-lease-ttl", "5")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ds := faultDrivers(12000)
	load(t, rc, ds)
	load(t, tc.nodes["a"].c, ds)
	c := tc.nodes["c"].c
	const calls = 100
	per := func(args func(i int) []any) float64 {
		before := busBytes(t, tc)
		for i := 0; i < calls; i++ {
			a := args(i)
			want, werr := rc.Do(ctx, a...).Result()
			got, gerr := c.Do(ctx, a...).Result()
			if gerr != nil || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%v through c: %v (%v), redis %v (%v)", a, got, gerr, want, werr)
			}
		}
		return float64(busBytes(t, tc)-before) / calls
	}
	ping := per(func(int) []any { return []any{"PING"} })
	zrem := per(func(i int) []any { return []any{"ZREM", "drivers", ds[i*7].Name, "nobody"} })
	t.Logf("ZREM of a member of 12,000 through node c: %.0f bytes written by the 3 nodes per call (PING: %.0f)", zrem, ping)
	if zrem-ping > 8192 {
		t.Errorf("ZREM: %.0f bytes per call over PING's %.0f: the key (12,000 members, ~330 KB) crossed the bus", zrem, ping)
	}
	n, werr := rc.ZCard(ctx, "drivers").Result()
	if got, err := c.ZCard(ctx, "drivers").Result(); err != nil || werr != nil || got != n {
		t.Errorf("ZCARD drivers through c after the ZREMs = %d (%v), redis %d (%v)", got, err, n, werr)
	}

	// A key with a TTL loses it with its last member, as in Redis.
	for _, cl := range []*redis.Client{rc, c} {
		if err := cl.GeoAdd(ctx, "short", ds[:2]...).Err(); err != nil {
			t.Fatal(err)
		}
		if err := cl.Expire(ctx, "short", time.Hour).Err(); err != nil {
			t.Fatal(err)
		}
		if err := cl.ZRem(ctx, "short", ds[0].Name, ds[1].Name).Err(); err != nil {
			t.Fatal(err)
		}
		if err := cl.GeoAdd(ctx, "short", ds[2]).Err(); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := rc.TTL(ctx, "short").Result()
	if got, err := c.TTL(ctx, "short").Result(); err != nil || got != want {
		t.Errorf("TTL short after its last member left and a new one came = %v (%v), redis %v", got, err, want)
	}
}

// probe is the command a hung-node test times through node a, one every
// 2 ms whether or not the ones before were answered, while other clients
// work through a.
type probe struct {
	name   string
	send   func(ctx context.Context, c *redis.Client, i int) error
	limit  func() time.Duration // of its p99, for the load at the end
	waited string               // what a p99 past the limit means
}

// whileHung stops node c and, for 2.5 s, sends op through node a from 4
// clients while each probe goes to a; it fails the test when a probe's
// p99 shows it waiting behind the ops, and returns the wrong replies.
func whileHung(t *testing.T, tc *testCluster, ds []*redis.GeoLocation,
	op func(ctx context.Context, c *redis.Client, i int) (string, error), probes ...probe) (wrong []string) {
	const window = 2500 * time.Millisecond
	a := tc.nodes["a"].c
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pc := pingClient(t, ctx, a)
	resume := hungPeer(t, tc.nodes["c"])
	var wg sync.WaitGroup
	times := make([][]time.Duration, len(probes))
	for j, pr := range probes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			times[j] = openLoop(window, 2*time.Millisecond, func(ctx context.Context, i int) error { return pr.send(ctx, pc, i) })
		}()
	}
	var mu sync.Mutex
	ops, refused := 0, 0
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, end := w, time.Now().Add(window); i < len(ds) && time.Now().Before(end); i += 4 {
				bad, err := op(ctx, a, i)
				mu.Lock()
				ops++
				switch {
				case err != nil && strings.HasPrefix(err.Error(), "TRYAGAIN"):
					refused++
				case err != nil:
					wrong = append(wrong, fmt.Sprintf("round %d through a: %v", i, err))
				case bad != "":
					wrong = append(wrong, bad)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	resume()
	t.Logf("node c stopped: %d commands through a, %d -TRYAGAIN; load %.1f a CPU", ops, refused, loadPerCPU())
	for j, pr := range probes {
		p99 := percentile(times[j], 0.99)
		t.Logf("node c stopped: %d %ss through a (one every 2 ms) p50 %v p99 %v max %v",
			len(times[j]), pr.name, percentile(times[j], 0.5), p99, percentile(times[j], 1))
		if len(times[j]) == 0 || ops == 0 {
			t.Fatalf("no %s (%d) or command (%d) answered while c was stopped", pr.name, len(times[j]), ops)
		}
		if limit := pr.limit(); p99 > limit {
			t.Errorf("%s p99 %v through a while c is stopped and clients work, want < %v (load %.1f a CPU): %s",
				pr.name, p99, limit, loadPerCPU(), pr.waited)
		}
	}
	return wrong
}

// setProbe stores 16 strings through c and returns a probe that SETs
// them again: a SET of a string asks no other node, but takes the
// keyspace alone, so it waits for whatever holds the keyspace. It waits
// for the ops' local work, p99 2-12 ms here, more than a PING's: its
// limit is 100 ms at least.
func setProbe(t *testing.T, c *redis.Client, waited string) probe {
	t.Helper()
	for i := range 16 {
		if err := c.Set(context.Background(), fmt.Sprint("s:", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	return probe{name: "SET", waited: waited,
		limit: func() time.Duration { return max(openLoopPingLimit(), 100*time.Millisecond) },
		send: func(ctx context.Context, c *redis.Client, i int) error {
			return c.Set(ctx, fmt.Sprint("s:", i%16), i, 0).Err()
		}}
}
