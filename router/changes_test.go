package router

import (
	"fmt"
	"slices"
	"testing"

	"geoshard/shard"
)

// TestCountNamesChanges: a count names the members that gained or lost
// their copy in the shards it counted on this node since it began, and
// not a copy updated where it is, a change in a shard it did not count,
// a change before it began, or another key's.
func TestCountNamesChanges(t *testing.T) {
	k, other := shard.Key{Name: "k"}, shard.Key{Name: "other"}
	cases := []struct {
		name   string
		before func(r *Router) // done before the count begins
		during func(r *Router) // done after it began
		ids    []shard.ID      // the shards counted here
		want   []string
	}{
		{"new member", nil, func(r *Router) { r.shards[1].PutNewer(k, shard.NewEntry("m", 1, 10)) },
			[]shard.ID{0, 1}, []string{"m"}},
		{"handoff in", func(r *Router) { r.shards[2].PutNewer(k, shard.NewEntry("m", 1, 10)) },
			func(r *Router) { r.shards[1].PutNewer(k, shard.NewEntry("m", 1, 20)) }, []shard.ID{1}, []string{"m"}},
		{"handoff's delete", func(r *Router) { r.shards[1].PutNewer(k, shard.NewEntry("m", 1, 10)) },
			func(r *Router) { r.shards[1].Delete(k, "m", 10) }, []shard.ID{1}, []string{"m"}},
		{"in place", func(r *Router) { r.shards[1].PutNewer(k, shard.NewEntry("m", 1, 10)) },
			func(r *Router) { r.shards[1].PutNewer(k, shard.NewEntry("m", 2, 20)) }, []shard.ID{1}, nil},
		{"shard not counted here", nil, func(r *Router) { r.shards[2].PutNewer(k, shard.NewEntry("m", 1, 10)) },
			[]shard.ID{0, 1}, nil},
		{"before the count", func(r *Router) { r.shards[1].PutNewer(k, shard.NewEntry("m", 1, 10)) }, nil,
			[]shard.ID{1}, nil},
		{"other key", nil, func(r *Router) { r.shards[1].PutNewer(other, shard.NewEntry("m", 1, 10)) },
			[]shard.ID{1}, nil},
		{"not clustered", nil, func(r *Router) { r.shards[1].PutNewer(k, shard.NewEntry("m", 1, 10)) },
			nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := New(Config{})
			if c.ids != nil {
				r.watchChanges() // as SetRemote does
			}
			if c.before != nil {
				c.before(r)
			}
			since := now()
			if c.during != nil {
				c.during(r)
			}
			names, whole := r.CountNamesLocal(c.ids, k, 0, since)
			if !slices.Equal(names, c.want) || !whole {
				t.Fatalf("names %v (whole %v), want %v", names, whole, c.want)
			}
		})
	}
}

// TestChangesBounded: past maxChanges the oldest changes go, and a count
// since one of them cannot name them all; one that began after the last
// dropped can.
func TestChangesBounded(t *testing.T) {
	k := shard.Key{Name: "k"}
	var c changeLog
	for i := range maxChanges + 10 {
		c.add(1, k, fmt.Sprint(i), int64(1000+i))
	}
	if c.n != maxChanges || len(c.buf) != maxChanges {
		t.Fatalf("%d changes kept in %d, want %d", c.n, len(c.buf), maxChanges)
	}
	for _, tc := range []struct {
		since int64
		names int
		whole bool
	}{
		{1000, maxChanges, false},
		{1009, maxChanges, false},
		{1010, maxChanges, true},
		{1000 + maxChanges + 5, 5, true},
	} {
		names, whole := c.since(nil, []shard.ID{1}, k, tc.since)
		if len(names) != tc.names || whole != tc.whole {
			t.Errorf("since %d: %d names (whole %v), want %d (%v)", tc.since, len(names), whole, tc.names, tc.whole)
		}
	}
	// Changes older than keepRecent go when a new one comes.
	c.add(1, k, "late", 1000+maxChanges+10+keepRecent)
	if c.n != 1 {
		t.Errorf("%d changes kept after keepRecent, want 1", c.n)
	}
}

// TestSettle: after a gather, a member named counts by its newest copy in
// a later round when found there, is gone when found nowhere and not
// named again, and stays open when found nowhere but named again (its
// handoff may have fallen between two nodes' reads).
func TestSettle(t *testing.T) {
	cases := []struct {
		name  string
		got   Newest
		named bool
		n     int
		open  bool
	}{
		{"found in range", Newest{Found: true, In: true, Stamp: 5}, false, 11, false},
		{"found in range, named again", Newest{Found: true, In: true, Stamp: 5}, true, 11, false},
		{"found out of range", Newest{Found: true, Stamp: 5}, false, 10, false},
		{"found nowhere", Newest{}, false, 10, false},
		{"found nowhere, named again", Newest{}, true, 10, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reply := CountReply{Asked: []Newest{{Found: true, In: true}, c.got}, Whole: true}
			if c.named {
				reply.Names = []string{"m"}
			}
			n, open := settle(9, []string{"settled", "m"}, reply)
			if n != c.n || (len(open) == 1) != c.open || len(open) > 1 || c.open && open[0] != "m" {
				t.Fatalf("n %d, open %v; want %d, open %v", n, open, c.n, c.open)
			}
		})
	}
}
