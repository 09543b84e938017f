package shard

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"geoshard/geo"
)

// A bulk load leaves a set equal to the same copies put one by one: into
// an empty set, into one with members (some of them replaced), and into
// one emptied by deletes.
func TestLoadAgainstPut(t *testing.T) {
	tests := []struct {
		name          string
		before, added int // members put first, then loaded
		deleteBefore  bool
	}{
		{"empty", 0, 5000, false},
		{"one", 0, 1, false},
		{"onto members", 3000, 3000, false},
		{"after deletes", 2000, 2000, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, uint64(tc.added)))
			entry := func(i int) Entry {
				// Whole-degree cells make many equal scores, so ties
				// between names get exercised too.
				score := geo.Encode(4+float64(rng.IntN(3)), 52+rng.Float64()*float64(rng.IntN(2)))
				return Entry{Member: fmt.Sprintf("m%d", i), Score: score, Stamp: int64(i)}
			}
			loaded, put := New(), New()
			for i := range tc.before {
				e := entry(i)
				loaded.Put(drivers, e)
				put.Put(drivers, e)
				if tc.deleteBefore {
					loaded.Delete(drivers, e.Member, e.Stamp)
					put.Delete(drivers, e.Member, e.Stamp)
				}
			}
			var es []Entry
			for i := range tc.added {
				e := entry(tc.before/2 + i) // half of them already there
				es = append(es, e)
				put.Put(drivers, e)
			}
			loaded.Load(drivers, es)
			sameShards(t, loaded, put)
		})
	}
}

var drivers = Key{Name: "drivers"}

// sameShards compares two shards' copies of drivers in every order the
// shard serves them in.
func sameShards(t *testing.T, got, want *Shard) {
	t.Helper()
	if got.Len(drivers) != want.Len(drivers) {
		t.Fatalf("len %d, want %d", got.Len(drivers), want.Len(drivers))
	}
	all := func(s *Shard) (out []Entry) {
		s.Ascend(drivers, -1, 0, func(e Entry) bool { out = append(out, e); return true })
		return out
	}
	g, w := all(got), all(want)
	if !slices.Equal(g, w) {
		t.Fatal("score order differs")
	}
	for _, e := range w {
		if c, ok := got.Get(drivers, e.Member); !ok || c != e {
			t.Fatalf("get %s = %v, %v; want %v", e.Member, c, ok, e)
		}
	}
	gs, ws := got.sets[drivers], want.sets[drivers]
	if gs == nil || ws == nil {
		if gs != ws {
			t.Fatal("one shard has no set")
		}
		return
	}
	var gn, wn []string
	gs.nearby(4.5, 52.5, func(it *item, _ float64) bool { gn = append(gn, gs.member(it)); return true })
	ws.nearby(4.5, 52.5, func(it *item, _ float64) bool { wn = append(wn, ws.member(it)); return true })
	slices.Sort(gn)
	slices.Sort(wn)
	if !slices.Equal(gn, wn) {
		t.Fatalf("nearby visits %d members, want %d", len(gn), len(wn))
	}
}

// PutSlot with any slot, right, stale or out of range, leaves the shard as
// Put would.
func TestPutSlotAnySlot(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	hinted, plain := New(), New()
	hints := map[string]uint32{}
	names := []string{"", "a", "b", "c", "d", "e"}
	for i := range 20000 {
		name := names[rng.IntN(len(names))]
		if rng.IntN(4) == 0 {
			hinted.Delete(drivers, name, math.MaxInt64)
			plain.Delete(drivers, name, math.MaxInt64)
			continue // the slot stays, stale: PutSlot must notice
		}
		e := Entry{Member: name, Score: geo.Encode(4+rng.Float64(), 52+rng.Float64()), Stamp: int64(i)}
		hint := hints[name]
		switch rng.IntN(3) {
		case 0:
			hint = uint32(rng.IntN(8)) // another member's slot, a free one or past the slab
		case 1:
			hint = math.MaxUint32
		}
		_, wantExisted := plain.Put(drivers, e)
		_, existed, next := hinted.PutSlot(drivers, e, hint, Hash(name))
		if existed != wantExisted {
			t.Fatalf("step %d: PutSlot(%q, slot %d) existed=%v, Put says %v", i, name, hint, existed, wantExisted)
		}
		hints[name] = next
	}
	sameShards(t, hinted, plain)
}
