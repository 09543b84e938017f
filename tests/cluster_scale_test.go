package tests

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// countReads are the counts of issue 12, target 6, compared with Redis:
// each must cost one small message per node, whatever the key holds.
var countReads = [][]any{
	{"ZCARD", "drivers"},
	{"ZCOUNT", "drivers", "-inf", "+inf"},
	{"ZCOUNT", "drivers", "3471579339145000", "(3471579339150000"},
	{"ZCOUNT", "drivers", "(1000", "2000000000000000"},
	{"ZCOUNT", "drivers", "5", "4"},
	{"ZCARD", "nosuchkey"},
	{"ZCOUNT", "nosuchkey", "-inf", "+inf"},
	{"EXISTS", "drivers", "nosuchkey", "drivers"},
	{"TYPE", "drivers"},
	{"TYPE", "nosuchkey"},
	{"DBSIZE"},
}

// busBytes is what the node processes wrote to sockets and files so far
// (wchar of /proc/PID/io): the bus traffic a command causes shows in it.
func busBytes(t *testing.T, tc *testCluster) int64 {
	t.Helper()
	var total int64
	for _, n := range tc.nodes {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", n.proc.cmd.Process.Pid))
		if err != nil {
			t.Skipf("no /proc/PID/io: %v", err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "wchar: "); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				total += n
			}
		}
	}
	return total
}

// moveDrivers writes every tenth driver again through c, far from where it
// was (another shard, mostly on another node), so the counts below follow
// handoffs: each member must be counted once, at its new copy.
func moveDrivers(t *testing.T, c *redis.Client, ds []*redis.GeoLocation) []*redis.GeoLocation {
	t.Helper()
	var moved []*redis.GeoLocation
	for i := 0; i < len(ds); i += 10 {
		d := *ds[i]
		d.Longitude, d.Latitude = -d.Longitude/2, -d.Latitude/2
		moved = append(moved, &d)
	}
	load(t, c, moved)
	return moved
}

// TestClusterCountsOneMessagePerNode (issue 12, defect 8 / target 6):
// ZCARD pulled every member from every node (hundreds of KB per call at
// 12,000 drivers). Every count through every node must equal Redis's and
// write at most a few hundred bytes per node.
// With one replica per shard (the default), counts gathered every member
// (330,977 bytes per call) until arrival marks (router/arrivals.go).
func TestClusterCountsOneMessagePerNode(t *testing.T) {
	for _, replicas := range []string{"0", "1"} {
		t.Run("replicas "+replicas, func(t *testing.T) { countsOneMessagePerNode(t, replicas) })
	}
}

func countsOneMessagePerNode(t *testing.T, replicas string) {
	ref := startRedis(t)
	rc := redis.NewClient(&redis.Options{Addr: ref.addr, Protocol: 2, DisableIdentity: true})
	defer rc.Close()
	tc := startCluster(t, 3, "--cluster-lease-ttl", "5", "--cluster-replicas", replicas)
	ds := faultDrivers(12000)
	load(t, rc, ds)
	load(t, tc.nodes["a"].c, ds)
	load(t, rc, moveDrivers(t, tc.nodes["b"].c, ds))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, id := range []string{"a", "b", "c"} {
		for _, args := range countReads {
			want, werr := rc.Do(ctx, args...).Result()
			got, gerr := tc.nodes[id].c.Do(ctx, args...).Result()
			if werr != nil || gerr != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("node %s: %v: %v (%v), redis %v (%v)", id, args, got, gerr, want, werr)
			}
		}
	}
	// Bytes per count: 100 ZCARDs and 100 ZCOUNTs through node c, less
	// as many PINGs (health checks and the replies themselves).
	const calls = 100
	per := func(args ...any) float64 {
		before := busBytes(t, tc)
		for i := 0; i < calls; i++ {
			// A call that timed out at load 18 answers -TRYAGAIN: a
			// client tries again, and so does this (its bytes count).
			err := tc.nodes["c"].c.Do(ctx, args...).Err()
			for try := 0; err != nil && strings.HasPrefix(err.Error(), "TRYAGAIN") && try < 3; try++ {
				err = tc.nodes["c"].c.Do(ctx, args...).Err()
			}
			if err != nil {
				t.Fatalf("%v: %v", args, err)
			}
		}
		return float64(busBytes(t, tc)-before) / calls
	}
	ping := per("PING")
	for _, args := range [][]any{{"ZCARD", "drivers"}, {"ZCOUNT", "drivers", "-inf", "+inf"}} {
		b := per(args...)
		t.Logf("%v through node c: %.0f bytes written by the 3 nodes per call (PING: %.0f)", args, b, ping)
		if b-ping > 1024 {
			t.Errorf("%v: %.0f bytes per call over PING's %.0f: more than one small message per node", args, b, ping)
		}
	}
	// INFO says how c's counts went: those of a key at rest in one round.
	info, err := clusterInfo(tc.nodes["c"].c)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, kv := range strings.Split(info["cluster_counts"], ",") {
		name, n, _ := strings.Cut(kv, "=")
		counts[name], _ = strconv.Atoi(n)
	}
	t.Logf("INFO cluster through c: cluster_counts %v", counts)
	if counts["one_round"] < 2*calls || counts["gathered"] != 0 || len(counts) != 6 {
		t.Errorf("INFO cluster through c: cluster_counts %v, want at least %d counts in one round and none gathered:\n%s",
			counts, 2*calls, info)
	}
}
