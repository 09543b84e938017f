package tests

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// nodeCPU is the CPU time (user and system) a process has used so far.
func nodeCPU(t *testing.T, p *serverProc) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		t.Skipf("no /proc/PID/stat: %v", err)
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

// loadKey writes the drivers into key through c, 500 a GEOADD, and
// returns how long it took and the CPU time the processes procs used;
// the key must then hold every driver.
func loadKey(t *testing.T, c *redis.Client, key string, ds []*redis.GeoLocation, procs ...*serverProc) (wall, cpu time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, p := range procs {
		cpu -= nodeCPU(t, p)
	}
	begin := time.Now()
	for i := 0; i < len(ds); i += 500 {
		if err := geoAddRetrying(ctx, c, key, ds[i:min(i+500, len(ds))]); err != nil {
			t.Fatalf("loading drivers: %v", err)
		}
	}
	wall = time.Since(begin)
	for _, p := range procs {
		cpu += nodeCPU(t, p)
	}
	if n, err := c.ZCard(ctx, key).Result(); n != int64(len(ds)) || err != nil {
		t.Fatalf("after the load ZCARD %s is %d (%v), want %d", key, n, err, len(ds))
	}
	return wall, cpu
}

// TestClusterColdLoad (issue 12, defect 8 / target 6): a cold load of
// 50,000 drivers through one node of three took 8.6-11.3 s against 0.4 s
// on a single node, each new member asking every node for a copy of it.
// The target is at most twice the single node's time. The machine is
// shared, so each side loads three fresh keys, interleaved, and the best
// of each counts; the CPU time of the processes is logged too.
func TestClusterColdLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 50,000 drivers seven times")
	}
	ds := faultDrivers(50000)
	single := startGeoshardPlain(t, "single", "--position-ttl", "3600")
	sc := redis.NewClient(&redis.Options{Addr: single.addr, Protocol: 2, DisableIdentity: true})
	defer sc.Close()
	// With the default one replica per shard (GEOSHARD_TEST_REPLICAS=0
	// measures without): every copy is written twice.
	tc := startCluster(t, 3, "--cluster-lease-ttl", "5", "--cluster-replicas", testReplicas())
	var procs []*serverProc
	for _, n := range tc.nodes {
		procs = append(procs, n.proc)
	}
	best := func(a, b time.Duration) time.Duration {
		if a == 0 || b < a {
			return b
		}
		return a
	}
	var one, through, oneCPU, throughCPU time.Duration
	for round := 0; round < 3; round++ {
		key := fmt.Sprintf("drivers%d", round)
		w, c := loadKey(t, sc, key, ds, single)
		one, oneCPU = best(one, w), best(oneCPU, c)
		w, c = loadKey(t, tc.nodes["b"].c, key, ds, procs...)
		through, throughCPU = best(through, w), best(throughCPU, c)
	}
	// Existing members written through a node that has not seen them.
	again, againCPU := loadKey(t, tc.nodes["c"].c, "drivers0", ds, procs...)
	t.Logf("50,000 drivers, 500 a GEOADD, best of 3: single node %v (CPU %v); 3 nodes, cold through b %v (CPU %v, all nodes); "+
		"again through c %v (CPU %v)", one.Round(time.Millisecond), oneCPU, through.Round(time.Millisecond), throughCPU,
		again.Round(time.Millisecond), againCPU)
	// The target (issue 12) is 2x; it is missed (docs/CLUSTER.md says by
	// how much), so the test holds the line against the old cost (55x)
	// with room for a loaded machine.
	ratio := float64(through) / float64(one)
	t.Logf("cold load through a node: %.1fx the single node (target 2x: %s)", ratio, map[bool]string{true: "met", false: "missed"}[ratio <= 2])
	if ratio > 15 {
		t.Errorf("cold load through a node took %v, %.1fx the single node's %v", through, ratio, one)
	}
}

// testReplicas is --cluster-replicas for the scale tests: 1, the
// default the nodes run with, or GEOSHARD_TEST_REPLICAS. Batched writes
// run with replicas since replbatch; before, these tests failed with them
// (cold load 78-80x the single node, updates 4.1x its CPU).
func testReplicas() string {
	if v := os.Getenv("GEOSHARD_TEST_REPLICAS"); v != "" {
		return v
	}
	return "1"
}
