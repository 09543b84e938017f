package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// faultDrivers is the data set of the fault tests: most drivers around
// Amsterdam (so one shard holds a lot and big replies cross the bus), the
// rest world-wide (so every node holds some).
func faultDrivers(n int) []*redis.GeoLocation {
	rng := rand.New(rand.NewPCG(12, 12))
	out := make([]*redis.GeoLocation, n)
	for i := range out {
		lon, lat := 4.9+(rng.Float64()-0.5)*0.6, 52.37+(rng.Float64()-0.5)*0.36
		if i%5 == 4 {
			lon, lat = -179+rng.Float64()*358, -80+rng.Float64()*160
		}
		out[i] = &redis.GeoLocation{Name: fmt.Sprintf("driver:%d", i), Longitude: lon, Latitude: lat}
	}
	return out
}

// load writes the drivers through c in pipelined batches.
func load(t *testing.T, c *redis.Client, ds []*redis.GeoLocation) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for i := 0; i < len(ds); i += 500 {
		if err := c.GeoAdd(ctx, "drivers", ds[i:min(i+500, len(ds))]...).Err(); err != nil {
			t.Fatalf("loading drivers: %v", err)
		}
	}
}

// faultReads are the reads compared with Redis: whole-key counts and
// ranges (one big reply from every node), searches of one shard and of
// several, sorted and not.
var faultReads = [][]any{
	{"ZCARD", "drivers"},
	{"GEOSEARCH", "drivers", "FROMLONLAT", "4.9", "52.37", "BYRADIUS", "2", "km", "ASC"},
	{"GEOSEARCH", "drivers", "FROMLONLAT", "4.9", "52.37", "BYRADIUS", "20", "km"},
	{"GEOSEARCH", "drivers", "FROMLONLAT", "4.9", "52.37", "BYRADIUS", "20", "km", "DESC", "COUNT", "10"},
	{"GEORADIUS", "drivers", "0", "0", "20000", "km", "COUNT", "5", "ASC"},
	{"ZRANGE", "drivers", "0", "-1", "WITHSCORES"},
	{"GEOPOS", "drivers", "driver:1", "driver:4", "driver:77", "nobody"},
}

// compareReads sends every read through c and ref and counts the replies
// that differ (an error counts as a difference).
func compareReads(t *testing.T, what string, c, ref *redis.Client) (differ int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, args := range faultReads {
		want, werr := ref.Do(ctx, args...).Result()
		got, gerr := c.Do(ctx, args...).Result()
		if werr != nil || gerr != nil || !reflect.DeepEqual(got, want) {
			differ++
			t.Errorf("%s: %v: %s, redis %s (errors %v / %v)", what, args[:min(len(args), 9)],
				describe(got), describe(want), gerr, werr)
		}
	}
	return differ
}

// describe sums up a reply for an error message.
func describe(v any) string {
	if a, ok := v.([]any); ok {
		return fmt.Sprintf("%d elements", len(a))
	}
	return fmt.Sprint(v)
}

// TestClusterIdleBus (issue 12, defect 1): after the node-to-node bus sat
// idle longer than its write deadline, replies too big for the bus's
// buffer were cut (GEOSHARD.RANGE: EOF) and clients got short counts and
// empty searches with no error. Every read through every node must equal
// Redis's, warm and after 15 s idle, with default settings.
func TestClusterIdleBus(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 15 s idle")
	}
	ref := startRedis(t)
	rc := redis.NewClient(&redis.Options{Addr: ref.addr, Protocol: 2, DisableIdentity: true})
	defer rc.Close()
	tc := startCluster(t, 3)
	ds := faultDrivers(12000)
	load(t, rc, ds)
	load(t, tc.nodes["a"].c, ds)
	for _, id := range []string{"a", "b", "c"} {
		compareReads(t, "warm, node "+id, tc.nodes[id].c, rc)
	}
	time.Sleep(15 * time.Second)
	for round := 0; round < 3; round++ {
		for _, id := range []string{"c", "b", "a"} {
			compareReads(t, fmt.Sprintf("after 15 s idle, round %d, node %s", round, id), tc.nodes[id].c, rc)
		}
	}
}
