package router

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// slotModel is what the router should hold of one member: its score and
// whether its stamp is past the position TTL (written by Restore with an
// old stamp).
type slotModel struct {
	score   float64
	expired bool
}

// Narrow records name their copies' slab slots: under moves across
// shards, deletes, position-TTL reclaims between them (which free slots
// other members then take), renames and restores, every reply agrees
// with a map, and every record reads back its own member through its
// slot (checkSlots).
func TestNarrowSlotsAgainstModel(t *testing.T) {
	for _, c := range []struct {
		name     string
		members  int
		narrowAt int
	}{
		{"few", 12, 1},
		{"many", 4000, 1},
		{"turning", 4000, 40}, // stripes turn narrow partway through
		{"wide", 4000, 1 << 20},
	} {
		t.Run(c.name, func(t *testing.T) { testNarrowSlots(t, c.members, c.narrowAt) })
	}
}

func testNarrowSlots(t *testing.T, members, narrowAt int) {
	m := shard.GridMap(4.5, 52.0, 5.5, 52.5, 4, 2, 200)
	r := New(Config{Regions: m, PositionTTL: time.Hour})
	r.hooks.narrowAt = narrowAt
	rng := rand.New(rand.NewPCG(5, uint64(members)))
	model := map[string]slotModel{}
	old := now() - 2*int64(time.Hour)
	key, other := drivers, shard.Key{Name: "elsewhere"}
	for i := range 40000 {
		name := fmt.Sprintf("d%d", rng.IntN(members))
		cur, in := model[name]
		live := in && !cur.expired
		score := geo.Encode(4.5+rng.Float64(), 52.0+rng.Float64()/2)
		switch op := rng.IntN(100); {
		case op < 55:
			added, _ := r.Add(key, name, score, AddFlags{})
			if added != !live {
				t.Fatalf("step %d: Add(%s) added %v, want %v", i, name, added, !live)
			}
			model[name] = slotModel{score: score}
		case op < 70:
			r.Restore(key, name, score, old) // written long ago: expired
			model[name] = slotModel{score: score, expired: true}
		case op < 85:
			if got := r.Remove(key, name); got != live {
				t.Fatalf("step %d: Remove(%s) = %v, want %v", i, name, got, live)
			}
			delete(model, name)
		case op < 88:
			r.Reclaim()
			for mm, s := range model {
				if s.expired {
					delete(model, mm)
				}
			}
		case op < 89:
			r.Rename(key, other)
			key, other = other, key
		default:
			got, ok := r.Score(key, name)
			if ok != live || (live && got != cur.score) {
				t.Fatalf("step %d: Score(%s) = %v %v, want %v %v", i, name, got, ok, cur.score, live)
			}
		}
		if i%2000 == 0 {
			checkSlots(t, r, key, model)
		}
	}
	checkSlots(t, r, key, model)
}

// checkSlots checks the router against the model: each member's score,
// the key's size, one copy per member in the shards, and, in every stripe,
// each record's member read through its slot and found again by name at
// that record.
func checkSlots(t *testing.T, r *Router, k shard.Key, model map[string]slotModel) {
	t.Helper()
	live, copies := 0, 0
	for m, s := range model {
		got, ok := r.Score(k, m)
		if ok != !s.expired || (ok && got != s.score) {
			t.Fatalf("Score(%s) = %v %v, want %v %v", m, got, ok, s.score, !s.expired)
		}
		if !s.expired {
			live++
		}
	}
	if n := r.Card(k); n != live {
		t.Fatalf("Card = %d, want %d", n, live)
	}
	for _, s := range r.shards {
		copies += s.Len(k)
	}
	if copies != len(model) {
		t.Fatalf("the shards hold %d copies of %d members", copies, len(model))
	}
	g := r.key(k, false)
	if g == nil {
		if len(model) != 0 {
			t.Fatalf("key gone with %d members", len(model))
		}
		return
	}
	records := 0
	for i := range g.stripes {
		st := &g.stripes[i]
		st.mu.Lock()
		for j := 0; j < st.owner.limit(); j++ {
			if st.owner.rec(uint32(j)).name().None() {
				continue
			}
			records++
			m := st.owner.nameOf(uint32(j))
			if _, ok := model[m]; !ok {
				st.mu.Unlock()
				t.Fatalf("stripe %d record %d reads %q, not a member", i, j, m)
			}
			if at, ok := st.owner.find(m, shard.Hash(m)); !ok || at != uint32(j) {
				st.mu.Unlock()
				t.Fatalf("stripe %d record %d (%q) found at %d %v", i, j, m, at, ok)
			}
		}
		st.mu.Unlock()
	}
	if records != len(model) {
		t.Fatalf("%d records for %d members", records, len(model))
	}
}

// Writers of disjoint members, each with its own model, run while others
// reclaim and read: a slot freed by a reclaim is taken by another
// stripe's member at once, and nothing deadlocks (stripe, then shard) or
// races. Each writer's members are checked at the end.
func TestNarrowSlotsConcurrent(t *testing.T) {
	m := shard.GridMap(4.5, 52.0, 5.5, 52.5, 2, 2, 200)
	r := New(Config{Regions: m, PositionTTL: time.Hour})
	r.hooks.narrowAt = 1
	old := now() - 2*int64(time.Hour)
	const writers, steps = 4, 6000
	models := make([]map[string]slotModel, writers)
	var wg sync.WaitGroup
	for w := range writers {
		models[w] = map[string]slotModel{}
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 11))
			model := models[w]
			for range steps {
				name := fmt.Sprintf("w%d:%d", w, rng.IntN(300))
				score := geo.Encode(4.5+rng.Float64(), 52.0+rng.Float64()/2)
				switch op := rng.IntN(10); {
				case op < 5:
					r.Add(drivers, name, score, AddFlags{})
					model[name] = slotModel{score: score}
				case op < 7:
					r.Restore(drivers, name, score, old)
					model[name] = slotModel{score: score, expired: true}
				default:
					r.Remove(drivers, name)
					delete(model, name)
				}
			}
		})
	}
	stop := make(chan struct{})
	var bg sync.WaitGroup
	bg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			r.Reclaim()
			r.Score(drivers, fmt.Sprintf("w%d:%d", i%writers, i%300))
		}
	})
	wg.Wait()
	close(stop)
	bg.Wait()
	r.Reclaim()
	all := map[string]slotModel{}
	for _, model := range models {
		for name, s := range model {
			if !s.expired {
				all[name] = s
			}
		}
	}
	checkSlots(t, r, drivers, all)
}

// A bulk restore names each record's copy by the slot the shard's load
// gave it (narrowRestored), members saved twice included: every record
// reads back its member, and moves, deletes and reclaims go on from there.
func TestNarrowSlotsRestoreKey(t *testing.T) {
	for _, narrowAt := range []int{1, 40, 1 << 20} {
		t.Run(fmt.Sprint(narrowAt), func(t *testing.T) {
			m := shard.GridMap(4.5, 52.0, 5.5, 52.5, 4, 2, 200)
			r := New(Config{Regions: m, PositionTTL: time.Hour})
			r.hooks.narrowAt = narrowAt
			rng := rand.New(rand.NewPCG(9, uint64(narrowAt)))
			old := now() - 2*int64(time.Hour)
			model := map[string]slotModel{}
			var saved []Saved
			for range 6000 {
				name := fmt.Sprintf("d%d", rng.IntN(4000)) // about 1 in 3 saved twice
				score := geo.Encode(4.5+rng.Float64(), 52.0+rng.Float64()/2)
				s := Saved{Member: name, Score: score, Stamp: now()}
				if rng.IntN(4) == 0 {
					s.Stamp = old
				}
				saved = append(saved, s)
				model[name] = slotModel{score: score, expired: s.Stamp == old}
			}
			r.RestoreKey(drivers, saved)
			checkSlots(t, r, drivers, model)
			for i := range 6000 {
				name := fmt.Sprintf("d%d", rng.IntN(4000))
				switch rng.IntN(3) {
				case 0:
					score := geo.Encode(4.5+rng.Float64(), 52.0+rng.Float64()/2)
					r.Add(drivers, name, score, AddFlags{})
					model[name] = slotModel{score: score}
				case 1:
					r.Remove(drivers, name)
					delete(model, name)
				default:
					if i%100 == 0 {
						r.Reclaim()
						for mm, s := range model {
							if s.expired {
								delete(model, mm)
							}
						}
					}
				}
			}
			checkSlots(t, r, drivers, model)
		})
	}
}
