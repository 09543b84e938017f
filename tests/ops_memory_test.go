package tests

import (
	"net"
	"strings"
	"testing"
	"time"
)

// TestOpsPartialBulkMemory: clients that send most of a huge bulk and
// leave cost memory only while they are connected: resident memory comes
// back to its baseline within seconds (it used to stay for minutes, at
// 1.9 times the data sent).
func TestOpsPartialBulkMemory(t *testing.T) {
	p := startGeoshardPlain(t, "geoshard")
	base, err := rssBytes(p)
	if err != nil {
		t.Fatal(err)
	}
	const clients, sent = 2, 160 << 20
	chunk := []byte(strings.Repeat("x", 1<<20))
	var conns []net.Conn
	for range clients {
		c, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetWriteDeadline(time.Now().Add(60 * time.Second))
		if _, err := c.Write([]byte("*2\r\n$4\r\nECHO\r\n$268435456\r\n")); err != nil {
			t.Fatal(err)
		}
		for range sent / len(chunk) {
			if _, err := c.Write(chunk); err != nil {
				t.Fatal(err)
			}
		}
		conns = append(conns, c)
	}
	var peak int64
	waitFor(t, 20*time.Second, "the server to hold what was sent", func() bool {
		peak, _ = rssBytes(p)
		return peak-base >= clients*sent*9/10
	})
	t.Logf("resident: %d MB at start, %d MB holding %d x %d MB of partial bulks", base>>20, peak>>20, clients, sent>>20)
	if peak-base > clients*sent*3/2 {
		t.Errorf("partial bulks of %d MB cost %d MB", clients*sent>>20, (peak-base)>>20)
	}
	for _, c := range conns {
		c.Close()
	}
	start := time.Now()
	var now int64
	waitFor(t, 10*time.Second, "memory to come back after the clients left", func() bool {
		now, _ = rssBytes(p)
		return now-base < 48<<20
	})
	t.Logf("resident: %d MB %v after the clients left", now>>20, time.Since(start).Round(100*time.Millisecond))
	if err := ping(p.addr); err != nil {
		t.Fatal(err)
	}
}
