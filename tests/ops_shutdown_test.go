package tests

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestOpsSigterm: SIGTERM while a client pipelines stops the server
// within a second, exit status 0, and every reply the client gets is
// whole: the stream ends at a reply boundary.
func TestOpsSigterm(t *testing.T) {
	// A -race build otherwise sleeps a second at exit (tsan's default).
	t.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	p := startOps(t, "geoshard-sigterm", nil)
	c, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const maxBatches = 20000
	var sent atomic.Int64
	go func() {
		var batch []byte
		for i := 0; i < 50; i++ {
			batch = encodeCommand(batch, []string{"GEOADD", "k", "13.4", "52.5", "m"})
			batch = encodeCommand(batch, []string{"PING"})
		}
		c.SetWriteDeadline(time.Now().Add(30 * time.Second))
		for i := 0; i < maxBatches; i++ {
			if _, err := c.Write(batch); err != nil {
				return
			}
			sent.Add(100)
		}
	}()
	br := bufio.NewReaderSize(c, 64<<10)
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	got := 0
	var took time.Duration
	for {
		r, err := readReply(br)
		if err != nil {
			if !errors.Is(err, io.EOF) || len(r) != 0 || errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("after %d replies: %v (partial reply %q)", got, err, r)
			}
			break
		}
		want := "+PONG\r\n"
		if got%2 == 0 {
			want = ":0\r\n"
			if got == 0 {
				want = ":1\r\n"
			}
		}
		if string(r) != want {
			t.Fatalf("reply %d: %q, want %q", got, r, want)
		}
		got++
		if got == 2000 {
			took = p.signalAndWait(t, syscall.SIGTERM, 10*time.Second)
		}
	}
	if took == 0 {
		t.Fatalf("the server closed the connection after %d replies, before SIGTERM", got)
	}
	if took > time.Second {
		t.Errorf("exit took %v after SIGTERM, want under a second", took)
	}
	if p.waitErr != nil {
		t.Errorf("exit status after SIGTERM: %v, want 0\n%s", p.waitErr, p.out.String())
	}
	if int64(got) > sent.Load() {
		t.Errorf("%d replies for %d commands sent", got, sent.Load())
	}
	t.Logf("%d replies of %d commands sent, exit %v after SIGTERM", got, sent.Load(), took)
}

// TestOpsShutdownCommand: SHUTDOWN answers the commands before it, sends
// nothing for itself, and the process exits 0; bad arguments are refused
// as Redis does.
func TestOpsShutdownCommand(t *testing.T) {
	p := startOps(t, "geoshard-shutdown", nil)
	rc := dialRaw(t, p)
	for _, s := range []struct {
		args []string
		want string
	}{
		{[]string{"SHUTDOWN", "SAVE", "NOSAVE"}, "-ERR syntax error\r\n"},
		{[]string{"SHUTDOWN", "BOGUS"}, "-ERR syntax error\r\n"},
		{[]string{"SHUTDOWN", "ABORT"}, "-ERR No shutdown in progress.\r\n"},
	} {
		if got := string(rc.mustDo(t, s.args...)); got != s.want {
			t.Errorf("%s: got %q, want %q", quoteCommand(s.args), got, s.want)
		}
	}
	other := dialRaw(t, p)
	if err := rc.send([][]string{{"PING"}, {"ECHO", "last"}, {"SHUTDOWN", "NOSAVE"}, {"PING"}}); err != nil {
		t.Fatal(err)
	}
	got, _ := rc.readToEOF(10 * time.Second)
	if string(got) != "+PONG\r\n$4\r\nlast\r\n" {
		t.Errorf("pipeline ending in SHUTDOWN: got %q", got)
	}
	p.waitExit(t, 10*time.Second)
	if p.waitErr != nil {
		t.Errorf("exit status after SHUTDOWN: %v\n%s", p.waitErr, p.out.String())
	}
	// The idle client is closed too, without a stray reply.
	if got, _ := other.readToEOF(5 * time.Second); len(got) != 0 {
		t.Errorf("idle client got %q at shutdown", got)
	}
	if !p.waitLog("user requested shutdown", 5*time.Second) {
		t.Errorf("no shutdown line in the log:\n%s", p.out.String())
	}
}

// TestOpsSigtermStalledClient: a client that stopped reading, under every
// output limit, does not hold up the exit.
func TestOpsSigtermStalledClient(t *testing.T) {
	t.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	p := startOps(t, "geoshard-sigterm-stalled", nil)
	rc := dialRaw(t, p)
	args := []string{"GEOADD", "big"}
	for j := 0; j < 2000; j++ {
		args = append(args, "2."+strconv.Itoa(1000+j), "48."+strconv.Itoa(1000+j), "member-"+strconv.Itoa(j))
	}
	rc.mustDo(t, args...)
	search := []string{"GEOSEARCH", "big", "FROMLONLAT", "2.5", "48.5", "BYRADIUS", "200", "km", "WITHCOORD", "WITHDIST"}
	stalled, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	stalled.(*net.TCPConn).SetReadBuffer(4 << 10)
	var batch []byte
	for i := 0; i < 100; i++ {
		batch = encodeCommand(batch, search)
	}
	stalled.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := stalled.Write(batch); err != nil {
		t.Fatal(err)
	}
	// Wait until the server is stuck writing to it: the default limits
	// (256mb hard, 64mb soft) never cut it off on their own. SIGTERM then
	// lands in the write's first second, while it waits to look whether
	// the client pipelines (server/conn.go, stallCheck): the window in
	// which a deadline set after shutdown's used to lift its bound.
	waitWriteBlocked(t, p.addr, stalled, 30*time.Second)
	if got := string(rc.mustDo(t, "PING")); got != "+PONG\r\n" {
		t.Fatalf("PING: %q", got)
	}
	took := p.signalAndWait(t, syscall.SIGTERM, 10*time.Second)
	// The stalled write gets half a second; the rest is slack for a
	// loaded machine. Without that bound the server never exits.
	if took > 5*time.Second {
		t.Errorf("exit took %v after SIGTERM with a stalled client", took)
	}
	if p.waitErr != nil {
		t.Errorf("exit status: %v\n%s", p.waitErr, p.out.String())
	}
}
