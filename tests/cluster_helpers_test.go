package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// clusterNode is one geoshard process of a test cluster.
type clusterNode struct {
	id   string
	proc *serverProc
	c    *redis.Client
}

type testCluster struct {
	t     *testing.T
	etcd  clusterEtcd
	name  string
	extra []string
	nodes map[string]*clusterNode
}

// startCluster starts etcd and n geoshard nodes (a, b, c...) on loopback
// with fast timings: a 2 s lease, 0.2 s between rebalancing steps. (With
// a 1 s lease, live nodes' leases lapsed on 2 cores at load 12: a node
// stood still for over a second; a lapse moves shards and refuses writes
// meanwhile, which the tests of exact answers take for a wrong one.)
func startCluster(t *testing.T, n int, extra ...string) *testCluster {
	t.Helper()
	tc := &testCluster{t: t, etcd: startEtcdProc(t), name: strings.ReplaceAll(t.Name(), "/", "-"),
		extra: extra, nodes: map[string]*clusterNode{}}
	for i := 0; i < n; i++ {
		tc.start(string(rune('a' + i)))
	}
	tc.settled(30*time.Second, tc.ids()...)
	clusterStill(t, tc, 30*time.Second) // else a test may start while replicas still move
	return tc
}

func (tc *testCluster) ids() []string {
	var ids []string
	for id := range tc.nodes {
		ids = append(ids, id)
	}
	return ids
}

// start starts (or restarts, on a new port) the node with this id.
func (tc *testCluster) start(id string) *clusterNode {
	tc.t.Helper()
	bin := geoshardBinary(tc.t, false)
	p := startServer(tc.t, "node-"+id, bin, func(port int) []string {
		addr := "127.0.0.1:" + strconv.Itoa(port)
		return append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--cluster-etcd", tc.etcd.endpoint(), "--cluster-name", tc.name, "--node-id", id,
			"--advertise", addr, "--cluster-password", "s3cret",
			"--cluster-lease-ttl", "2", "--cluster-rebalance-interval", "0.2",
			"--position-ttl", "3600", "--dir", tc.t.TempDir()}, tc.extra...)
	})
	c := redis.NewClient(&redis.Options{Addr: p.addr, Protocol: 2, DisableIdentity: true,
		ReadTimeout: 10 * time.Second, MaxRetries: -1})
	tc.t.Cleanup(func() { c.Close() })
	n := &clusterNode{id: id, proc: p, c: c}
	tc.nodes[id] = n
	return n
}

// kill ends a node at once (SIGKILL): no lease revoke, no goodbye.
func (tc *testCluster) kill(id string) {
	n := tc.nodes[id]
	n.proc.stop()
	n.c.Close()
	delete(tc.nodes, id)
}

// clusterInfo reads the cluster fields of a node's INFO.
func clusterInfo(c *redis.Client) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	s, err := c.Info(ctx, "cluster").Result()
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(s, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = v
		}
	}
	return m, nil
}

// settled waits until the nodes ids all run the same table, know exactly
// these members and have no shard down, and returns how long it took.
func (tc *testCluster) settled(timeout time.Duration, ids ...string) time.Duration {
	tc.t.Helper()
	begin := time.Now()
	var last []string
	for time.Since(begin) < timeout {
		last = last[:0]
		version, ok := "", true
		for _, id := range ids {
			m, err := clusterInfo(tc.nodes[id].c)
			if err != nil {
				ok = false
				last = append(last, fmt.Sprintf("%s: %v", id, err))
				continue
			}
			last = append(last, fmt.Sprintf("%s: members=%s version=%s down=%s local=%s etcd=%s",
				id, m["cluster_members"], m["cluster_table_version"], m["cluster_down_shards"],
				m["cluster_local_shards"], m["cluster_etcd"]))
			if version == "" {
				version = m["cluster_table_version"]
			}
			ok = ok && m["cluster_members"] == strconv.Itoa(len(ids)) && m["cluster_down_shards"] == "0" &&
				m["cluster_table_version"] == version && version != "0" && !tc.rebalancing(m, len(ids))
		}
		if ok {
			return time.Since(begin)
		}
		time.Sleep(20 * time.Millisecond)
	}
	tc.t.Fatalf("cluster %v did not settle in %v:\n%s", ids, timeout, strings.Join(last, "\n"))
	return 0
}

// rebalancing reports whether a node holds more or fewer shards than a
// balanced assignment gives it (a join is still being spread out).
func (tc *testCluster) rebalancing(m map[string]string, nodes int) bool {
	local, _ := strconv.Atoi(m["cluster_local_shards"])
	return local > (clusterShards+nodes-1)/nodes || local < clusterShards/nodes
}

// clusterShards is how many shards clusterMap has: nine cells and the
// catch-all.
const clusterShards = 10

// clusterMap writes a 3 x 3 grid of shards over Amsterdam, so drivers
// that move around cross borders all the time.
func clusterMap(t *testing.T) string {
	t.Helper()
	var feats []string
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			x0, y0 := 4.70+0.15*float64(i), 52.25+0.07*float64(j)
			x1, y1 := x0+0.15, y0+0.07
			feats = append(feats, fmt.Sprintf(`{"type":"Feature","properties":{"shard":"ams-%d-%d"},`+
				`"geometry":{"type":"Polygon","coordinates":[[[%g,%g],[%g,%g],[%g,%g],[%g,%g],[%g,%g]]]}}`,
				i, j, x0, y0, x1, y0, x1, y1, x0, y1, x0, y0))
		}
	}
	doc := `{"type":"FeatureCollection","properties":{"margin":200,"version":"ams-3x3"},"features":[` +
		strings.Join(feats, ",") + `]}`
	path := filepath.Join(t.TempDir(), "ams.geojson")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

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
		if err := geoAddRetrying(ctx, c, "drivers", ds[i:min(i+500, len(ds))]); err != nil {
			t.Fatalf("loading drivers: %v", err)
		}
	}
}

// geoAddRetrying sends a GEOADD again while it answers -TRYAGAIN, 5
// times at most, as a cluster client does: a call out of its 1 s on a
// loaded machine ("GEOSHARD.GETPUT: reading reply line: i/o timeout",
// load 10 a CPU with -race) refuses a batch that a retry stores.
func geoAddRetrying(ctx context.Context, c *redis.Client, key string, ds []*redis.GeoLocation) error {
	err := c.GeoAdd(ctx, key, ds...).Err()
	for try := 0; err != nil && strings.HasPrefix(err.Error(), "TRYAGAIN") && try < 5; try++ {
		time.Sleep(50 * time.Millisecond)
		err = c.GeoAdd(ctx, key, ds...).Err()
	}
	return err
}

// describe sums up a reply for an error message.
func describe(v any) string {
	if a, ok := v.([]any); ok {
		return fmt.Sprintf("%d elements", len(a))
	}
	return fmt.Sprint(v)
}

// hungPeer stops a node with SIGSTOP (it keeps its sockets open and
// answers nothing) until the returned function lets it go on.
func hungPeer(t *testing.T, n *clusterNode) (resume func()) {
	t.Helper()
	pid := n.proc.cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP %s: %v", n.id, err)
	}
	// kill returns once the signal is sent; a thread already running
	// goes on until the kernel stops it, and may still answer a call.
	for deadline := time.Now().Add(5 * time.Second); !stopped(pid); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("SIGSTOP %s: some thread still runs after 5 s", n.id)
		}
	}
	var once sync.Once
	resume = func() { once.Do(func() { syscall.Kill(pid, syscall.SIGCONT) }) }
	t.Cleanup(resume)
	return resume
}

// stopped reports whether every thread of process pid is stopped (state
// T in /proc/<pid>/task/<tid>/stat).
func stopped(pid int) bool {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		b, err := os.ReadFile(task)
		if err != nil {
			return false
		}
		// The state follows the command name in parentheses, which may
		// itself hold spaces or parentheses.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 || i+2 >= len(b) || b[i+2] != 'T' && b[i+2] != 't' {
			return false
		}
	}
	return true
}

// percentile returns the p-th percentile (0..1) of ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(int(float64(len(s))*p), len(s)-1)]
}

// etcdClient is a client of the cluster's etcd, for tests that read what
// the leader published; the caller closes it.
func (tc *testCluster) etcdClient() *clientv3.Client {
	tc.t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{tc.etcd.endpoint()}, DialTimeout: 2 * time.Second,
		Logger: zap.NewNop()})
	if err != nil {
		tc.t.Fatal(err)
	}
	return cli
}

// assignmentOwners reads the published shard owners from etcd.
func assignmentOwners(t *testing.T, tc *testCluster) map[string]string {
	t.Helper()
	cli := tc.etcdClient()
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := cli.Get(ctx, "/geoshard/"+tc.name+"/assignment")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("reading the assignment: %v", err)
	}
	var a struct {
		Owners map[string]string `json:"owners"`
	}
	if err := json.Unmarshal(resp.Kvs[0].Value, &a); err != nil {
		t.Fatal(err)
	}
	return a.Owners
}
