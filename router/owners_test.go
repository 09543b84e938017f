package router

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"

	"geoshard/shard"
)

// The owner table under random sets, deletes and walks that delete agrees
// with a Go map, through growth, record reuse and name compaction.
func TestOwnersAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	var o owners
	model := map[string]slot{}
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
		m := name()
		switch op := rng.IntN(10); {
		case op < 6:
			s := slot{shard: shard.ID(rng.IntN(4)), score: rng.Float64(), stamp: int64(i)}
			if rng.IntN(2) == 0 {
				o.set(m, s)
			} else if p, existed := o.upsert(m); existed != hasKey(model, m) {
				t.Fatalf("step %d: upsert %.20q existed=%v", i, m, existed)
			} else {
				p.set(s)
			}
			model[m] = s
		case op < 9:
			_, in := model[m]
			if o.del(m) != in {
				t.Fatalf("step %d: del %.20q = %v", i, m, !in)
			}
			delete(model, m)
		case i%1000 == 0:
			// A walk that deletes about half of what it sees.
			for m := range o.all() {
				if rng.IntN(2) == 0 {
					o.del(m)
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
		o.del(m)
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
