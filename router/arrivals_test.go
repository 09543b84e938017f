package router

import (
	"fmt"
	"testing"

	"geoshard/shard"
)

// TestArrivalMarks: a mark older than the cut is not kept, a live one is
// kept once per member and shard at its newest stamp, and a key whose
// marks overflowed cannot vouch for counts until the cut passes the
// newest mark it dropped.
func TestArrivalMarks(t *testing.T) {
	k := shard.Key{Name: "k"}
	var a arrivals
	a.note(k, Arrival{Member: "old", Stamp: 10}, 10)
	a.note(k, Arrival{Member: "m", From: 1, Stamp: 20}, 10)
	a.note(k, Arrival{Member: "m", From: 1, Stamp: 30}, 10)
	a.note(k, Arrival{Member: "m", From: 1, Stamp: 25}, 10)
	if ms, whole := a.live(k, 10); len(ms) != 1 || ms[0] != (Arrival{Member: "m", From: 1, Stamp: 30}) || !whole {
		t.Fatalf("marks %v (whole %v), want m from 1 at 30", ms, whole)
	}
	if ms, _ := a.live(k, 30); len(ms) != 0 {
		t.Errorf("marks %v after the cut passed them", ms)
	}
	for i := range maxArrivals + 1 {
		a.note(k, Arrival{Member: fmt.Sprint(i), Stamp: 100 + int64(i)}, 50)
	}
	for _, c := range []struct {
		cut   int64
		whole bool
	}{{50, false}, {100 + maxArrivals - 1, false}, {100 + maxArrivals, true}} {
		if _, whole := a.live(k, c.cut); whole != c.whole {
			t.Errorf("cut %d: whole %v, want %v", c.cut, whole, c.whole)
		}
	}
}

// TestMovingFlagsBounded: flags of writes done go without a count to
// sweep them, and a count names only flagged writes still out.
func TestMovingFlagsBounded(t *testing.T) {
	r := New(Config{})
	k := shard.Key{Name: "k"}
	for i := range 10000 {
		m := fmt.Sprint(i)
		release := r.hold(k, m)
		r.mayMove(k, i%2 == 0, m)
		release()
	}
	a := &r.remote.arrivals
	a.mu.Lock()
	n := len(a.moving)
	a.mu.Unlock()
	if n > 2048 {
		t.Errorf("%d flags kept of writes all done", n)
	}
	out := r.hold(k, "out")
	defer out()
	r.mayMove(k, true, "out")
	stays := r.hold(k, "stays")
	defer stays()
	r.mayMove(k, false, "stays")
	if names, whole := r.CountNamesLocal(nil, k, 0, 0); len(names) != 1 || names[0] != "out" || !whole {
		t.Errorf("names %v (whole %v), want [out]", names, whole)
	}
}
