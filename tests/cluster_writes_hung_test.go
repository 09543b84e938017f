package tests

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestClusterWritesHungNode (issue 12, target 4): while node c is
// SIGSTOPped, pings (GEOADD), removals (ZREM asks every node where the
// member is and deletes it on its shard's holders), increments (ZINCRBY
// reads every node and writes the sum), DEL (drops a key on every node)
// and searches that STORE through node a wait for c's shards until
// health checks find c hung. Nothing else through a may wait for them:
//   - PING: they used to run with the keyspace held alone, and every
//     command through the node waited behind each (PING p99 4.9-6.7 s);
//   - SET of another key, which takes the keyspace alone: they then held
//     it shared across their calls, and SET waited for each (p99 1.9-4.0
//     s). Now they let the keyspace go once their keys' types are checked
//     and hold only their keys' stripes across the calls (keylocks.go).
func TestClusterWritesHungNode(t *testing.T) {
	ds := faultDrivers(3000)
	cases := []struct {
		name string
		// op sends the command of round i through c; a reply that is
		// neither right nor -TRYAGAIN is wrong.
		op func(ctx context.Context, c *redis.Client, i int) (wrong string, err error)
	}{
		{"GEOADD", func(ctx context.Context, c *redis.Client, i int) (string, error) {
			d := *ds[i]
			d.Longitude += 0.0001
			return "", c.GeoAdd(ctx, "drivers", &d).Err()
		}},
		{"ZREM", func(ctx context.Context, c *redis.Client, i int) (string, error) {
			n, err := c.ZRem(ctx, "drivers", ds[i].Name).Result()
			if err == nil && n != 1 {
				return fmt.Sprintf("ZREM drivers %s = %d, want 1", ds[i].Name, n), nil
			}
			return "", err
		}},
		{"ZINCRBY", func(ctx context.Context, c *redis.Client, i int) (string, error) {
			return "", c.ZIncrBy(ctx, "counters", 1, fmt.Sprint("m", i%4)).Err()
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
			ping := probe{name: "PING", limit: openLoopPingLimit,
				send:   func(ctx context.Context, c *redis.Client, _ int) error { return c.Ping(ctx).Err() },
				waited: "a write held the keyspace alone across a call to c"}
			set := setProbe(t, tc.nodes["a"].c, "a write held the keyspace across a call to c")
			for i, w := range whileHung(t, tc, ds, tt.op, ping, set) {
				if i < 10 {
					t.Error(w)
				}
			}
		})
	}
}
