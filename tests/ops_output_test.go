package tests

import (
	"net"
	"testing"
	"time"
)

// TestOpsPipelineNoRead: a client that keeps pipelining small commands
// and never reads a reply is disconnected once its replies have stalled
// for the soft limit's time, as client-output-buffer-limit does in Redis
// (where its buffer would grow past the limit); another client is served
// meanwhile.
func TestOpsPipelineNoRead(t *testing.T) {
	p := startOps(t, "geoshard", func(*testing.T) []string {
		return []string{"--client-output-buffer-limit", "normal", "1mb", "512kb", "2"}
	})
	rc := dialRaw(t, p)
	rc.mustDo(t, "GEOADD", "k", "13.4", "52.5", "a")
	slow, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	slow.(*net.TCPConn).SetReadBuffer(4 << 10)
	var batch []byte
	for range 20000 {
		batch = encodeCommand(batch, []string{"GEOPOS", "k", "a"})
	}
	done := make(chan struct{})
	go func() { // writes until the server closes the connection, at most 40 s
		defer close(done)
		slow.SetWriteDeadline(time.Now().Add(40 * time.Second))
		for {
			if _, err := slow.Write(batch); err != nil {
				return
			}
		}
	}()
	if got := string(rc.mustDo(t, "PING")); got != "+PONG\r\n" {
		t.Errorf("other client while one stalls: PING gave %q", got)
	}
	waitFor(t, 20*time.Second, "the client that never reads to be disconnected", func() bool {
		return infoField(t, rc, "clients", "connected_clients") == "1"
	})
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the stalled client's writes never failed")
	}
	if !p.waitLog("closing client that does not read its replies", 5*time.Second) {
		t.Errorf("no log line for the closed client:\n%s", p.out.String())
	}
}
