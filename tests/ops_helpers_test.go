package tests

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startOps starts a geoshard on a free port with directives that may need
// more free ports (metrics, TLS): extra runs again on each start attempt.
func startOps(t *testing.T, name string, extra func(t *testing.T) []string) *serverProc {
	t.Helper()
	race := raceEnabled && os.Getenv("GEOSHARD_E2E_RACE") != "0"
	bin := geoshardBinary(t, race)
	return startServer(t, name, bin, func(port int) []string {
		// No snapshots: they would land in the working directory.
		args := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", ""}
		if extra != nil {
			args = append(args, extra(t)...)
		}
		return args
	})
}

func mustFreePort(t *testing.T) int {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	return port
}

// signalAndWait sends sig and waits up to limit for the process to exit,
// returning how long it took. The process counts as stopped on purpose, so
// finish does not report it as a crash.
func (p *serverProc) signalAndWait(t *testing.T, sig syscall.Signal, limit time.Duration) time.Duration {
	t.Helper()
	var took time.Duration
	p.stopOnce.Do(func() {
		close(p.stopping)
		begin := time.Now()
		if err := p.cmd.Process.Signal(sig); err != nil {
			t.Errorf("signalling %s: %v", p.name, err)
		}
		select {
		case <-p.exited:
			took = time.Since(begin)
		case <-time.After(limit):
			t.Errorf("%s did not exit within %v of %v\noutput:\n%s", p.name, limit, sig, p.out.String())
			p.cmd.Process.Kill()
			<-p.exited
			took = limit
		}
		env.untrack(p)
	})
	return took
}

// waitExit waits for a process that was told to stop some other way
// (SHUTDOWN) and marks it as stopped on purpose.
func (p *serverProc) waitExit(t *testing.T, limit time.Duration) {
	t.Helper()
	p.stopOnce.Do(func() {
		close(p.stopping)
		select {
		case <-p.exited:
		case <-time.After(limit):
			t.Errorf("%s did not exit within %v\noutput:\n%s", p.name, limit, p.out.String())
			p.cmd.Process.Kill()
			<-p.exited
		}
		env.untrack(p)
	})
}

// dialFrom connects to addr from a chosen local address, so a test can
// come from 127.0.0.2, which Redis 7.0's protected mode counts as remote.
func dialFrom(t *testing.T, local, addr string) *rawConn {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dialing %s from %s: %v", addr, local, err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{name: addr + " from " + local, c: c, br: bufio.NewReaderSize(c, 64<<10)}
}

// readToEOF reads what the server sends until it closes the connection.
func (rc *rawConn) readToEOF(limit time.Duration) ([]byte, error) {
	rc.c.SetReadDeadline(time.Now().Add(limit))
	var buf bytes.Buffer
	_, err := buf.ReadFrom(rc.br)
	return buf.Bytes(), err
}

// infoField returns one "name:value" field of INFO.
func infoField(t *testing.T, rc *rawConn, section, name string) string {
	t.Helper()
	reply := string(rc.mustDo(t, "INFO", section))
	for _, line := range strings.Split(reply, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v
		}
	}
	t.Fatalf("INFO %s has no %s:\n%s", section, name, reply)
	return ""
}

// waitLog waits up to limit for the server's output to contain want: the
// output reaches the test through a pipe, a little after the server wrote
// it.
func (p *serverProc) waitLog(want string, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for !strings.Contains(p.out.String(), want) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
