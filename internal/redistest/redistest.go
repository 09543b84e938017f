// Package redistest runs a throw-away redis-server for tests that compare
// geoshard with the real thing.
package redistest

import (
	"bytes"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// Start runs redis-server (no persistence, extra directives appended) on a
// free loopback port until the test ends and returns its address. A
// missing redis-server fails the test: .ci/run installs it.
func Start(t testing.TB, extra ...string) string {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("these tests compare against a real redis-server 7.0 (.ci/run installs it: apt-get install redis-server): %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	args := append([]string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir(), "--daemonize", "no"}, extra...)
	cmd := exec.Command(path, args...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", port)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not accept connections on %s: %v\n%s", addr, err, logs.String())
		}
	}
}
