package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startTest runs a server in this process on a free loopback port and
// returns its address; it is shut down when the test ends.
func startTest(t *testing.T, args ...string) string {
	t.Helper()
	o, err := ParseArgs(append([]string{"--port", "0", "--bind", "127.0.0.1", "--dir", t.TempDir(), "--save", ""}, args...))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(o, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("server did not stop")
		}
	})
	return s.Addr().String()
}

// testConn is a raw RESP client.
type testConn struct {
	nc net.Conn
	rd *bufio.Reader
}

func dialTest(t *testing.T, addr string) *testConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(60 * time.Second))
	return &testConn{nc: nc, rd: bufio.NewReaderSize(nc, 64<<10)}
}

func (c *testConn) send(t *testing.T, words ...string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(words))
	for _, w := range words {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(w), w)
	}
	if _, err := io.WriteString(c.nc, b.String()); err != nil {
		t.Fatal(err)
	}
}

// skipReply reads one reply of integers, errors, bulk strings and arrays
// of them, returning its size in bytes; an error reply fails the test.
func (c *testConn) skipReply(t *testing.T) int {
	t.Helper()
	line, err := c.rd.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	n := len(line)
	switch line[0] {
	case ':', '+':
		return n
	case '$':
		l, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		if _, err := c.rd.Discard(l + 2); err != nil {
			t.Fatal(err)
		}
		return n + l + 2
	case '*':
		k, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		for range k {
			n += c.skipReply(t)
		}
		return n
	}
	t.Fatalf("reply %q", line)
	return 0
}

// TestBigRepliesReuseBuffers: a client that asks for the same big
// reply again and again does not grow and drop a reply buffer each time
// (at least the reply's size in garbage, more when it grows by doubling);
// the server reuses a pooled one, so a reply costs a small part of its
// size in allocations. GET of a big string, because GET itself allocates
// nothing; a wide GEOSEARCH (below) is the case that matters, checked for
// the part the reply buffer takes.
func TestBigRepliesReuseBuffers(t *testing.T) {
	addr := startTest(t)
	c := dialTest(t, addr)
	big := strings.Repeat("x", 3*bigReply)
	c.send(t, "SET", "big", big)
	c.skipReply(t)
	for _, tc := range []struct {
		name  string
		words []string
	}{
		{"one reply", []string{"GET", "big"}},
		{"two pipelined", []string{"GET", "big", "GET", "big"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exchange := func() int {
				n := 0
				for i := 0; i < len(tc.words); i += 2 {
					c.send(t, tc.words[i:i+2]...)
				}
				for i := 0; i < len(tc.words); i += 2 {
					n += c.skipReply(t)
				}
				return n
			}
			size := exchange()
			const rounds = 20
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for range rounds {
				if got := exchange(); got != size {
					t.Fatalf("replies of %d bytes, then %d", size, got)
				}
			}
			runtime.ReadMemStats(&after)
			perRound := (after.TotalAlloc - before.TotalAlloc) / rounds
			t.Logf("replies %d bytes, %d bytes allocated per round", size, perRound)
			limit := uint64(size) / 8
			if raceEnabled {
				limit = uint64(size) * 3 / 4 // a quarter of the Puts are dropped; without the pool it is over 1x
			}
			if perRound > limit {
				t.Errorf("%d bytes allocated per round of %d bytes of replies: the reply buffer is not reused", perRound, size)
			}
		})
	}
}

// TestSmallRepliesAfterBig: after a big reply, small ones still come out
// whole and in order, pipelined or not (the big buffer went back to the
// pool, the small one came back).
func TestSmallRepliesAfterBig(t *testing.T) {
	addr := startTest(t)
	c := dialTest(t, addr)
	big := strings.Repeat("x", 3*bigReply)
	c.send(t, "SET", "big", big)
	if got := c.skipReply(t); got != 5 {
		t.Fatalf("SET replied %d bytes", got)
	}
	for _, pipeline := range []int{1, 3} {
		for range pipeline {
			c.send(t, "GET", "big")
			c.send(t, "PING")
		}
		for range pipeline {
			if got := c.skipReply(t); got != len(big)+len("$786432\r\n")+2 {
				t.Fatalf("GET big replied %d bytes", got)
			}
			line, err := c.rd.ReadString('\n')
			if err != nil || line != "+PONG\r\n" {
				t.Fatalf("PING after a big reply: %q, %v", line, err)
			}
		}
	}
}
