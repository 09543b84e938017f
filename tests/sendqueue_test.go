package tests

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// waitWriteBlocked waits until the server's socket to client (the
// client's end, IPv4 loopback) holds replies the client does not take and
// that stop growing: the server's write is then blocked on a full send
// buffer. It reads the send queue from /proc/net/tcp, so the test knows
// the server is stuck instead of guessing from a sleep, on an idle
// machine as on a loaded one.
func waitWriteBlocked(t *testing.T, server string, client net.Conn, limit time.Duration) {
	t.Helper()
	local := tcpHex(t, server)
	remote := tcpHex(t, client.LocalAddr().String())
	prev, same := -1, 0
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		q, err := sendQueue(local, remote)
		if err != nil {
			t.Fatal(err)
		}
		if q > 0 && q == prev {
			if same++; same == 3 {
				return
			}
		} else {
			same = 0
		}
		prev = q
	}
	t.Fatalf("the server's write to %s did not block within %v", client.LocalAddr(), limit)
}

// tcpHex is an IPv4 address as /proc/net/tcp writes it: the address's
// 32 bits in host (little-endian) order, then the port, in hex.
func tcpHex(t *testing.T, addr string) string {
	t.Helper()
	a, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil || a.IP.To4() == nil {
		t.Fatalf("not an IPv4 address: %q (%v)", addr, err)
	}
	ip := a.IP.To4()
	return fmt.Sprintf("%02X%02X%02X%02X:%04X", ip[3], ip[2], ip[1], ip[0], a.Port)
}

// sendQueue returns tx_queue of the socket from local to remote.
func sendQueue(local, remote string) (int, error) {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 5 || fs[1] != local || fs[2] != remote {
			continue
		}
		tx, _, _ := strings.Cut(fs[4], ":")
		n, err := strconv.ParseInt(tx, 16, 64)
		return int(n), err
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no socket %s -> %s in /proc/net/tcp", local, remote)
}
