package cluster

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"geoshard/resp"
)

// TestBusBigReplyAfterIdle: a reply bigger than the bus's write buffer,
// sent after the connection sat idle longer than the write bound, must
// arrive whole (issue 12, defect 1: it was written under the deadline of
// the last flush and cut).
func TestBusBigReplyAfterIdle(t *testing.T) {
	big := strings.Repeat("x", 200<<10)
	b, err := startBus(func(args [][]byte, w Replier) { w.BulkString(big) }, "127.0.0.1:0", nil, "pw",
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	b.write = 100 * time.Millisecond
	nc, err := net.Dial("tcp", b.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	br := bufio.NewReader(nc)
	for _, idle := range []time.Duration{0, 300 * time.Millisecond} {
		time.Sleep(idle)
		var w resp.Writer
		w.Array(4)
		for _, a := range []string{"GEOSHARD", "GET", "pw", "1"} {
			w.BulkString(a)
		}
		nc.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := nc.Write(w.Buf); err != nil {
			t.Fatal(err)
		}
		header, err := br.ReadString('\n')
		if err != nil || header != "$204800\r\n" {
			t.Fatalf("after %v idle: reply header %q, %v", idle, header, err)
		}
		body := make([]byte, len(big)+2)
		if _, err := io.ReadFull(br, body); err != nil {
			t.Fatalf("after %v idle: reply cut: %v", idle, err)
		}
	}
}

// TestBusPasswordFirst: before the cluster password the bus says only
// that it is wrong, whatever was sent, and serves nothing; a wrong
// password ends the connection; the right one is served.
func TestBusPasswordFirst(t *testing.T) {
	served := 0
	b, err := startBus(func(args [][]byte, w Replier) { served++; w.BulkString("served") }, "127.0.0.1:0", nil, "pw",
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	const wrong = "-WRONGPASS wrong cluster password\r\n"
	for _, c := range []struct {
		cmd    []string
		want   string
		closed bool
	}{
		{[]string{"PING"}, wrong, false},
		{[]string{"HELLO", "3"}, wrong, false},
		{[]string{"GEOSHARD", "FLUSH", "pw"}, wrong, false},
		{[]string{"GEOSHARD", "FLUSH", "", "1", "0"}, wrong, true},
		{[]string{"GEOSHARD", "GET", "PW", "999", "0"}, wrong, true},
		{[]string{"SET", "x", "pw", "1"}, wrong, false},
		{[]string{"geoshard", "get", "pw", "1", "0"}, "$6\r\nserved\r\n", false},
	} {
		nc, err := net.Dial("tcp", b.addr())
		if err != nil {
			t.Fatal(err)
		}
		var w resp.Writer
		w.Array(len(c.cmd))
		for _, a := range c.cmd {
			w.BulkString(a)
		}
		nc.SetDeadline(time.Now().Add(5 * time.Second))
		nc.Write(w.Buf)
		got := make([]byte, len(c.want))
		_, err = io.ReadFull(nc, got)
		if err != nil || string(got) != c.want {
			t.Errorf("%q: %q, %v; want %q", c.cmd, got, err, c.want)
		}
		nc.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		_, err = nc.Read(make([]byte, 1))
		if closed := errors.Is(err, io.EOF); closed != c.closed {
			t.Errorf("%q: connection closed %v, want %v (%v)", c.cmd, closed, c.closed, err)
		}
		nc.Close()
	}
	if served != 1 {
		t.Errorf("served %d commands, want 1", served)
	}
}
