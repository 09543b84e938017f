package router

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"geoshard/shard"
)

// The owner table under random sets, deletes and walks that delete agrees
// with a Go map, through growth, record reuse and name compaction: a wide
// table, a narrow one reading scores and stamps from shards the test
// writes as the router would, and one narrow until halfway, then widened.
func TestOwnersAgainstMap(t *testing.T) {
	for _, c := range []struct {
		name        string
		narrow      bool
		widenAtStep int
	}{
		{"wide", false, -1},
		{"narrow", true, -1},
		{"widened", true, 100000},
	} {
		t.Run(c.name, func(t *testing.T) { testOwnersAgainstMap(t, c.narrow, c.widenAtStep) })
	}
}

func testOwnersAgainstMap(t *testing.T, narrow bool, widenAtStep int) {
	rng := rand.New(rand.NewPCG(8, 9))
	var o owners
	model := map[string]slot{}
	key := shard.Key{Name: "drivers"}
	shards := []*shard.Shard{shard.New(), shard.New(), shard.New(), shard.New()}
	if narrow {
		var src source
		src.v.Store(&sourceView{key: key, shards: shards})
		o.src = &src
	}
	// write puts the member's copy where a router would: in its slot's
	// shard only (a narrow table reads it there; a wide one ignores it),
	// and stores the record as Add does: found before the copies change
	// (a narrow record's name is its copy's), re-pointed after.
	write := func(m string, s slot) slot {
		h := shard.Hash(m)
		at, found := o.find(m, h)
		for id, sh := range shards {
			if shard.ID(id) == s.shard {
				_, _, s.at = sh.PutHashSlot(key, shard.NewEntry(m, s.score, s.stamp), h)
			} else {
				sh.Delete(key, m, math.MaxInt64)
			}
		}
		if o.src == nil {
			s.at = 0 // a wide table does not keep it
		}
		switch {
		case found:
			o.setAt(at, s)
		case o.src != nil || rng.IntN(2) == 0:
			o.set(m, s)
		default:
			at, existed := o.upsert(m)
			if existed {
				t.Fatalf("upsert %.20q: existed", m)
			}
			o.setAt(at, s)
		}
		return s
	}
	// del removes the record first, as Remove does: its name is read
	// through its copy.
	del := func(m string) bool {
		ok := o.del(m)
		for _, sh := range shards {
			sh.Delete(key, m, math.MaxInt64)
		}
		return ok
	}
	name := func() string {
		switch rng.IntN(50) {
		case 0:
			return ""
		case 1:
			return strings.Repeat("long", 2000) + fmt.Sprint(rng.IntN(3))
		}
		return fmt.Sprintf("driver:%d", rng.IntN(20000))
	}
	check := func(step int) {
		t.Helper()
		if o.len() != len(model) {
			t.Fatalf("step %d: len %d, want %d", step, o.len(), len(model))
		}
		got := map[string]slot{}
		for m, s := range o.all() {
			if _, dup := got[m]; dup {
				t.Fatalf("step %d: all yields %.20q twice", step, m)
			}
			got[m] = s
		}
		if !maps.Equal(got, model) {
			t.Fatalf("step %d: all yields %d members, want %d, or other slots", step, len(got), len(model))
		}
	}
	for i := range 200000 {
		if i == widenAtStep {
			o.widen()
			for m, s := range model {
				s.at = 0 // a wide table does not keep it
				model[m] = s
			}
			if o.src != nil || len(o.vals) != len(o.chunks) {
				t.Fatalf("widened: src %v, %d value chunks for %d chunks", o.src, len(o.vals), len(o.chunks))
			}
			check(i)
		}
		m := name()
		switch op := rng.IntN(10); {
		case op < 6:
			model[m] = write(m, slot{shard: shard.ID(rng.IntN(4)), score: rng.Float64(), stamp: int64(i)})
		case op < 9:
			_, in := model[m]
			if del(m) != in {
				t.Fatalf("step %d: del %.20q = %v", i, m, !in)
			}
			delete(model, m)
		case i%1000 == 0:
			// A walk that deletes about half of what it sees.
			for m := range o.all() {
				if rng.IntN(2) == 0 {
					del(m)
					delete(model, m)
				}
			}
			check(i)
		}
		if s, ok := o.get(m); ok != hasKey(model, m) || s != model[m] {
			t.Fatalf("step %d: get %.20q = %v %v, want %v", i, m, s, ok, model[m])
		}
	}
	check(-1)
	for m := range maps.Keys(model) {
		del(m)
	}
	if o.len() != 0 || o.table.Size() != 0 || o.chunks != nil {
		t.Fatalf("an emptied table keeps %d members, %d positions, %d chunks", o.len(), o.table.Size(), len(o.chunks))
	}
}

func hasKey(m map[string]slot, k string) bool { _, ok := m[k]; return ok }

// A stripe whose members come and go gives back their names' bytes.
func TestOwnersChurnCompacts(t *testing.T) {
	var o owners
	for i := range 50000 {
		o.set(fmt.Sprintf("a-rather-long-driver-name-%08d", i), slot{stamp: int64(i)})
		if i >= 100 {
			o.del(fmt.Sprintf("a-rather-long-driver-name-%08d", i-100))
		}
	}
	if b := o.names.Bytes(); b > 512<<10 {
		t.Fatalf("names hold %d bytes for %d members", b, o.len())
	}
	for i := 50000 - 100; i < 50000; i++ {
		if s, ok := o.get(fmt.Sprintf("a-rather-long-driver-name-%08d", i)); !ok || s.stamp != int64(i) {
			t.Fatalf("member %d: %v %v", i, s, ok)
		}
	}
}
