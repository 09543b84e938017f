package tests

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// wholeKeyReads are reads that need every shard of the key (or, for a
// member lookup, the shard holding the member): a node that cannot ask
// one of them must answer an error, not what the others hold. on are
// three members held by the node that will stop.
func wholeKeyReads(ds []*redis.GeoLocation, on []string) [][]any {
	reads := [][]any{
		{"ZCARD", "drivers"},
		{"ZRANGE", "drivers", "0", "-1"},
		{"ZRANGE", "drivers", "0", "-1", "REV", "WITHSCORES"},
		{"ZCOUNT", "drivers", "-inf", "+inf"},
		{"ZRANK", "drivers", ds[len(ds)-1].Name},
		{"KEYS", "*"},
		{"EXISTS", "drivers", "nosuchkey"},
		{"TYPE", "drivers"},
		{"EXISTS", "nosuchkey"},
		{"GEODIST", "drivers", ds[0].Name, on[0]},
		{"GEOPOS", "drivers", on[0]},
		{"ZSCORE", "drivers", on[1]},
		{"GEOHASH", "drivers", ds[0].Name, on[2]},
		{"ZMSCORE", "drivers", on[1], ds[0].Name},
		{"GEOSEARCH", "drivers", "FROMMEMBER", on[2], "BYRADIUS", "1", "km", "ASC", "COUNT", "3"},
	}
	// Members spread over the map, some on the stopped node, some not.
	for i := 0; i < 30; i += 5 {
		reads = append(reads, []any{"GEOPOS", "drivers", ds[i].Name}, []any{"ZSCORE", "drivers", ds[i].Name})
	}
	return reads
}

// membersOn returns three drivers inside cells of clusterMap that node id
// owns.
func membersOn(t *testing.T, tc *testCluster, id string, ds []*redis.GeoLocation) []string {
	t.Helper()
	owners := assignmentOwners(t, tc)
	var on []string
	for _, d := range ds {
		x, y := (d.Longitude-4.70)/0.15, (d.Latitude-52.25)/0.07
		i, j := int(math.Floor(x)), int(math.Floor(y))
		inner := x-float64(i) > 0.05 && x-float64(i) < 0.95 && y-float64(j) > 0.05 && y-float64(j) < 0.95
		if x >= 0 && y >= 0 && i < 3 && j < 3 && inner && owners[fmt.Sprintf("ams-%d-%d", i, j)] == id {
			on = append(on, d.Name)
		}
		if len(on) == 3 {
			return on
		}
	}
	t.Fatalf("no three drivers in node %s's cells (owners %v)", id, owners)
	return nil
}

// TestClusterWholeKeyReadsHungNode (issue 12): while the node holding
// some shards is SIGSTOPped (its lease still running, so it keeps them),
// whole-key reads through the other nodes answer either exactly what they
// answered before the stop or an error (-TRYAGAIN), never a short count,
// a partial range or a nil for a member the stopped node holds. Each
// failure is counted in cluster_remote_errors.
func TestClusterWholeKeyReadsHungNode(t *testing.T) {
	// Reads that ask node c each wait the 1 s call timeout; the lease
	// outlasts them all.
	tc := startCluster(t, 3, "--regions", clusterMap(t), "--cluster-lease-ttl", "40")
	ds := faultDrivers(3000)
	load(t, tc.nodes["a"].c, ds)
	reads := wholeKeyReads(ds, membersOn(t, tc, "c", ds))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	want := make([]any, len(reads))
	for i, args := range reads {
		v, err := tc.nodes["b"].c.Do(ctx, args...).Result()
		if err != nil {
			t.Fatalf("healthy: %v: %v", args, err)
		}
		want[i] = v
	}
	if n, _ := want[0].(int64); n != int64(len(ds)) {
		t.Fatalf("healthy: ZCARD %v, want %d", want[0], len(ds))
	}
	before, _ := clusterInfo(tc.nodes["a"].c)
	hungPeer(t, tc.nodes["c"])
	var wg sync.WaitGroup
	for _, id := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			readsOrRefusals(t, id, tc.nodes[id].c, reads, want)
		}()
	}
	wg.Wait()
	// DEL cannot reach node c's members: it must not answer 1 as if the
	// key were gone.
	if err := tc.nodes["a"].c.Del(ctx, "drivers").Err(); err == nil || !strings.HasPrefix(err.Error(), "TRYAGAIN shard ") {
		t.Errorf("DEL drivers with node c stopped: %v, want -TRYAGAIN", err)
	}
	after, _ := clusterInfo(tc.nodes["a"].c)
	b, _ := strconv.Atoi(before["cluster_remote_errors"])
	a, _ := strconv.Atoi(after["cluster_remote_errors"])
	if a <= b {
		t.Errorf("cluster_remote_errors %d before, %d after: failures not counted", b, a)
	}
}

// readsOrRefusals sends the reads through c and checks that each answers
// as want or with -TRYAGAIN. Node c's shards have replicas, which answer
// for it once health checks find it hung (within a second); reads before
// that, or of a replica not yet filled, are refused.
func readsOrRefusals(t *testing.T, id string, c *redis.Client, reads [][]any, want []any) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	refused := 0
	for i, args := range reads {
		got, err := c.Do(ctx, args...).Result()
		if err == redis.Nil {
			got, err = nil, nil // a nil reply, compared as one
		}
		switch {
		case err != nil && strings.HasPrefix(err.Error(), "TRYAGAIN shard "):
			refused++
		case err != nil:
			t.Errorf("node %s: %v: unexpected error %v", id, args, err)
		case !reflect.DeepEqual(got, want[i]):
			t.Errorf("node %s, node c stopped: %v answered %s, before the stop %s: silently wrong",
				id, args, describe(got), describe(want[i]))
		}
	}
	t.Logf("node %s: %d of %d whole-key reads refused while node c is stopped", id, refused, len(reads))
}
