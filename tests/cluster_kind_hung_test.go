package tests

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterKindLookupHungNode (issue 12, target 4): whether a name holds
// a geo key is asked of every node (SET, GET, TYPE, EXISTS, TTL...), and
// that question must not be asked with the keyspace lock held. Before,
// SET asked it with the keyspace held alone: while a SIGSTOPped node's
// calls still waited out their 1 s timeout (before health checks found it
// hung), every command through the node, PING too, waited behind it. The
// answers must stay right meanwhile: a GET of a geo key is WRONGTYPE, its
// TYPE zset, a new name's SET stores the string.
func TestClusterKindLookupHungNode(t *testing.T) {
	const window = 2500 * time.Millisecond
	tc := startCluster(t, 3, "--regions", clusterMap(t), "--cluster-lease-ttl", "40")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	a, b := tc.nodes["a"].c, tc.nodes["b"].c
	kindKeys(t, ctx, a, b)
	pc := pingClient(t, ctx, a)
	resume := hungPeer(t, tc.nodes["c"])
	var wg sync.WaitGroup
	var pings []time.Duration
	wg.Add(1)
	go func() { defer wg.Done(); pings = openLoopPings(pc, window, 2*time.Millisecond) }()
	res := make([]kindLoad, 4)
	for w := range res {
		wg.Add(1)
		go func() { defer wg.Done(); res[w] = kindOps(ctx, a, w, window) }()
	}
	// SET of a string, which asks no node but needs the keyspace alone: it
	// waits for every command holding the keyspace shared, and the PINGs
	// that come after it wait for it.
	var sets kindLoad
	wg.Add(1)
	go func() { defer wg.Done(); sets = setsWhile(ctx, a, window) }()
	wg.Wait()
	resume()

	var total kindLoad
	for _, r := range append(res, sets) {
		total.ops += r.ops
		total.refused += r.refused
		total.slowest = max(total.slowest, r.slowest)
		total.wrong = append(total.wrong, r.wrong...)
	}
	p99 := percentile(pings, 0.99)
	t.Logf("node c stopped: %d PINGs through a (one every 2 ms) p50 %v p99 %v max %v; %d SET/GET/TYPE/EXISTS through a, %d -TRYAGAIN, slowest %v; load %.1f a CPU",
		len(pings), percentile(pings, 0.5), p99, percentile(pings, 1), total.ops, total.refused, total.slowest, loadPerCPU())
	for i, w := range total.wrong {
		if i < 10 {
			t.Error(w)
		}
	}
	if len(pings) == 0 || total.ops == 0 {
		t.Fatalf("no PING (%d) or key command (%d) answered while c was stopped", len(pings), total.ops)
	}
	// 10 ms, issue 12's target; on a loaded machine half the cluster
	// mode's default fan-out deadline (pingLimit): PINGs that queued
	// behind a lookup waiting on c waited up to the 1 s call timeout
	// (p50 0.8 s, p99 2.0 s before the fix).
	if limit := pingLimit(500 * time.Millisecond); p99 > limit {
		t.Errorf("PING p99 %v through a while c is stopped and clients SET/GET/TYPE new names, want < %v (load %.1f a CPU): a key-kind lookup held the keyspace lock across a call to c",
			p99, limit, loadPerCPU())
	}
	// The strings SET while c was stopped are there, and no node has a
	// geo key of their name.
	for w := range res {
		name := fmt.Sprintf("new:%d:0", w)
		if v, err := a.Get(ctx, name).Result(); v != "v" || err != nil {
			t.Errorf("GET %s through a after its SET while c was stopped = %q %v, want \"v\"", name, v, err)
		}
		if n := zcardWhenUp(t, ctx, b, name, 0); n != 0 {
			t.Errorf("ZCARD %s through b = %d, want 0", name, n)
		}
	}
}

// kindKeys writes what kindOps reads through a: geo keys geo and ttlgeo
// (with a TTL: a command naming it asks whether the key still has
// members, else the TTL outlived the key and must go) and a string str.
// It also checks that a SET over a geo key replaces it, as in Redis: the
// string through a, no member left through b.
func kindKeys(t *testing.T, ctx context.Context, a, b *redis.Client) {
	t.Helper()
	ds := faultDrivers(600)
	for _, key := range []string{"geo", "replaced", "ttlgeo"} {
		for i := 0; i < len(ds); i += 200 {
			retried(t, ctx, "GEOADD "+key, func() error { return a.GeoAdd(ctx, key, ds[i:min(i+200, len(ds))]...).Err() })
		}
	}
	if err := a.Set(ctx, "str", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := a.Expire(ctx, "ttlgeo", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	retried(t, ctx, "SET replaced", func() error { return a.Set(ctx, "replaced", "s", 0).Err() })
	if typ, err := a.Type(ctx, "replaced").Result(); typ != "string" || err != nil {
		t.Errorf("TYPE replaced after SET over the geo key = %q %v, want string", typ, err)
	}
	if n := zcardWhenUp(t, ctx, b, "replaced", 0); n != 0 {
		t.Errorf("ZCARD replaced through b after SET over it through a = %d, want 0", n)
	}
}

// kindLoad is what one client of kindOps saw.
type kindLoad struct {
	ops, refused int
	slowest      time.Duration
	wrong        []string
}

// kindOps sends, through c for d (at most 2,000 rounds), SET of new
// names, GET of missing names, of a geo key and of a string, TYPE and
// EXISTS of a geo key and of missing names, checking every answer.
// -TRYAGAIN is right for TYPE and EXISTS of a missing name while a node
// does not answer (it might hold the key); nothing else may be refused.
func kindOps(ctx context.Context, c *redis.Client, w int, d time.Duration) (out kindLoad) {
	type check func(v any, err error) bool
	str := func(want string) check {
		return func(v any, err error) bool { s, _ := v.(string); return err == nil && s == want }
	}
	isErr := func(prefix string) check {
		return func(_ any, err error) bool { return err != nil && strings.HasPrefix(err.Error(), prefix) }
	}
	orTryAgain := func(ok check) check {
		return func(v any, err error) bool { return ok(v, err) || isErr("TRYAGAIN")(v, err) }
	}
	num := func(want int64) check {
		return func(v any, err error) bool { n, _ := v.(int64); return err == nil && n == want }
	}
	missing := func(_ any, err error) bool { return errors.Is(err, redis.Nil) }
	for i, end := 0, time.Now().Add(d); i < 2000 && time.Now().Before(end); i++ {
		// One name a three rounds: its SET comes first.
		name, gone := fmt.Sprintf("new:%d:%d", w, i/3), fmt.Sprintf("missing:%d:%d", w, i/3)
		ops := []struct {
			args []any
			ok   check
		}{
			{[]any{"SET", name, "v"}, str("OK")},
			{[]any{"GET", gone}, missing},
			{[]any{"GET", "geo"}, isErr("WRONGTYPE")},
			{[]any{"GET", "str"}, str("v")},
			{[]any{"TYPE", "geo"}, str("zset")},
			{[]any{"TYPE", name}, str("string")},
			{[]any{"TYPE", gone}, orTryAgain(str("none"))},
			{[]any{"EXISTS", "geo", "str"}, num(2)},
			{[]any{"EXISTS", gone}, orTryAgain(num(0))},
			{[]any{"TTL", "ttlgeo"}, func(v any, err error) bool { n, _ := v.(int64); return err == nil && n > 3000 }},
		}
		for j, op := range ops {
			if j%3 != i%3 {
				continue // a third of the commands a round, all of them in three
			}
			begin := time.Now()
			v, err := c.Do(ctx, op.args...).Result()
			out.slowest = max(out.slowest, time.Since(begin))
			out.ops++
			if err != nil && strings.HasPrefix(err.Error(), "TRYAGAIN") {
				out.refused++
			}
			if !op.ok(v, err) {
				out.wrong = append(out.wrong, fmt.Sprintf("node c stopped: %v through a = %v %v", op.args, v, err))
			}
		}
		if i%3 == 2 { // EXEC asks its queued commands' kinds before the lock too
			begin := time.Now()
			var set *redis.StatusCmd
			var get, geo *redis.StringCmd
			_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				set, get, geo = p.Set(ctx, "tx:"+name, "v", 0), p.Get(ctx, gone), p.Get(ctx, "geo")
				return nil
			})
			out.slowest = max(out.slowest, time.Since(begin))
			out.ops++
			if set.Err() != nil || !errors.Is(get.Err(), redis.Nil) || geo.Err() == nil || !strings.HasPrefix(geo.Err().Error(), "WRONGTYPE") {
				out.wrong = append(out.wrong, fmt.Sprintf("node c stopped: MULTI SET tx:%s, GET %s, GET geo EXEC through a = %v, %v, %v (%v)",
					name, gone, set.Err(), get.Err(), geo.Err(), err))
			}
		}
	}
	return out
}

// setsWhile sends SET str v through c for d (at most 5,000), one a
// millisecond.
func setsWhile(ctx context.Context, c *redis.Client, d time.Duration) (out kindLoad) {
	for end := time.Now().Add(d); time.Now().Before(end) && out.ops < 5000; out.ops++ {
		begin := time.Now()
		if err := c.Set(ctx, "str", "v", 0).Err(); err != nil {
			out.wrong = append(out.wrong, fmt.Sprintf("node c stopped: SET str v through a: %v", err))
		}
		out.slowest = max(out.slowest, time.Since(begin))
		time.Sleep(time.Millisecond)
	}
	return out
}

// pingClient is a client of c's node for openLoopPings: a pool as large
// as the PINGs that may wait at once, no retries.
func pingClient(t *testing.T, ctx context.Context, c *redis.Client) *redis.Client {
	t.Helper()
	pc := redis.NewClient(&redis.Options{Addr: c.Options().Addr, Protocol: 2, DisableIdentity: true,
		PoolSize: 128, MinIdleConns: 16, ReadTimeout: 10 * time.Second, MaxRetries: -1})
	t.Cleanup(func() { pc.Close() })
	if err := pc.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	return pc
}

// openLoopPings sends a PING every interval for d through c, each on its
// own goroutine whether or not the ones before were answered (a PING
// loop that waits for each answer samples a stall once, however long),
// and returns the answered PINGs' times.
func openLoopPings(c *redis.Client, d, interval time.Duration) []time.Duration {
	return openLoop(d, interval, func(ctx context.Context, _ int) error { return c.Ping(ctx).Err() })
}

// openLoop is openLoopPings for any command: do sends the i-th.
func openLoop(d, interval time.Duration, do func(ctx context.Context, i int) error) []time.Duration {
	var (
		mu  sync.Mutex
		out []time.Duration
		wg  sync.WaitGroup
	)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for i, end := 0, time.Now().Add(d); time.Now().Before(end); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			begin := time.Now()
			if do(ctx, i) == nil {
				mu.Lock()
				out = append(out, time.Since(begin))
				mu.Unlock()
			}
		}()
		<-tick.C
	}
	wg.Wait()
	return out
}

// TestClusterKindLookupOrder: a SET's lookup of whether a geo key has the
// name runs before the keyspace lock, so a GEOADD of that name through
// the same node may come in between. The node must still order the two:
// either the GEOADD comes first and the SET replaces the geo key, or the
// SET comes first and the GEOADD answers WRONGTYPE. Either way the name
// is a string through a and no node holds members of it; a SET that used
// its lookup's stale "no geo key" would leave both.
func TestClusterKindLookupOrder(t *testing.T) {
	const rounds = 300
	tc := startCluster(t, 3, "--regions", clusterMap(t))
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	a, b := tc.nodes["a"].c, tc.nodes["b"].c
	geoFirst, setFirst := 0, 0
	for i := range rounds {
		name := fmt.Sprintf("race:%d", i)
		var wg sync.WaitGroup
		var addErr, setErr error
		var added int64
		wg.Add(2)
		go func() {
			defer wg.Done()
			added, addErr = a.GeoAdd(ctx, name, &redis.GeoLocation{Name: "m", Longitude: 4.9, Latitude: 52.37}).Result()
		}()
		go func() { defer wg.Done(); setErr = a.Set(ctx, name, "v", 0).Err() }()
		wg.Wait()
		switch {
		case addErr == nil && added == 1:
			geoFirst++
		case addErr != nil && strings.HasPrefix(addErr.Error(), "WRONGTYPE"):
			setFirst++
		default:
			t.Fatalf("GEOADD %s beside a SET of it = %d %v, want 1 or WRONGTYPE", name, added, addErr)
		}
		if setErr != nil {
			t.Fatalf("SET %s beside a GEOADD of it: %v", name, setErr)
		}
		typ, err := a.Type(ctx, name).Result()
		n, zerr := b.ZCard(ctx, name).Result()
		if typ != "string" || err != nil || n != 0 || zerr != nil {
			t.Errorf("after GEOADD %s (%d %v) and SET %s through a: TYPE through a %q %v, ZCARD through b %d %v; want a string and no members",
				name, added, addErr, name, typ, err, n, zerr)
		}
	}
	t.Logf("%d rounds: GEOADD first %d, SET first %d (load %.1f a CPU)", rounds, geoFirst, setFirst, loadPerCPU())
}
