package tests

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// protoCase sends raw bytes and expects exactly want back; closed says
// whether the server must then close the connection (Redis does after a
// protocol error). Every row was captured from redis-server 7.0.15.
type protoCase struct {
	name   string
	input  string
	want   string
	closed bool
}

var protoCases = []protoCase{
	{"multibulk count not a number", "*abc\r\n", "-ERR Protocol error: invalid multibulk length\r\n", true},
	{"multibulk count with space", "* 1\r\n$4\r\nPING\r\n", "-ERR Protocol error: invalid multibulk length\r\n", true},
	{"multibulk count empty", "*\r\n", "-ERR Protocol error: invalid multibulk length\r\n", true},
	{"multibulk count trailing junk", "*1x\r\n", "-ERR Protocol error: invalid multibulk length\r\n", true},
	{"multibulk count over INT_MAX", "*3000000000\r\n", "-ERR Protocol error: invalid multibulk length\r\n", true},
	{"multibulk header ends in bare LF", "*1\n$4\r\nPING\r\n", "-ERR Protocol error: invalid multibulk length\r\n", true},
	{"negative bulk length", "*1\r\n$-5\r\n", "-ERR Protocol error: invalid bulk length\r\n", true},
	{"bulk length not a number", "*1\r\n$abc\r\n", "-ERR Protocol error: invalid bulk length\r\n", true},
	{"bulk length empty", "*1\r\n$\r\n", "-ERR Protocol error: invalid bulk length\r\n", true},
	{"bulk length with plus", "*1\r\n$+4\r\nPING\r\n", "-ERR Protocol error: invalid bulk length\r\n", true},
	{"bulk length with space", "*1\r\n$ 4\r\nPING\r\n", "-ERR Protocol error: invalid bulk length\r\n", true},
	{"bulk length leading zero", "*1\r\n$04\r\nPING\r\n", "-ERR Protocol error: invalid bulk length\r\n", true},
	{"bulk length over proto-max-bulk-len", "*1\r\n$536870913\r\n", "-ERR Protocol error: invalid bulk length\r\n", true},
	{"huge bulk length", "*1\r\n$2000000000\r\n", "-ERR Protocol error: invalid bulk length\r\n", true},
	{"bulk header missing", "*1\r\nPING\r\n", "-ERR Protocol error: expected '$', got 'P'\r\n", true},
	{"bulk header wrong type", "*2\r\n$4\r\nECHO\r\n:1\r\n", "-ERR Protocol error: expected '$', got ':'\r\n", true},
	{"unbalanced quotes inline", "PING \"a b\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n", true},
	// Redis skips the two bytes after a bulk's payload without checking
	// that they are CRLF.
	{"bulk terminator not checked", "*1\r\n$4\r\nPINGxx", "+PONG\r\n", false},
	{"bulk terminator LF LF", "*1\r\n$4\r\nPING\n\n", "+PONG\r\n", false},
	{"null multibulk ignored", "*-1\r\nPING\r\n", "+PONG\r\n", false},
	{"empty multibulk ignored", "*0\r\nPING\r\n", "+PONG\r\n", false},
	{"empty bulk argument", "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", "$0\r\n\r\n", false},
	{"lower-case command", "*1\r\n$4\r\nping\r\n", "+PONG\r\n", false},
	{"inline PING", "PING\r\n", "+PONG\r\n", false},
	{"inline bare LF", "PING\n", "+PONG\r\n", false},
	{"inline empty lines skipped", "\r\n\r\nPING\r\n", "+PONG\r\n", false},
	{"inline surrounding spaces", "  PING  \r\n", "+PONG\r\n", false},
	{"inline single quotes", "'PING'\r\n", "+PONG\r\n", false},
	{"inline hex escape", "\"PI\\x4eG\"\r\n", "+PONG\r\n", false},
	{"inline arity error", "ping a b c\r\n", "-ERR wrong number of arguments for 'ping' command\r\n", false},
	{"inline GEOADD and GEOPOS", "GEOADD k 1 2 m\r\nGEOPOS k m\r\n",
		":1\r\n*1\r\n*2\r\n$19\r\n0.99999994039535522\r\n$18\r\n2.0000001856465488\r\n", false},
	{"inline quoted member", "GEOADD k 1 2 \"a b\"\r\nGEOHASH k \"a b\"\r\n", ":1\r\n*1\r\n$11\r\ns02equ04ve0\r\n", false},
	{"inline starting with $", "$4\r\nPING\r\n", "-ERR unknown command '$4', with args beginning with: \r\n+PONG\r\n", false},
	{"unknown command", "*1\r\n$1\r\nx\r\n", "-ERR unknown command 'x', with args beginning with: \r\n", false},
	// CR and LF inside an error message become spaces.
	{"unknown command args with CRLF", "*3\r\n$3\r\nfoo\r\n$1\r\na\r\n$4\r\nb\r\nc\r\n",
		"-ERR unknown command 'foo', with args beginning with: 'a' 'b  c' \r\n", false},
	{"binary member with NUL and CRLF",
		"*5\r\n$6\r\nGEOADD\r\n$1\r\nk\r\n$1\r\n1\r\n$1\r\n2\r\n$7\r\na\x00b\r\nc\x00\r\n" +
			"*8\r\n$9\r\nGEOSEARCH\r\n$1\r\nk\r\n$10\r\nFROMLONLAT\r\n$1\r\n1\r\n$1\r\n2\r\n$8\r\nBYRADIUS\r\n$1\r\n1\r\n$1\r\nm\r\n",
		":1\r\n*1\r\n$7\r\na\x00b\r\nc\x00\r\n", false},
	{"pipeline with an error in the middle",
		"*1\r\n$4\r\nPING\r\n*2\r\n$6\r\nGEOPOS\r\n$0\r\n\r\n*4\r\n$7\r\nGEODIST\r\n$1\r\nk\r\n$1\r\na\r\n$1\r\nb\r\n*1\r\n$4\r\nPING\r\n",
		"+PONG\r\n*0\r\n$-1\r\n+PONG\r\n", false},
}

func TestProtocolRobustness(t *testing.T) {
	forBothServers(t, func(t *testing.T, p *serverProc) {
		for _, c := range protoCases {
			t.Run(c.name, func(t *testing.T) { runProtoCase(t, p, c) })
		}
		if !p.alive() {
			t.Fatalf("%s died", p.name)
		}
	})
}

func runProtoCase(t *testing.T, p *serverProc, c protoCase) {
	conn, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte("*1\r\n$8\r\nFLUSHALL\r\n")); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	if r, err := readReply(br); err != nil || string(r) != okR {
		t.Fatalf("FLUSHALL: %q %v", r, err)
	}
	if _, err := conn.Write([]byte(c.input)); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(c.want))
	n, err := io.ReadFull(br, got)
	if err != nil || string(got) != c.want {
		t.Fatalf("sent %q\n got: %q (read error: %v)\nwant: %q", c.input, got[:n], err, c.want)
	}
	if c.closed {
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		extra, err := io.ReadAll(br)
		if len(extra) > 0 || (err != nil && !isConnReset(err)) {
			t.Fatalf("after %q: want the connection closed, got %q and %v", c.want, extra, err)
		}
		return
	}
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		t.Fatal(err)
	}
	got = make([]byte, 7)
	if n, err := io.ReadFull(br, got); err != nil || string(got) != "+PONG\r\n" {
		t.Fatalf("connection not usable afterwards: %q %v", got[:n], err)
	}
}

func isConnReset(err error) bool {
	return err != nil && (errors.Is(err, io.EOF) || strings.Contains(err.Error(), "connection reset"))
}

// TestHugeBulkHeader: a 2 GB bulk header must be refused at once, and a
// 2^31-1 element multibulk must not be allocated up front; memory stays
// flat and the server stays up.
func TestHugeBulkHeader(t *testing.T) {
	forBothServers(t, func(t *testing.T, p *serverProc) {
		before, err := rssBytes(p)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			runProtoCase(t, p, protoCase{"huge bulk", "*1\r\n$2000000000\r\n", "-ERR Protocol error: invalid bulk length\r\n", true})
			if err := writeAndVanish(p.addr, []byte("*2147483647\r\n$4\r\nPING\r\n"), 100*time.Millisecond, false); err != nil {
				t.Fatal(err)
			}
		}
		after, err := rssBytes(p)
		if err != nil {
			t.Fatal(err)
		}
		if grown := after - before; grown > 64<<20 {
			t.Fatalf("resident memory grew by %d MB after huge headers", grown>>20)
		}
		if err := ping(p.addr); err != nil {
			t.Fatalf("server unusable afterwards: %v", err)
		}
	})
}

func rssBytes(p *serverProc) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, fmt.Errorf("reading memory of %s: %w", p.name, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc status of %s", p.name)
}

// TestDisconnectMidPipeline: clients that vanish mid-command, mid-pipeline
// or with unread replies must not disturb a client that keeps working.
func TestDisconnectMidPipeline(t *testing.T) {
	forBothServers(t, func(t *testing.T, p *serverProc) {
		worker := dialRaw(t, p)
		worker.mustDo(t, "FLUSHALL")
		// A key with big replies for the client that never reads them.
		big := []string{"GEOADD", "big"}
		for i := 0; i < 500; i++ {
			big = append(big, strconv.FormatFloat(-170+float64(i)*0.5, 'f', 3, 64), "10", "member-"+strconv.Itoa(i))
		}
		if r := worker.mustDo(t, big...); string(r) != intR(500) {
			t.Fatalf("GEOADD big: %q", r)
		}

		var wg sync.WaitGroup
		errs := make(chan error, 8)
		wg.Add(3)
		go func() { // a long pipeline cut in the middle of a command
			defer wg.Done()
			var buf []byte
			for i := 0; i < 5000; i++ {
				buf = encodeCommand(buf, []string{"GEOADD", "flood", "1", "1", "f" + strconv.Itoa(i)})
			}
			buf = append(buf, "*5\r\n$6\r\nGEOADD\r\n$5\r\nflo"...)
			errs <- writeAndVanish(p.addr, buf, 0, false)
		}()
		go func() { // big replies never read, then a reset
			defer wg.Done()
			var buf []byte
			for i := 0; i < 300; i++ {
				buf = encodeCommand(buf, []string{"GEOSEARCH", "big", "FROMLONLAT", "0", "10", "BYRADIUS", "inf", "km", "WITHCOORD", "WITHDIST"})
			}
			errs <- writeAndVanish(p.addr, buf, 300*time.Millisecond, true)
		}()
		go func() { // a bulk announced and never completed
			defer wg.Done()
			errs <- writeAndVanish(p.addr, []byte("*2\r\n$4\r\nECHO\r\n$100\r\nabc"), 50*time.Millisecond, false)
		}()

		// Meanwhile the worker adds and finds its own members.
		for i := 0; i < 300; i++ {
			lon := strconv.FormatFloat(-100+float64(i)*0.01, 'f', 4, 64)
			m := "w" + strconv.Itoa(i)
			replies, err := worker.pipeline([][]string{
				{"GEOADD", "live", lon, "20", m},
				{"GEOSEARCH", "live", "FROMLONLAT", lon, "20", "BYRADIUS", "1", "m"},
			})
			if err != nil {
				t.Fatalf("worker, iteration %d: %v", i, err)
			}
			if string(replies[0]) != intR(1) || string(replies[1]) != bulks(m) {
				t.Fatalf("worker, iteration %d: GEOADD %q, GEOSEARCH %q", i, replies[0], replies[1])
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		if r := worker.mustDo(t, "ZCARD", "live"); string(r) != intR(300) {
			t.Fatalf("ZCARD live = %q", r)
		}
		if !p.alive() {
			t.Fatalf("%s died", p.name)
		}
	})
}

// writeAndVanish writes buf, waits, and closes without reading; reset
// closes with RST instead of FIN.
func writeAndVanish(addr string, buf []byte, wait time.Duration, reset bool) error {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	// The server may stop reading while its replies pile up: a short
	// write is fine, this client is about to vanish anyway.
	c.Write(buf)
	time.Sleep(wait)
	if reset {
		c.(*net.TCPConn).SetLinger(0)
	}
	return c.Close()
}
