package etcdtest

import (
	"net"
	"net/url"
	"testing"
	"time"
)

// TestPortTaken: etcd started on a port another listener holds fails
// with an error PortTaken knows, so Start picks other ports.
func TestPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg := Config(t.TempDir(), url.URL{Scheme: "http", Host: ln.Addr().String()},
		url.URL{Scheme: "http", Host: freeAddr(t)})
	e, err := Run(cfg, 10*time.Second)
	if err == nil {
		e.Close()
		t.Fatal("etcd started on a port in use")
	}
	if !PortTaken(err) {
		t.Errorf("PortTaken(%v) = false", err)
	}
	if PortTaken(nil) {
		t.Error("PortTaken(nil) = true")
	}
}
