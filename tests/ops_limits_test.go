package tests

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

const oomReply = "-OOM command not allowed when used memory > 'maxmemory'.\r\n"

// TestOpsMaxClients: past maxclients a new connection gets Redis's error
// and is closed; the clients already in keep working.
func TestOpsMaxClients(t *testing.T) {
	p := startOps(t, "geoshard-maxclients", nil)
	rc := dialRaw(t, p)
	rc.mustDo(t, "CONFIG", "SET", "maxclients", "2")
	// The harness's readiness PING may not have been closed yet.
	for deadline := time.Now().Add(5 * time.Second); infoField(t, rc, "clients", "connected_clients") != "1"; {
		if time.Now().After(deadline) {
			t.Fatalf("connected_clients stays above 1")
		}
		time.Sleep(10 * time.Millisecond)
	}
	second := dialRaw(t, p)
	if got := string(second.mustDo(t, "PING")); got != "+PONG\r\n" {
		t.Fatalf("second client: PING gave %q", got)
	}
	third := dialRaw(t, p)
	got, _ := third.readToEOF(5 * time.Second)
	if string(got) != "-ERR max number of clients reached\r\n" {
		t.Errorf("third client got %q", got)
	}
	if got := infoField(t, rc, "stats", "rejected_connections"); got != "1" {
		t.Errorf("rejected_connections = %s, want 1", got)
	}
	if got := string(second.mustDo(t, "PING")); got != "+PONG\r\n" {
		t.Errorf("second client after the refusal: PING gave %q", got)
	}
}

// TestOpsMaxMemory: over maxmemory, commands Redis flags denyoom get its
// OOM error (checked against redis-server) while reads, deletes and
// CONFIG keep working; lifting the limit lets writes in again.
func TestOpsMaxMemory(t *testing.T) {
	p := startOps(t, "geoshard-maxmemory", nil)
	ref := startRedis(t)
	for _, srv := range []*serverProc{ref, p} {
		rc := dialRaw(t, srv)
		rc.mustDo(t, "GEOADD", "k", "13.4", "52.5", "a")
		rc.mustDo(t, "CONFIG", "SET", "maxmemory", "1")
		steps := []struct {
			args []string
			want string
		}{
			{[]string{"GEOADD", "k", "13.5", "52.5", "b"}, oomReply},
			{[]string{"GEORADIUS", "k", "13.4", "52.5", "10", "km"}, oomReply}, // flagged denyoom, even without STORE
			{[]string{"ZADD", "z", "1", "m"}, oomReply},
			{[]string{"GEOSEARCH", "k", "FROMLONLAT", "13.4", "52.5", "BYRADIUS", "10", "km"}, "*1\r\n$1\r\na\r\n"},
			{[]string{"GEOPOS", "k", "nope"}, "*1\r\n*-1\r\n"},
			{[]string{"ZREM", "k", "a"}, ":1\r\n"},
			{[]string{"CONFIG", "SET", "maxmemory", "0"}, "+OK\r\n"},
			{[]string{"GEOADD", "k", "13.5", "52.5", "b"}, ":1\r\n"},
		}
		for _, s := range steps {
			if got := string(rc.mustDo(t, s.args...)); got != s.want {
				t.Errorf("%s: %s: got %q, want %q", srv.name, quoteCommand(s.args), got, s.want)
			}
		}
	}
}

// TestOpsSlowReader: a client that pipelines big searches and never reads
// the replies is disconnected once its replies stall above the soft
// output limit; the server's memory stays far below what the replies
// would take, and another client is served meanwhile.
func TestOpsSlowReader(t *testing.T) {
	p := startOps(t, "geoshard-slowreader", func(*testing.T) []string {
		return []string{"--client-output-buffer-limit", "normal", "0", "256kb", "1"}
	})
	rc := dialRaw(t, p)
	const members = 4000
	for i := 0; i < members; i += 200 {
		args := []string{"GEOADD", "big"}
		for j := i; j < i+200; j++ {
			args = append(args, strconv.FormatFloat(2+float64(j%100)*0.001, 'f', 4, 64),
				strconv.FormatFloat(48+float64(j/100)*0.001, 'f', 4, 64), "member-"+strconv.Itoa(j))
		}
		rc.mustDo(t, args...)
	}
	search := []string{"GEOSEARCH", "big", "FROMLONLAT", "2.05", "48.02", "BYRADIUS", "100", "km", "WITHCOORD", "WITHDIST", "WITHHASH"}
	reply := rc.mustDo(t, search...)
	if !strings.HasPrefix(string(reply), "*"+strconv.Itoa(members)+"\r\n") {
		t.Fatalf("search: %.60q", reply)
	}
	before, err := rssBytes(p)
	if err != nil {
		t.Fatal(err)
	}

	slow, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	slow.(*net.TCPConn).SetReadBuffer(4 << 10) // fill up fast
	const requests = 400                       // ~100 MB of replies if all were kept
	var batch []byte
	for i := 0; i < requests; i++ {
		batch = encodeCommand(batch, search)
	}
	slow.SetWriteDeadline(time.Now().Add(20 * time.Second))
	// The server may close the connection before it has read everything.
	slow.Write(batch)

	if got := string(rc.mustDo(t, "PING")); got != "+PONG\r\n" {
		t.Errorf("other client while one stalls: PING gave %q", got)
	}
	deadline := time.Now().Add(15 * time.Second)
	for infoField(t, rc, "clients", "connected_clients") != "1" {
		if time.Now().After(deadline) {
			t.Fatalf("the client that never reads is still connected\n%s", p.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	after, err := rssBytes(p)
	if err != nil {
		t.Fatal(err)
	}
	if grown := after - before; grown > 48<<20 {
		t.Errorf("resident memory grew by %d MB for a client that never reads (replies: %d x %d bytes)",
			grown>>20, requests, len(reply))
	}
	if !p.waitLog("closing client that does not read its replies", 5*time.Second) {
		t.Errorf("no log line for the closed client:\n%s", p.out.String())
	}
	if got := string(rc.mustDo(t, search...)); got != string(reply) {
		t.Errorf("search after the slow client left differs")
	}

	// Past the hard limit a reply is not sent at all.
	rc.mustDo(t, "CONFIG", "SET", "client-output-buffer-limit", "normal 64kb 0 0")
	hard := dialRaw(t, p)
	if err := hard.send([][]string{search}); err != nil {
		t.Fatal(err)
	}
	if got, _ := hard.readToEOF(10 * time.Second); len(got) != 0 {
		t.Errorf("reply over the hard limit was sent: %.60q", got)
	}
	if got := string(rc.mustDo(t, "PING")); got != "+PONG\r\n" {
		t.Errorf("PING after the hard limit: %q", got)
	}
	if !p.waitLog("closing client over the output buffer hard limit", 5*time.Second) {
		t.Errorf("no log line for the hard limit:\n%s", p.out.String())
	}
}

// TestOpsProtoMaxBulkLen: a bulk header over proto-max-bulk-len (1 GB
// against the default 512 MB, then 2 MB against a lowered limit) gets
// Redis's protocol error; other clients are not disturbed.
func TestOpsProtoMaxBulkLen(t *testing.T) {
	p := startOps(t, "geoshard-bulklen", nil)
	rc := dialRaw(t, p)
	try := func(header string) {
		t.Helper()
		c := dialRaw(t, p)
		if err := c.writeRaw([]byte(header)); err != nil {
			t.Fatal(err)
		}
		got, _ := c.readToEOF(5 * time.Second)
		if string(got) != "-ERR Protocol error: invalid bulk length\r\n" {
			t.Errorf("%q: got %q", header, got)
		}
	}
	try("*1\r\n$1073741824\r\n")
	rc.mustDo(t, "CONFIG", "SET", "proto-max-bulk-len", "1mb")
	try("*1\r\n$2097152\r\n")
	if got := string(rc.mustDo(t, "PING")); got != "+PONG\r\n" {
		t.Errorf("PING afterwards: %q", got)
	}
	// A flood of bad clients is logged a few times, not once each.
	for i := 0; i < 20; i++ {
		try("*1\r\n$2097152\r\n")
	}
	count := func() int { return strings.Count(p.out.String(), `msg="protocol error"`) }
	for deadline := time.Now().Add(5 * time.Second); count() < 5 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // the log reaches us through a pipe: let any more arrive
	if n := count(); n != 5 {
		t.Errorf("%d protocol errors logged for 22 bad clients, want 5 (the rate limit)\n%s", n, p.out.String())
	}
}
