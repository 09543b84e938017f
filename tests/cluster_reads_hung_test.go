package tests

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestClusterReadsHungNode: while node c is SIGSTOPped, searches, GEOPOS,
// KEYS, DBSIZE, SCAN and INFO keyspace through node a wait for c until
// their deadline or until health checks find c hung. A SET of another key
// through a (a command that takes a's keyspace alone) must not wait
// behind them: reads let the keyspace go before their remote calls
// (Engine.letGo, Engine.outside). Before, with searches and GEOPOS, SETs
// sent every 2 ms had p50 1.27 s and p99 2.09 s (load 5.5 a CPU), against
// p50 0.25 ms and p99 2.6 ms with no reads (load 5.9); with KEYS, DBSIZE
// or SCAN alone p99 3.0 s, with INFO keyspace alone 15.8 s (it asked the
// 16 databases one after the other under the lock).
func TestClusterReadsHungNode(t *testing.T) {
	ds := faultDrivers(3000)
	tc := startCluster(t, 3, "--regions", clusterMap(t), "--cluster-lease-ttl", "40")
	load(t, tc.nodes["a"].c, ds)
	read := func(ctx context.Context, c *redis.Client, i int) (string, error) {
		switch i % 6 {
		case 0:
			return "", c.GeoSearch(ctx, "drivers", &redis.GeoSearchQuery{Longitude: 4.9, Latitude: 52.37,
				BoxWidth: 60, BoxHeight: 60, BoxUnit: "km", Sort: "ASC", Count: 10}).Err()
		case 1:
			return "", c.Keys(ctx, "driver*").Err()
		case 2:
			return "", c.DBSize(ctx).Err()
		case 3:
			return "", c.Scan(ctx, 0, "*", 10).Err()
		case 4:
			return "", c.Info(ctx, "keyspace").Err()
		}
		return "", c.GeoPos(ctx, "drivers", ds[i].Name).Err()
	}
	set := setProbe(t, tc.nodes["a"].c, "a read held the keyspace across a call to c")
	for _, w := range whileHung(t, tc, ds, read, set) {
		t.Error(w)
	}
}
