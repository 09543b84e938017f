package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// SET of a name whose geo key lives only in a shard of a node that does
// not answer (no replicas; SIGSTOPped, before health checks find it hung,
// so reads of its shards still go to it) cannot tell whether the name is
// a geo key. It must not store the string as if it were not one: the key
// would then be a string through a and a geo key through every node once
// the stopped one is back.
func TestClusterSetOverUnansweredGeoKey(t *testing.T) {
	tc := startCluster(t, 3, "--regions", clusterMap(t), "--cluster-lease-ttl", "40", "--cluster-replicas", "0")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	a := tc.nodes["a"].c
	var lon, lat float64
	stopped := ""
	for name, owner := range assignmentOwners(t, tc) {
		var i, j int
		if _, err := fmt.Sscanf(name, "ams-%d-%d", &i, &j); err == nil && owner != "a" {
			lon, lat, stopped = 4.70+0.15*float64(i)+0.075, 52.25+0.07*float64(j)+0.035, owner
			break
		}
	}
	if stopped == "" {
		t.Fatal("node a is the primary of every shard of the 3 x 3 map")
	}
	other := map[string]string{"b": "c", "c": "b"}[stopped]
	for _, key := range []string{"onc", "onc2"} {
		retried(t, ctx, "GEOADD "+key, func() error {
			return a.GeoAdd(ctx, key, &redis.GeoLocation{Name: "m", Longitude: lon, Latitude: lat}).Err()
		})
	}
	if err := a.Set(ctx, "plain", "p", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := a.Expire(ctx, "onc", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	resume := hungPeer(t, tc.nodes[stopped])
	setErr := a.Set(ctx, "onc", "str", 0).Err()
	renameErr := a.Rename(ctx, "plain", "onc2").Err()
	readsOfUnanswered(t, ctx, a, stopped)
	resume()
	for _, c := range []struct {
		what, key string
		err       error
	}{{"SET onc str", "onc", setErr}, {"RENAME plain onc2", "onc2", renameErr}} {
		t.Logf("node %s stopped: %s through a: %v", stopped, c.what, c.err)
		if c.err != nil {
			if !strings.HasPrefix(c.err.Error(), "TRYAGAIN") {
				t.Errorf("%s through a with %s stopped: %v, want OK or -TRYAGAIN", c.what, stopped, c.err)
			}
			continue // refused: nothing changed
		}
		// Acknowledged: the string replaced the geo key, as in Redis.
		if n := zcardWhenUp(t, ctx, tc.nodes[other].c, c.key, 0); n != 0 {
			v, _ := a.Get(ctx, c.key).Result()
			t.Errorf("%s through a answered OK while %s was stopped, and now GET %s through a = %q and ZCARD %s through %s = %d: the key is a string and a geo key",
				c.what, stopped, c.key, v, c.key, other, n)
		}
	}
}

// readsOfUnanswered checks, while the node holding geo key onc's only
// shard does not answer, that commands asking its kind through a refuse
// rather than answer as if there were no such key.
func readsOfUnanswered(t *testing.T, ctx context.Context, a *redis.Client, stopped string) {
	t.Helper()
	for _, c := range []struct {
		args  []any
		wrong string // the reply of a missing key
	}{
		{[]any{"GET", "onc"}, "redis: nil"},
		{[]any{"TTL", "onc"}, "-2"},
		{[]any{"PTTL", "onc"}, "-2"},
		{[]any{"EXPIRE", "onc", "100"}, "0"},
		{[]any{"PERSIST", "onc"}, "0"}, // onc has a TTL
	} {
		v, err := a.Do(ctx, c.args...).Result()
		got := fmt.Sprint(v)
		if err != nil {
			got = err.Error()
		}
		t.Logf("node %s stopped: %v through a: %s", stopped, c.args, got)
		if got == c.wrong {
			t.Errorf("%v through a with %s stopped = %s, the reply of a missing key: onc is a geo key on %s", c.args, stopped, got, stopped)
		}
	}
}
