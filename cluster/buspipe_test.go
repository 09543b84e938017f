package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestBusPipeShared: concurrent small calls share one connection and
// each gets its own answer.
func TestBusPipeShared(t *testing.T) {
	b := echoBus(t)
	c := newBusClient(b.addr(), time.Second, nil)
	defer c.close()
	var wg sync.WaitGroup
	var wrong atomic.Int64
	for g := range 16 {
		wg.Go(func() {
			for i := range 200 {
				want := itoa(int64(g*1000 + i))
				if v, err := c.do(context.Background(), "GEOSHARD", "PUT", "pw", want); err != nil || v != want {
					if wrong.Add(1) == 1 {
						t.Errorf("call %s: %v, %v", want, v, err)
					}
				}
			}
		})
	}
	wg.Wait()
	b.mu.Lock()
	n := len(b.conns)
	b.mu.Unlock()
	if wrong.Load() != 0 || n != 1 {
		t.Errorf("3,200 calls from 16 goroutines: %d wrong answers, %d connections; want 0 and 1", wrong.Load(), n)
	}
}

// TestBusPipeIdle: the shared connection outlives its calls' read
// deadline while idle (it is not redialed each time), and is replaced
// once it has been idle for busIdle/2.
func TestBusPipeIdle(t *testing.T) {
	b := echoBus(t)
	// 500 ms: a call's deadline must pass while the connection is idle,
	// but a loaded machine under -race may take tens of ms to answer one.
	c := newBusClient(b.addr(), 500*time.Millisecond, nil)
	defer c.close()
	call := func() {
		t.Helper()
		if v, err := c.do(context.Background(), "GEOSHARD", "GET", "pw", "x"); err != nil || v != "x" {
			t.Fatalf("call: %v, %v", v, err)
		}
	}
	call()
	first := c.pipe
	// The reader met the call's deadline with nothing waiting and lifted
	// it: what the old code took for a failure.
	waitFor(t, "the reader to lift the idle connection's deadline", func() bool {
		first.mu.Lock()
		defer first.mu.Unlock()
		return first.rdl.IsZero()
	})
	call()
	if c.pipe != first {
		t.Fatalf("the shared connection was replaced after an idle spell past its read deadline")
	}
	first.mu.Lock()
	first.used = time.Now().Add(-busIdle / 2)
	first.mu.Unlock()
	call()
	if c.pipe == first {
		t.Errorf("a shared connection idle for busIdle/2 was used again")
	}
}

// TestBusPipeCanceled: a call canceled before its deadline leaves without
// failing the shared connection: the calls queued with it get their
// answers, and the next call goes on the same connection.
func TestBusPipeCanceled(t *testing.T) {
	b, onWire := slowEchoBus(t, 200*time.Millisecond)
	c := newBusClient(b.addr(), 2*time.Second, nil)
	defer c.close()
	ctx, cancel := context.WithCancel(context.Background())
	slow := make(chan error, 1)
	go func() {
		_, err := c.do(ctx, "GEOSHARD", "GET", "pw", "slow")
		slow <- err
	}()
	<-onWire
	c.pmu.Lock()
	first := c.pipe
	c.pmu.Unlock()
	behind := make(chan any, 1)
	go func() {
		v, err := c.do(context.Background(), "GEOSHARD", "GET", "pw", "behind")
		if err != nil {
			v = err
		}
		behind <- v
	}()
	queued(t, first, 2)
	cancel()
	if err := <-slow; !errors.Is(err, context.Canceled) {
		t.Errorf("canceled call: %v", err)
	}
	if v := <-behind; v != "behind" {
		t.Errorf("the call behind the canceled one: %v", v)
	}
	v, err := c.do(context.Background(), "GEOSHARD", "GET", "pw", "next")
	c.pmu.Lock()
	same := c.pipe == first
	c.pmu.Unlock()
	if err != nil || v != "next" || !same {
		t.Errorf("next call: %v, %v, same connection %v", v, err, same)
	}
}

// TestBusPipeLate: a call that gives up (its caller's deadline, shorter
// than the peer's answer) leaves the shared connection to the calls
// waiting behind it with later deadlines: they get their own answers, the
// late one is dropped, and the connection serves on.
func TestBusPipeLate(t *testing.T) {
	// The call behind must join the connection before the late one's
	// deadline, which a loaded machine under -race may delay by a few
	// hundred ms (once 30 ms were given and 10 ms slept): 500 ms, an
	// answer after 1 s, and 5 s for the calls behind it.
	b, onWire := slowEchoBus(t, time.Second)
	c := newBusClient(b.addr(), 5*time.Second, nil)
	defer c.close()
	late := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		_, err := c.do(ctx, "GEOSHARD", "GET", "pw", "slow")
		late <- err
	}()
	<-onWire
	if v, err := c.do(context.Background(), "GEOSHARD", "GET", "pw", "behind"); err != nil || v != "behind" {
		t.Errorf("the call behind the late one: %v, %v", v, err)
	}
	if err := <-late; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("late call: %v, want a deadline error", err)
	}
	if v, err := c.do(context.Background(), "GEOSHARD", "GET", "pw", "next"); err != nil || v != "next" {
		t.Errorf("the next call: %v, %v", v, err)
	}
	b.mu.Lock()
	n := len(b.conns)
	b.mu.Unlock()
	if n != 1 {
		t.Errorf("%d connections, want the shared one", n)
	}
}

// slowEchoBus starts a real bus whose commands answer with their last
// word, after d when that word is "slow"; onWire receives when a slow
// one has reached the bus.
func slowEchoBus(t *testing.T, d time.Duration) (b *bus, onWire <-chan struct{}) {
	t.Helper()
	reached := make(chan struct{}, 16)
	b, err := startBus(func(args [][]byte, w Replier) {
		if string(args[len(args)-1]) == "slow" {
			select {
			case reached <- struct{}{}:
			default:
			}
			time.Sleep(d)
		}
		w.BulkString(string(args[len(args)-1]))
	}, "127.0.0.1:0", nil, "pw", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.close)
	return b, reached
}

// queued waits until n calls wait on the shared connection p (waitFor:
// a state, not a sleep that a loaded machine may outlast).
func queued(t *testing.T, p *pipe, n int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d calls on the shared connection", n), func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.queue) == n
	})
}
