package tests

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"geoshard/cluster/etcdtest"
)

// Operating a cluster (issue 13): the bus is never open by accident,
// nothing leaks before the password, an operator sees the whole cluster
// from any node, and cluster-aware clients are told plainly.

// TestClusterPasswordRequired: cluster mode refuses to start without a
// cluster password unless told cluster-insecure yes (and then says so
// loudly); the password comes from a file or the environment; CONFIG GET
// never shows it and answers the lease and rebalance values in force.
func TestClusterPasswordRequired(t *testing.T) {
	etcd := etcdtest.Start(t)
	bin := geoshardBinary(t, false)
	pwFile := filepath.Join(t.TempDir(), "cluster.pw")
	if err := os.WriteFile(pwFile, []byte("from-a-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := func(id string) []string {
		return []string{"--bind", "127.0.0.1", "--cluster-etcd", etcd.Endpoint, "--cluster-name", "pw-" + id,
			"--node-id", id, "--position-ttl", "60", "--save", "", "--dir", t.TempDir()}
	}
	t.Run("refused", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append(base("x"), "--port", strconv.Itoa(mustFreePort(t)))...)
		cmd.Env = append(os.Environ(), envClusterPassword+"=")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "cluster mode needs a cluster password") {
			t.Fatalf("started without a cluster password: err %v\n%s", err, out)
		}
	})
	for _, tc := range []struct {
		name, env string
		args      []string
		log       string // a line the log must have
		auth      string // INFO's cluster_bus_auth
	}{
		{name: "insecure", args: []string{"--cluster-insecure", "yes"}, log: "CLUSTER BUS OPEN", auth: "none"},
		{name: "file", args: []string{"--cluster-password-file", pwFile}, log: "cluster mode", auth: "password"},
		{name: "env", env: "from-the-env", log: "cluster mode", auth: "password"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(envClusterPassword, tc.env)
			p := startServer(t, "node-"+tc.name, bin, func(port int) []string {
				return append(append(base(tc.name), "--port", strconv.Itoa(port)), tc.args...)
			})
			if !p.waitLog(tc.log, 5*time.Second) {
				t.Errorf("log lacks %q:\n%s", tc.log, p.out.String())
			}
			rc := dialRaw(t, p)
			if got := infoField(t, rc, "cluster", "cluster_bus_auth"); got != tc.auth {
				t.Errorf("cluster_bus_auth %q, want %q", got, tc.auth)
			}
			for _, c := range []struct{ arg, want string }{
				{"cluster-password", "*0\r\n"},
				{"cluster-etcd-password", "*0\r\n"},
				{"cluster-lease-ttl", "*2\r\n$17\r\ncluster-lease-ttl\r\n$1\r\n5\r\n"},
				{"cluster-rebalance-interval", "*2\r\n$26\r\ncluster-rebalance-interval\r\n$1\r\n2\r\n"},
				{"dbfilename", "*2\r\n$10\r\ndbfilename\r\n$" + strconv.Itoa(len("dump-"+tc.name+".gsnap")) + "\r\ndump-" + tc.name + ".gsnap\r\n"},
			} {
				if got := string(rc.mustDo(t, "CONFIG", "GET", c.arg)); got != c.want {
					t.Errorf("CONFIG GET %s = %q, want %q", c.arg, got, c.want)
				}
			}
			all := string(rc.mustDo(t, "CONFIG", "GET", "*"))
			for _, secret := range []string{"from-a-file", "from-the-env", "cluster-password\r\n"} {
				if strings.Contains(all, secret) {
					t.Errorf("CONFIG GET * shows %q", secret)
				}
			}
		})
	}
}

const envClusterPassword = "GEOSHARD_CLUSTER_PASSWORD"

// busAddrs reads each member's bus address from GEOSHARD NODES.
func busAddrs(t *testing.T, c *redis.Client) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range geoshardNodes(t, c) {
		f := lineFields(l)
		if strings.HasPrefix(l, "member ") {
			out[f["id"]] = f["bus"]
		}
	}
	return out
}

func geoshardNodes(t *testing.T, c *redis.Client) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	lines, err := c.Do(ctx, "GEOSHARD", "NODES").StringSlice()
	if err != nil {
		t.Fatalf("GEOSHARD NODES: %v", err)
	}
	return lines
}

// lineFields splits "kind k=v k=v ..." (a problem= text runs to the end).
func lineFields(l string) map[string]string {
	f := map[string]string{}
	if i := strings.Index(l, " problem="); i >= 0 {
		f["problem"] = l[i+len(" problem="):]
		l = l[:i]
	}
	for _, w := range strings.Fields(l)[1:] {
		if k, v, ok := strings.Cut(w, "="); ok {
			f[k] = v
		}
	}
	return f
}

// TestClusterBusAuth: before the cluster password, the bus says only that
// it is wrong (no table version, no command names), changes nothing, and
// a wrong password ends the connection.
func TestClusterBusAuth(t *testing.T) {
	tc := startCluster(t, 2, "--regions", clusterMap(t))
	a := tc.nodes["a"].c
	ctx := context.Background()
	if err := a.GeoAdd(ctx, "drivers", &redis.GeoLocation{Name: "d1", Longitude: 4.9, Latitude: 52.37}).Err(); err != nil {
		t.Fatal(err)
	}
	bus := busAddrs(t, a)["b"]
	if bus == "" {
		t.Fatal("no bus address for b in GEOSHARD NODES")
	}
	const wrong = "-WRONGPASS wrong cluster password\r\n"
	for _, cmd := range [][]string{
		{"GEOSHARD", "FLUSH", "", "1", "0"},
		{"GEOSHARD", "FLUSH", "guess", "999", "0"},
		{"GEOSHARD", "PUT", "", "1", "0", "0", "drivers", "fake", "3.5e15", "1"},
		{"GEOSHARD", "NODES"},
		{"PING"},
		{"HELLO", "3"},
	} {
		rc := dialRaw(t, &serverProc{name: "bus of b", addr: bus})
		got, err := rc.do(cmd...)
		if err != nil || string(got) != wrong {
			t.Errorf("%q on the bus: %q, %v; want %q", cmd, got, err, wrong)
		}
		if cmd[0] == "GEOSHARD" && len(cmd) >= 4 {
			if rest, err := rc.readToEOF(2 * time.Second); err != nil || len(rest) != 0 {
				t.Errorf("%q: the connection stayed open (%q, %v)", cmd, rest, err)
			}
		}
	}
	if n, err := a.ZCard(ctx, "drivers").Result(); err != nil || n != 1 {
		t.Errorf("ZCARD after the attempts: %d, %v; want 1", n, err)
	}
	// With the password, the bus answers.
	rc := dialRaw(t, &serverProc{name: "bus of b", addr: bus})
	if got := string(rc.mustDo(t, "GEOSHARD", "PING", "s3cret", "0")); got != "$4\r\nPONG\r\n" {
		t.Errorf("PING with the password: %q", got)
	}
}

// TestClusterNodes: from any node an operator sees every member with its
// address, the leader by id, and every shard with its owner, state and
// size; a node killed within its lease shows as unreachable at once, with
// its shards counted down in INFO, GEOSHARD NODES and /metrics.
func TestClusterNodes(t *testing.T) {
	// Without replicas: a hung or dead node's shards are down (with them,
	// its replicas answer: TestClusterReplicaKill).
	tc := startCluster(t, 2, "--regions", clusterMap(t), "--cluster-lease-ttl", "20", "--cluster-replicas", "0")
	tc.extra = append(tc.extra, "--metrics-port", strconv.Itoa(mustFreePort(t)))
	metricsURL := "http://127.0.0.1:" + tc.extra[len(tc.extra)-1] + "/metrics"
	tc.start("c")
	tc.settled(30*time.Second, "a", "b", "c")
	ctx := context.Background()
	drivers := faultDrivers(300)
	load(t, tc.nodes["a"].c, drivers)

	leaders := map[string]bool{}
	for _, id := range []string{"a", "b", "c"} {
		lines := geoshardNodes(t, tc.nodes[id].c)
		head := lineFields(lines[0])
		leaders[head["leader"]] = true
		if head["self"] != id || head["members"] != "3" || head["shards_down"] != "0" {
			t.Errorf("node %s: %q", id, lines[0])
		}
		var total int
		members := 0
		for _, l := range lines[1:] {
			f := lineFields(l)
			switch {
			case strings.HasPrefix(l, "member "):
				members++
				if f["state"] != "up" || f["addr"] != tc.nodes[f["id"]].proc.addr || f["bus"] == "-" {
					t.Errorf("node %s: %q", id, l)
				}
			case strings.HasPrefix(l, "shard "):
				n, err := strconv.Atoi(f["members"])
				if f["state"] != "up" || tc.nodes[f["primary"]] == nil || f["replica"] != "-" || err != nil || n < 0 {
					t.Errorf("node %s: %q", id, l)
				}
				total += n
			}
		}
		if members != 3 || total != len(drivers) {
			t.Errorf("node %s: %d members, shards hold %d drivers (want 3, %d):\n%s", id, members, total,
				len(drivers), strings.Join(lines, "\n"))
		}
		m, _ := clusterInfo(tc.nodes[id].c)
		if m["cluster_leader"] != head["leader"] || (m["cluster_is_leader"] == "yes") != (head["leader"] == id) {
			t.Errorf("node %s: INFO leader %q/%q, GEOSHARD NODES %q", id, m["cluster_leader"], m["cluster_is_leader"], head["leader"])
		}
		if got, _ := tc.nodes[id].c.ConfigGet(ctx, "cluster-lease-ttl").Result(); got["cluster-lease-ttl"] != "20" {
			t.Errorf("node %s: CONFIG GET cluster-lease-ttl %v", id, got)
		}
	}
	if len(leaders) != 1 || leaders["-"] {
		t.Errorf("leaders seen: %v", leaders)
	}

	// Kill the node that is not the leader and has the metrics port off.
	victim := "a"
	if leaders["a"] {
		victim = "b"
	}
	var victimShards int
	for _, l := range geoshardNodes(t, tc.nodes["c"].c) {
		if f := lineFields(l); strings.HasPrefix(l, "shard ") && f["primary"] == victim {
			victimShards++
		}
	}
	// A hung node (SIGSTOP) is registered and within its lease, but fails
	// health checks: its shards count as down now, and as up again once it
	// answers.
	proc := tc.nodes[victim].proc.cmd.Process
	waitDown := func(want string) map[string]string {
		t.Helper()
		var m map[string]string
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if m, _ = clusterInfo(tc.nodes["c"].c); m["cluster_down_shards"] == want {
				break
			}
		}
		return m
	}
	proc.Signal(syscall.SIGSTOP)
	m := waitDown(strconv.Itoa(victimShards))
	proc.Signal(syscall.SIGCONT)
	if m["cluster_down_shards"] != strconv.Itoa(victimShards) {
		t.Errorf("while %s is stopped: INFO %v, want %d shards down", victim, m, victimShards)
	}
	if m := waitDown("0"); m["cluster_down_shards"] != "0" {
		t.Errorf("after %s continued: INFO %v", victim, m)
	}
	victimAddr := tc.nodes[victim].proc.addr
	tc.kill(victim)                          // SIGKILL: its lease stays until the TTL
	m = waitDown(strconv.Itoa(victimShards)) // well within the 20 s lease
	if m["cluster_down_shards"] != strconv.Itoa(victimShards) || m["cluster_members"] != "3" {
		t.Fatalf("after killing %s (%d shards): INFO %v", victim, victimShards, m)
	}
	down := 0
	for _, l := range geoshardNodes(t, tc.nodes["c"].c) {
		f := lineFields(l)
		if strings.HasPrefix(l, "member ") && f["id"] == victim && (f["state"] != "unreachable" || f["problem"] == "") {
			t.Errorf("killed node: %q", l)
		}
		if strings.HasPrefix(l, "shard ") && f["primary"] == victim {
			if f["state"] != "unreachable" {
				t.Errorf("shard of the killed node: %q", l)
			}
			down++
		}
	}
	body := httpGet(t, metricsURL)
	for _, want := range []string{
		`geoshard_cluster_member_up{addr="` + victimAddr + `",node="` + victim + `"} 0`,
		"geoshard_cluster_shards_down " + strconv.Itoa(victimShards),
		`geoshard_cluster_leader_info{node="`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if down != victimShards || !strings.Contains(body, `state="unreachable"`) {
		t.Errorf("%d shards unreachable in GEOSHARD NODES, %d in INFO; metrics:\n%s", down, victimShards, grepLines(body, "geoshard_cluster"))
	}
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func grepLines(s, word string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, word) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestClusterClients: Redis Cluster clients are told, on every node, what
// a standalone Redis tells them (CLUSTER and READONLY answer as Redis 7.0
// does with cluster support disabled, byte for byte); redis-py's
// RedisCluster and go-redis's ClusterClient stop with that message, and
// plain clients work through any node.
func TestClusterClients(t *testing.T) {
	ref := startRedis(t)
	tc := startCluster(t, 2, "--regions", clusterMap(t))
	for _, cmd := range [][]string{{"CLUSTER"}, {"CLUSTER", "SLOTS"}, {"CLUSTER", "SHARDS"}, {"CLUSTER", "NODES"},
		{"CLUSTER", "INFO"}, {"CLUSTER", "MYID"}, {"CLUSTER", "KEYSLOT", "drivers"}, {"CLUSTER", "KEYSLOT"},
		{"CLUSTER", "FOO"}, {"CLUSTER", "HELP"}, {"READONLY"}, {"READWRITE"}, {"ASKING"}} {
		want := string(dialRaw(t, ref).mustDo(t, cmd...))
		for _, id := range []string{"a", "b"} {
			if got := string(dialRaw(t, tc.nodes[id].proc).mustDo(t, cmd...)); got != want {
				t.Errorf("node %s: %q = %q, redis-server %q", id, cmd, got, want)
			}
		}
	}
	if m, _ := clusterInfo(tc.nodes["a"].c); m["cluster_enabled"] != "0" {
		t.Errorf("INFO cluster_enabled %q", m["cluster_enabled"])
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{tc.nodes["a"].proc.addr}, MaxRedirects: 1})
	defer cc.Close()
	err := cc.GeoAdd(ctx, "drivers", &redis.GeoLocation{Name: "cc", Longitude: 4.9, Latitude: 52.37}).Err()
	if err == nil || !strings.Contains(err.Error(), "cluster support disabled") {
		t.Errorf("go-redis ClusterClient GEOADD: %v; want the cluster-disabled error", err)
	}
	if n, err := tc.nodes["b"].c.Exists(ctx, "drivers").Result(); err != nil || n != 0 {
		t.Errorf("the ClusterClient's write landed: EXISTS %d, %v", n, err)
	}

	py := python3WithRedis(t)
	script := `
import sys, redis
from redis.cluster import RedisCluster
a, b = int(sys.argv[1]), int(sys.argv[2])
try:
    RedisCluster(host="127.0.0.1", port=a)
    print("RedisCluster connected")
except Exception as e:
    print(type(e).__name__ + ": " + str(e).replace(str(a), "PORT"))
print(redis.Redis(port=a).geoadd("drivers", (4.9, 52.37, "py")))
print(redis.Redis(port=b).geosearch("drivers", longitude=4.9, latitude=52.37, radius=1, unit="km"))
`
	run := func(a, b int) string {
		out, err := exec.CommandContext(ctx, py, "-c", script, strconv.Itoa(a), strconv.Itoa(b)).CombinedOutput()
		if err != nil {
			t.Errorf("redis-py: %v\n%s", err, out)
		}
		return string(out)
	}
	want := run(ref.port, ref.port) // as redis-server answers
	if got := run(tc.nodes["a"].proc.port, tc.nodes["b"].proc.port); got != want ||
		!strings.Contains(got, "RedisClusterException") || !strings.Contains(got, "Cluster mode is not enabled") {
		t.Errorf("redis-py\n got: %q\nredis-server: %q", got, want)
	}
}
