package router

import (
	"fmt"
	"testing"
	"time"

	"geoshard/shard"
)

// held reports which of members have a write out, and whether they all
// share one mark.
func held(r *Router, k shard.Key, members ...string) (in []string, shared bool) {
	r.remote.inflightMu.Lock()
	defer r.remote.inflightMu.Unlock()
	var first chan struct{}
	shared = true
	for _, m := range members {
		if c, ok := r.remote.inflight[memberRef{k, m}]; ok {
			in = append(in, m)
			if first == nil {
				first = c
			}
			shared = shared && c == first
		}
	}
	return in, shared
}

// TestHoldAllWaits: a batch takes its members in name order, waits for one
// another write holds (keeping those before it, taking none after), and
// goes on once that write is done; its release frees them all.
func TestHoldAllWaits(t *testing.T) {
	r := New(Config{})
	k := shard.Key{Name: "drivers"}
	releaseM2 := r.hold(k, "m2")
	done := make(chan func())
	go func() { done <- r.holdAll(k, []string{"m3", "m1", "m2"}) }()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		if in, _ := held(r, k, "m1"); len(in) == 1 {
			break
		} else if time.Now().After(deadline) {
			t.Fatal("the batch never took m1")
		}
	}
	select {
	case <-done:
		t.Fatal("the batch went on while another write held m2")
	default:
	}
	if in, _ := held(r, k, "m3"); len(in) != 0 {
		t.Fatalf("the batch took m3 while waiting for m2 (out of name order)")
	}
	releaseM2()
	var release func()
	select {
	case release = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the batch still waits after m2 was released")
	}
	if in, shared := held(r, k, "m1", "m2", "m3"); len(in) != 3 || !shared {
		t.Fatalf("held %v (one mark: %v), want m1, m2 and m3 under one mark", in, shared)
	}
	release()
	if in, _ := held(r, k, "m1", "m2", "m3"); len(in) != 0 {
		t.Fatalf("after the release %v are still held", in)
	}
	// A name twice does not wait for itself.
	go func() { done <- r.holdAll(k, []string{"m1", "m1"}) }()
	select {
	case release = <-done:
		release()
	case <-time.After(30 * time.Second):
		t.Fatal("a batch naming a member twice waits for itself")
	}
}

// TestHoldAllAllocations: holding a batch of 500 costs a few allocations,
// not a channel per member (a cold load of 50,000 made 50,000).
func TestHoldAllAllocations(t *testing.T) {
	r := New(Config{})
	k := shard.Key{Name: "drivers"}
	members := make([]string, 500)
	for i := range members {
		members[i] = fmt.Sprintf("driver:%d", i)
	}
	r.holdAll(k, members)() // the mark map grows once
	if n := testing.AllocsPerRun(20, func() { r.holdAll(k, members)() }); n > 8 {
		t.Errorf("holding 500 members: %.0f allocations, want at most 8", n)
	}
}
