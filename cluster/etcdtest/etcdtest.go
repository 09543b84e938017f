// Package etcdtest runs an etcd server inside a test process: loopback
// only, random ports, a temporary directory and fast timings, so cluster
// tests need no external binary.
package etcdtest

import (
	"fmt"
	"net"
	"net/url"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
)

// Server is an embedded single-member etcd.
type Server struct {
	t        testing.TB
	dir      string
	client   url.URL
	peer     url.URL
	e        *embed.Etcd
	tls      *transport.TLSInfo // tls.go; nil: plain http
	Endpoint string             // host:port for clients (an https:// URL with TLS)
}

// Start starts an etcd server that stops when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	return startFresh(t, func() *Server {
		s := &Server{t: t, dir: t.TempDir()}
		s.client = url.URL{Scheme: "http", Host: freeAddr(t)}
		s.peer = url.URL{Scheme: "http", Host: freeAddr(t)}
		s.Endpoint = s.client.Host
		return s
	})
}

func (s *Server) start() error {
	cfg := Config(s.dir, s.client, s.peer)
	if s.tls != nil {
		cfg.ClientTLSInfo = *s.tls
	}
	e, err := Run(cfg, 10*time.Second)
	if err != nil {
		return err
	}
	s.e = e
	return nil
}

// Config is the tests' single-member etcd: data in dir, loopback URLs,
// fast timings, no fsync.
func Config(dir string, client, peer url.URL) *embed.Config {
	cfg := embed.NewConfig()
	cfg.Name = "test"
	cfg.Dir = dir
	cfg.ListenClientUrls = []url.URL{client}
	cfg.AdvertiseClientUrls = []url.URL{client}
	cfg.ListenPeerUrls = []url.URL{peer}
	cfg.AdvertisePeerUrls = []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.TickMs = 10
	cfg.ElectionMs = 100
	cfg.LogLevel = "error"
	cfg.LogOutputs = []string{"stderr"}
	cfg.UnsafeNoFsync = true
	cfg.BcryptCost = 4 // bcrypt's least: a test's passwords need no strength, and auth stays fast under -race
	return cfg
}

// Run starts etcd with cfg and waits until it is ready to serve clients.
func Run(cfg *embed.Config, ready time.Duration) (*embed.Etcd, error) {
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("embedded etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, nil
	case <-time.After(ready):
		e.Close()
		return nil, fmt.Errorf("embedded etcd: not ready after %v", ready)
	}
}

// Stop stops the server at once, as a crash or a partition would,
// keeping its data for Restart. The etcd server stops before embed's
// Close: Close alone first drains the gRPC servers for up to the request
// timeout (5.2 s while watches are open), refusing new requests while
// the server goes on expiring the leases nobody can keep alive and hands
// the deletions to the watches still open. The nodes then saw every
// member gone during an "outage" (TestClusterEtcdDown: node c found 16
// of 90 while etcd was down, its peers' shards marked down).
func (s *Server) Stop() {
	if s.e != nil {
		s.e.Server.HardStop()
		s.e.Close()
		s.e = nil
	}
}

// Restart starts a stopped server again on the same ports and data.
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatal(err)
	}
}

func freeAddr(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
