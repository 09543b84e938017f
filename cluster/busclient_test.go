package cluster

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"geoshard/router"
)

// echoBus starts a real bus whose commands answer with their last word,
// or the error it names after "ERR:", or ("int") their number of words.
func echoBus(t *testing.T) *bus {
	t.Helper()
	b, err := startBus(func(args [][]byte, w Replier) {
		switch s := string(args[len(args)-1]); {
		case len(s) > 4 && s[:4] == "ERR:":
			w.Error(s[4:])
		case s == "int":
			w.Int(int64(len(args)))
		case s == "array":
			w.Array(2)
			w.BulkString("a")
			w.Bulk([]byte{0, 1, 2})
		default:
			w.BulkString(s)
		}
	}, "127.0.0.1:0", nil, "pw", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.close)
	return b
}

func TestBusClientReplies(t *testing.T) {
	b := echoBus(t)
	c := newBusClient(b.addr(), time.Second, nil)
	defer c.close()
	ctx := context.Background()
	for _, tc := range []struct {
		args []any
		want any
		err  string
	}{
		{[]any{"GEOSHARD", "GET", "pw", "hello"}, "hello", ""},
		{[]any{"GEOSHARD", "GET", "pw", 7, int64(-8), []byte("bytes")}, "bytes", ""},
		{[]any{"GEOSHARD", "GET", "pw", 7, int64(-8)}, "-8", ""},
		{[]any{"GEOSHARD", "GET", "pw", 7}, "7", ""},
		{[]any{"GEOSHARD", "GET", "pw", "x", "int"}, int64(5), ""},
		{[]any{"GEOSHARD", "GET", "pw", "ERR:GSVERSION table version 3, request 2"}, nil, "GSVERSION table version 3, request 2"},
	} {
		v, err := c.do(ctx, tc.args...)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: %v, %v; want error %q", tc.args, v, err, tc.err)
			}
			continue
		}
		if err != nil || v != tc.want {
			t.Errorf("%q: %#v, %v; want %#v", tc.args, v, err, tc.want)
		}
	}
	v, err := c.do(ctx, "GEOSHARD", "GET", "pw", "array")
	if arr, ok := v.([]any); err != nil || !ok || len(arr) != 2 || arr[0] != "a" || arr[1] != "\x00\x01\x02" {
		t.Errorf("array: %#v, %v", v, err)
	}
	if _, err := c.do(ctx, "GEOSHARD", 1.5); err == nil {
		t.Errorf("a float word was sent")
	}
	wrong := newBusClient(b.addr(), time.Second, nil)
	defer wrong.close()
	if _, err := wrong.do(ctx, "GEOSHARD", "GET", "wrong", "x"); err == nil || err.Error() != errWrongPassword {
		t.Errorf("wrong password: %v", err)
	}
}

// TestBusClientReuse: calls one after the other share one connection,
// and an error reply does not cost it.
func TestBusClientReuse(t *testing.T) {
	b := echoBus(t)
	c := newBusClient(b.addr(), time.Second, nil)
	defer c.close()
	for i := range 20 {
		word := "x"
		if i%2 == 1 {
			word = "ERR:ERR no"
		}
		c.do(context.Background(), "GEOSHARD", "KEYS", "pw", word)
	}
	b.mu.Lock()
	n := len(b.conns)
	b.mu.Unlock()
	if n != 1 {
		t.Errorf("20 calls in a row: %d connections on the bus, want 1", n)
	}
}

// silentPeer accepts connections and never answers, as a SIGSTOPped node
// whose kernel still takes connections; it counts them.
type silentPeer struct {
	addr     string
	accepted atomic.Int64

	mu    sync.Mutex
	conns []net.Conn // in the order accepted
}

func newSilentPeer(t *testing.T) *silentPeer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sp := &silentPeer{addr: ln.Addr().String()}
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			sp.mu.Lock()
			sp.conns = append(sp.conns, nc)
			sp.accepted.Add(1)
			sp.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		sp.mu.Lock()
		defer sp.mu.Unlock()
		for _, nc := range sp.conns {
			nc.Close()
		}
	})
	return sp
}

// settled returns how many connections were accepted once every one
// dialed so far has been: a client's dial returns once the kernel has
// the connection, before the accept loop counts it (on a loaded machine
// a fixed 20 ms sleep was not always enough). It dials a marker
// connection and waits, at most 10 s, until the accept loop reaches it:
// the kernel hands connections to Accept in the order they were
// established. The marker is not counted.
func (sp *silentPeer) settled(t *testing.T) int64 {
	t.Helper()
	marker, err := net.Dial("tcp", sp.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer marker.Close()
	me := marker.LocalAddr().String()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		sp.mu.Lock()
		for i, nc := range sp.conns {
			if nc.RemoteAddr().String() == me {
				sp.conns = append(sp.conns[:i], sp.conns[i+1:]...)
				sp.mu.Unlock()
				nc.Close()
				return sp.accepted.Add(-1)
			}
		}
		sp.mu.Unlock()
	}
	t.Fatal("the silent peer did not accept a connection within 10 s")
	return 0
}

// TestBusClientHungPeer: a call to a peer that never answers ends at its
// deadline (the sooner of the context's and the call timeout), and the
// connection it gave up on is not used again (its late answer would be
// read as the next call's): a pooled one is closed at once, the shared
// one once no call waiting on it has been answered by its deadline.
func TestBusClientHungPeer(t *testing.T) {
	sp := newSilentPeer(t)
	// The call's deadline is 100 ms; the other one 5 s: a call ending
	// within 2 s ended at the right one (-race on a 2-core machine at
	// load 18 adds tens of ms, a 600 ms bound left no room for a stall).
	const late = 2 * time.Second
	for _, tc := range []struct {
		name                    string
		sub                     string // KEYS: a pooled connection; GET: the shared one
		ctx, timeout            time.Duration
		wantAtLeast, wantAtMost time.Duration
	}{
		{"pooled, context deadline first", "KEYS", 100 * time.Millisecond, 5 * time.Second, 90 * time.Millisecond, late},
		{"pooled, call timeout first", "KEYS", 5 * time.Second, 100 * time.Millisecond, 90 * time.Millisecond, late},
		{"shared, context deadline first", "GET", 100 * time.Millisecond, 5 * time.Second, 90 * time.Millisecond, late},
		{"shared, call timeout first", "GET", 5 * time.Second, 100 * time.Millisecond, 90 * time.Millisecond, late},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newBusClient(sp.addr, tc.timeout, nil)
			defer c.close()
			before := sp.settled(t)
			for range 2 {
				ctx, cancel := context.WithTimeout(context.Background(), tc.ctx)
				begin := time.Now()
				_, err := c.do(ctx, "GEOSHARD", tc.sub, "pw", "x")
				took := time.Since(begin)
				cancel()
				var ne net.Error
				if !errors.As(err, &ne) || !ne.Timeout() {
					t.Errorf("error %v, want a timeout", err)
				}
				if took > tc.wantAtMost || took < tc.wantAtLeast {
					t.Errorf("took %v, want %v-%v", took, tc.wantAtLeast, tc.wantAtMost)
				}
				if len(c.idle) != 0 {
					t.Errorf("a timed-out connection went back to the pool")
				}
			}
			// The second call may find the shared connection before its
			// reader gave up on it: one connection or two.
			if n := sp.settled(t) - before; n != 2 && (tc.sub == "KEYS" || n != 1) {
				t.Errorf("two calls opened %d connections, want 2", n)
			}
		})
	}
}

// TestBusClientRefused: a peer that is gone (connection refused) fails
// the call at once, not at its deadline.
func TestBusClientRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	// A 10 s call timeout and a 2 s bound: failing at once, not at the
	// deadline, with room for a loaded machine's stalls.
	c := newBusClient(addr, 10*time.Second, nil)
	defer c.close()
	begin := time.Now()
	if _, err := c.do(context.Background(), "GEOSHARD", "GET", "pw", "x"); err == nil {
		t.Fatal("a call to a closed port succeeded")
	}
	if took := time.Since(begin); took > 2*time.Second {
		t.Errorf("refused connection took %v to fail", took)
	}
}

// TestBusClientPeerRestarted: pooled connections that the peer closed
// (it restarted) cost the call nothing: peer.do retries on a fresh one.
func TestBusClientPeerRestarted(t *testing.T) {
	b := echoBus(t)
	p := &peer{id: "x", addr: b.addr(), timeout: time.Second, c: newBusClient(b.addr(), time.Second, nil)}
	defer p.close()
	// Three connections in the pool.
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { p.c.do(context.Background(), "GEOSHARD", "GET", "pw", "x") })
	}
	wg.Wait()
	b.mu.Lock()
	for nc := range b.conns {
		nc.Close() // the bus side goes away; the pool does not know yet
	}
	b.mu.Unlock()
	time.Sleep(50 * time.Millisecond)
	v, err := p.do(context.Background(), "pw", 0, "GEOSHARD.GET", "again")
	if err != nil || v != "again" {
		t.Fatalf("after the peer closed its connections: %v, %v", v, err)
	}
}

// TestBusClientStale: the version error maps to router.ErrStale.
func TestBusClientStale(t *testing.T) {
	b := echoBus(t)
	p := newPeer("x", b.addr(), time.Second, nil)
	defer p.close()
	_, err := p.do(context.Background(), "pw", 2, "GEOSHARD.GET", "ERR:GSVERSION table version 3, request 2")
	if !errors.Is(err, router.ErrStale) {
		t.Errorf("version refusal: %v, want router.ErrStale", err)
	}
}

// TestBusClientIdleDropped: a connection idle for half the bus's idle
// limit is not used again (the bus may be closing it).
func TestBusClientIdleDropped(t *testing.T) {
	b := echoBus(t)
	c := newBusClient(b.addr(), time.Second, nil)
	defer c.close()
	c.do(context.Background(), "GEOSHARD", "KEYS", "pw", "x")
	first := c.idle[0]
	first.used = time.Now().Add(-busIdle / 2)
	c.do(context.Background(), "GEOSHARD", "KEYS", "pw", "x")
	if len(c.idle) != 1 || c.idle[0] == first {
		t.Errorf("an idle connection past busIdle/2 was used again")
	}
}

// TestBusClientAllocs: a call costs four allocations (the reply, boxed,
// among them); go-redis's cost seven here, and more CPU per word.
func TestBusClientAllocs(t *testing.T) {
	b := echoBus(t)
	c := newBusClient(b.addr(), time.Second, nil)
	defer c.close()
	blob := make([]byte, 10000)
	args := []any{"GEOSHARD", "DUMP", "pw", "0", "drivers", blob, "ok"}
	c.do(context.Background(), args...) // dials
	allocs := testing.AllocsPerRun(50, func() {
		if _, err := c.do(context.Background(), args...); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 5 {
		t.Errorf("a call: %.0f allocations", allocs)
	}
}

// TestBusClientPoolBound: with every connection in use, one call more
// waits no longer than the call timeout, also with a context that has no
// deadline (it used to wait until a connection came free, however long),
// and opens none beyond the bound.
func TestBusClientPoolBound(t *testing.T) {
	sp := newSilentPeer(t)
	c := newBusClient(sp.addr, 200*time.Millisecond, nil)
	defer c.close()
	for range busPoolSize {
		c.slots <- struct{}{} // as many calls under way
	}
	done := make(chan error, 1)
	begin := time.Now()
	go func() {
		_, err := c.do(context.Background(), "GEOSHARD", "KEYS", "pw", "x")
		done <- err
	}()
	select {
	case err := <-done:
		if took := time.Since(begin); !errors.Is(err, errPoolTimeout) || took < 150*time.Millisecond {
			t.Errorf("the call beyond the bound: %v after %v, want %v at the call timeout", err, took, errPoolTimeout)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the call beyond the bound still waits after 3 s")
	}
	if n := sp.settled(t); n != 0 {
		t.Errorf("%d connections opened beyond the bound", n)
	}
}
