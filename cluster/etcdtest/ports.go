package etcdtest

import (
	"errors"
	"strings"
	"syscall"
	"testing"
)

// StartAttempts is how many times a test etcd is started on fresh ports
// when the ones it picked were taken. A free port is found by listening
// on port 0 and closing; until etcd binds it, any process may take it,
// and an outgoing connection's own port comes from the same range, so
// with test packages running side by side a start now and then finds its
// port in use.
const StartAttempts = 5

// PortTaken reports whether err is a bind that found its port in use.
func PortTaken(err error) bool {
	return err != nil && (errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), "address already in use"))
}

// startFresh starts s (made anew by mk on each attempt: fresh ports and
// data directory) until a start does not fail on a taken port.
func startFresh(t testing.TB, mk func() *Server) *Server {
	t.Helper()
	var err error
	for range StartAttempts {
		s := mk()
		if err = s.start(); err == nil {
			t.Cleanup(s.Stop)
			return s
		}
		if !PortTaken(err) {
			break
		}
	}
	t.Fatal(err)
	return nil
}
