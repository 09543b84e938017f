package tests

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterWritesHungNode (issue 12, target 4): while node c is
// SIGSTOPped, pings (GEOADD), increments, removals, DELs and searches that
// STORE through node a wait for c's shards until health checks find c
// hung. A SET of another key
// through a takes a's keyspace alone; it must not wait behind them: these
// writes let the keyspace go once they have checked their keys' types,
// and hold only their keys' stripes across the remote calls (keylocks.go).
// Before, with the keyspace held shared across each call, SETs sent every
// 2 ms waited up to the 1 s call timeout.
func TestClusterWritesHungNode(t *testing.T) {
	ds := faultDrivers(3000)
	cases := []struct {
		name string
		op   func(ctx context.Context, c *redis.Client, i int) (string, error)
	}{
		{"GEOADD", func(ctx context.Context, c *redis.Client, i int) (string, error) {
			d := *ds[i]
			d.Longitude += 0.0001
			return "", c.GeoAdd(ctx, "drivers", &d).Err()
		}},
		{"ZINCRBY", func(ctx context.Context, c *redis.Client, i int) (string, error) {
			return "", c.ZIncrBy(ctx, "counters", 1, fmt.Sprint("m", i%4)).Err()
		}},
		{"ZREM", func(ctx context.Context, c *redis.Client, i int) (string, error) {
			n, err := c.ZRem(ctx, "drivers", ds[i].Name).Result()
			if err == nil && n != 1 {
				return fmt.Sprintf("ZREM drivers %s = %d, want 1", ds[i].Name, n), nil
			}
			return "", err
		}},
		{"DEL", func(ctx context.Context, c *redis.Client, i int) (string, error) {
			n, err := c.Del(ctx, fmt.Sprint("gone:", i)).Result()
			if err == nil && n != 0 {
				return fmt.Sprintf("DEL gone:%d = %d, want 0", i, n), nil
			}
			return "", err
		}},
		{"GEOSEARCHSTORE", func(ctx context.Context, c *redis.Client, i int) (string, error) {
			return "", c.GeoSearchStore(ctx, "drivers", fmt.Sprint("near:", i%4), &redis.GeoSearchStoreQuery{
				GeoSearchQuery: redis.GeoSearchQuery{Longitude: 4.9, Latitude: 52.37, Radius: 2, RadiusUnit: "km"}}).Err()
		}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			tc := startCluster(t, 3, "--regions", clusterMap(t), "--cluster-lease-ttl", "40")
			load(t, tc.nodes["a"].c, ds)
			a := tc.nodes["a"].c
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			for i := range 16 { // strings known here: a SET of them asks no other node
				if err := a.Set(ctx, fmt.Sprint("s:", i), i, 0).Err(); err != nil {
					t.Fatal(err)
				}
			}
			set := probe{name: "SET", limit: func() time.Duration { return max(openLoopPingLimit(), 100*time.Millisecond) },
				send: func(ctx context.Context, c *redis.Client, i int) error {
					return c.Set(ctx, fmt.Sprint("s:", i%16), i, 0).Err()
				},
				waited: "a write held the keyspace across a call to c"}
			for i, w := range whileHung(t, tc, ds, tt.op, set) {
				if i < 10 {
					t.Error(w)
				}
			}
		})
	}
}
