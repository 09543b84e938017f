package cluster

import (
	"bufio"
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
