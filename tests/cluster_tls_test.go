package tests

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"geoshard/cluster/etcdtest"
)

// TestClusterTLS runs a cluster secured end to end with certificates the
// test makes: etcd over TLS asking for client certificates and with auth
// on (a user allowed only the /geoshard/ prefix), and the bus over mutual
// TLS. Writes through one node reach shards on the other; the bus refuses
// plain TCP and certificates of another CA; a wrong etcd password stops
// the start with etcd's reason.
func TestClusterTLS(t *testing.T) {
	pk := newTestPKI(t)
	ca, caKey := makeCert(t, nil, nil, "cluster CA", true, x509.ExtKeyUsageAny)
	// One certificate per machine, good for serving and for calling.
	node, nodeKey := makeCert(t, ca, caKey, "127.0.0.1", false, x509.ExtKeyUsageAny)
	dir := t.TempDir()
	caFile, certFile, keyFile := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "node.crt"), filepath.Join(dir, "node.key")
	writePEM(t, caFile, "CERTIFICATE", ca.Raw)
	writePEM(t, certFile, "CERTIFICATE", node.Raw)
	der, err := x509.MarshalPKCS8PrivateKey(nodeKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, keyFile, "PRIVATE KEY", der)
	etcd := etcdtest.StartTLS(t, certFile, keyFile, caFile)
	etcdAuth(t, etcd.Endpoint, certFile, keyFile, caFile)
	pwFile := filepath.Join(dir, "etcd.pw")
	if err := os.WriteFile(pwFile, []byte("gs-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	secure := []string{"--regions", clusterMap(t),
		"--tls-cluster", "yes", "--tls-cert-file", certFile, "--tls-key-file", keyFile, "--tls-ca-cert-file", caFile,
		"--cluster-etcd-cacert", caFile, "--cluster-etcd-cert", certFile, "--cluster-etcd-key", keyFile,
		"--cluster-etcd-user", "geoshard", "--cluster-etcd-password-file", pwFile}
	tc := &testCluster{t: t, etcd: inProcEtcd{etcd}, name: "tls", extra: secure, nodes: map[string]*clusterNode{}}
	tc.start("a")
	tc.start("b")
	tc.settled(30*time.Second, "a", "b")

	drivers := faultDrivers(200)
	load(t, tc.nodes["a"].c, drivers)
	ctx := context.Background()
	for _, id := range []string{"a", "b"} {
		if n, err := tc.nodes[id].c.ZCard(ctx, "drivers").Result(); err != nil || n != int64(len(drivers)) {
			t.Errorf("ZCARD through %s: %d, %v; want %d", id, n, err, len(drivers))
		}
		m, _ := clusterInfo(tc.nodes[id].c)
		if m["cluster_bus_tls"] != "yes" || m["cluster_local_shards"] == "0" {
			t.Errorf("node %s: INFO %v", id, m)
		}
	}

	bus := busAddrs(t, tc.nodes["a"].c)["b"]
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	good := tls.Certificate{Certificate: [][]byte{node.Raw}, PrivateKey: nodeKey}
	for _, c := range []struct {
		name string
		cfg  *tls.Config // nil: plain TCP
		want string      // reply to PING with the password; "" none
	}{
		{"plain TCP", nil, ""},
		{"no certificate", &tls.Config{RootCAs: pool}, ""},
		{"another CA's certificate", &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pk.strangerClient}}, ""},
		{"the cluster's certificate", &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{good}}, "$4\r\nPONG\r\n"},
	} {
		got := busPing(bus, c.cfg)
		if got != c.want {
			t.Errorf("%s: PING on the bus answered %q, want %q", c.name, got, c.want)
		}
	}

	t.Run("wrong etcd password", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.pw")
		os.WriteFile(bad, []byte("guess\n"), 0o600)
		args := append([]string{"--port", strconv.Itoa(mustFreePort(t)), "--bind", "127.0.0.1",
			"--cluster-etcd", etcd.Endpoint, "--cluster-name", "tls", "--node-id", "x", "--cluster-password", "s3cret",
			"--position-ttl", "60", "--save", "", "--dir", t.TempDir()}, secure...)
		args = append(args, "--cluster-etcd-password-file", bad)
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(cctx, geoshardBinary(t, false), args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "authentication failed") {
			t.Errorf("started with a wrong etcd password: %v\n%s", err, out)
		}
	})
}

// etcdAuth turns etcd's auth on: root, and a geoshard user that may read
// and write only under /geoshard/.
func etcdAuth(t *testing.T, endpoint, cert, key, ca string) {
	t.Helper()
	c, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	pem, _ := os.ReadFile(ca)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second,
		TLS: &tls.Config{Certificates: []tls.Certificate{c}, RootCAs: pool}})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	steps := []func() error{
		func() error { _, err := cli.UserAdd(ctx, "root", "root-secret"); return err },
		func() error { _, err := cli.UserGrantRole(ctx, "root", "root"); return err },
		func() error { _, err := cli.RoleAdd(ctx, "geoshard"); return err },
		func() error {
			_, err := cli.RoleGrantPermission(ctx, "geoshard", "/geoshard/", clientv3.GetPrefixRangeEnd("/geoshard/"),
				clientv3.PermissionType(clientv3.PermReadWrite))
			return err
		},
		func() error { _, err := cli.UserAdd(ctx, "geoshard", "gs-secret"); return err },
		func() error { _, err := cli.UserGrantRole(ctx, "geoshard", "geoshard"); return err },
		func() error { _, err := cli.AuthEnable(ctx); return err },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("etcd auth set-up step %d: %v", i, err)
		}
	}
}

// busPing sends GEOSHARD PING with the test cluster's password to a bus,
// over TLS with cfg (plain TCP when nil), and returns the raw reply, ""
// when the connection gave none.
func busPing(addr string, cfg *tls.Config) string {
	dialer := &net.Dialer{Timeout: 3 * time.Second}
	var conn net.Conn
	var err error
	if cfg == nil {
		conn, err = dialer.Dial("tcp", addr)
	} else {
		conn, err = tls.DialWithDialer(dialer, "tcp", addr, cfg)
	}
	if err != nil {
		return ""
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := conn.Write([]byte("*4\r\n$8\r\nGEOSHARD\r\n$4\r\nPING\r\n$6\r\ns3cret\r\n$1\r\n0\r\n")); err != nil {
		return ""
	}
	buf := make([]byte, 64)
	n, _ := conn.Read(buf)
	return string(buf[:n])
}
