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

// Reclaiming expired copies forgets their members: a narrow owner table
// reads a reclaimed copy's stamp as gone, and the key must still empty.
func TestReclaimForgetsNarrowMembers(t *testing.T) {
	m := shard.GridMap(4.5, 52.0, 5.5, 52.5, 2, 1, 200)
	r := New(Config{Regions: m, PositionTTL: 50 * time.Millisecond})
	r.hooks.narrowAt = 1
	for i := range 300 {
		r.Add(drivers, fmt.Sprintf("d%d", i), geo.Encode(4.6+float64(i%9)*0.1, 52.1), AddFlags{})
	}
	time.Sleep(80 * time.Millisecond)
	r.Reclaim()
	if g := r.key(drivers, false); g != nil {
		t.Fatalf("key kept after every copy expired: %d entries", g.entries.Load())
	}
}

// Add's replies and conditions, Remove and Score, with members crossing
// between shards, agree with a map of scores: a narrow owner table takes
// them from the shards' copies rather than from its records.
func TestNarrowAgainstModel(t *testing.T) {
	cases := []struct {
		name     string
		members  int
		steps    int
		narrowAt int // stripe size at which owner tables turn narrow
	}{
		{"few", 8, 4000, 1},
		{"many", 3000, 60000, 1},
		{"turning", 3000, 60000, 30}, // stripes turn narrow partway through
		{"wide", 3000, 60000, 1 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := shard.GridMap(4.5, 52.0, 5.5, 52.5, 4, 2, 200)
			r := New(Config{Regions: m})
			r.hooks.narrowAt = c.narrowAt
			rng := rand.New(rand.NewPCG(3, uint64(c.members)))
			model := map[string]float64{}
			for i := range c.steps {
				name := fmt.Sprintf("d%d", rng.IntN(c.members))
				old, in := model[name]
				if rng.IntN(8) == 0 {
					if got := r.Remove(drivers, name); got != in {
						t.Fatalf("step %d: Remove(%s) = %v, want %v", i, name, got, in)
					}
					delete(model, name)
					continue
				}
				score := geo.Encode(4.5+rng.Float64(), 52.0+rng.Float64()/2)
				var f AddFlags
				switch rng.IntN(6) {
				case 0:
					f.NX = true
				case 1:
					f.XX = true
				case 2:
					f.GT = true
				case 3:
					f.LT = true
				}
				write := !(f.NX && in) && !(f.XX && !in) && !(in && f.GT && !(score > old)) && !(in && f.LT && !(score < old))
				added, changed := r.Add(drivers, name, score, f)
				wantAdded, wantChanged := write && !in, write && in && old != score
				if added != wantAdded || changed != wantChanged {
					t.Fatalf("step %d: Add(%s, %+v) = %v %v, want %v %v", i, name, f, added, changed, wantAdded, wantChanged)
				}
				if write {
					model[name] = score
				}
				if got, ok := r.Score(drivers, name); ok != hasScore(model, name) || got != model[name] {
					t.Fatalf("step %d: Score(%s) = %v %v, want %v", i, name, got, ok, model[name])
				}
			}
			if n := r.Card(drivers); n != len(model) {
				t.Fatalf("card %d, want %d", n, len(model))
			}
			seen := 0
			r.Each(drivers, func(member string, score float64, _ int64) bool {
				if want, ok := model[member]; !ok || want != score {
					t.Fatalf("Each: %s %v, want %v %v", member, score, want, ok)
				}
				seen++
				return true
			})
			if seen != len(model) {
				t.Fatalf("Each saw %d members, want %d", seen, len(model))
			}
		})
	}
}

func hasScore(m map[string]float64, k string) bool { _, ok := m[k]; return ok }

// With a position TTL, Card and Each read the key's copies from the
// shards' slabs (eachCopy) and see each member once, also while members
// hand over between shards; after a dropped delete they go back to the
// owner table and still see each member once.
func TestEachCopyOncePerMember(t *testing.T) {
	m := shard.GridMap(4.5, 52.0, 5.5, 52.5, 4, 2, 200)
	for _, drop := range []bool{false, true} {
		r := New(Config{Regions: m, PositionTTL: time.Hour})
		r.hooks.narrowAt = 1
		rng := rand.New(rand.NewPCG(5, 6))
		want := map[string]float64{}
		for i := range 5000 {
			name := fmt.Sprintf("d%d", rng.IntN(700))
			if i == 2500 {
				r.DropDeletes(drop)
			}
			score := geo.Encode(4.5+rng.Float64(), 52.0+rng.Float64()/2)
			r.Add(drivers, name, score, AddFlags{})
			want[name] = score
		}
		if n := r.Card(drivers); n != len(want) {
			t.Fatalf("drop %v: card %d, want %d", drop, n, len(want))
		}
		got := map[string]float64{}
		r.Each(drivers, func(member string, score float64, _ int64) bool {
			if _, dup := got[member]; dup {
				t.Fatalf("drop %v: Each yields %s twice", drop, member)
			}
			got[member] = score
			return true
		})
		if len(got) != len(want) {
			t.Fatalf("drop %v: Each yields %d members, want %d", drop, len(got), len(want))
		}
		for m, s := range want {
			if got[m] != s {
				t.Fatalf("drop %v: Each yields %s at %v, want %v", drop, m, got[m], s)
			}
		}
	}
}

// A key restored whole into narrow owner tables answers every member's
// score from the shards, and a member saved twice keeps its last copy.
func TestRestoreKeyNarrow(t *testing.T) {
	r := New(Config{Regions: shard.GridMap(4.5, 52.0, 5.5, 52.5, 4, 2, 200)})
	r.hooks.narrowAt = 1
	rng := rand.New(rand.NewPCG(9, 9))
	var ms []Saved
	want := map[string]float64{}
	for i := range 5000 {
		name := fmt.Sprintf("d%d", rng.IntN(4000))
		score := geo.Encode(4.5+rng.Float64(), 52.0+rng.Float64()/2)
		ms = append(ms, Saved{Member: name, Score: score, Stamp: int64(i + 1)})
		want[name] = score
	}
	r.RestoreKey(drivers, ms)
	if n := r.Card(drivers); n != len(want) {
		t.Fatalf("card %d, want %d", n, len(want))
	}
	if g := r.key(drivers, false); g == nil || !g.narrowed.Load() {
		t.Fatalf("restored key not narrow")
	}
	for m, s := range want {
		if got, ok := r.Score(drivers, m); !ok || got != s {
			t.Fatalf("Score(%s) = %v %v, want %v", m, got, ok, s)
		}
	}
}

// Widening (a router joining a cluster after a snapshot loaded) copies
// every member's score and stamp into its record, reclaimed copies read
// as gone, and leaves no stripe narrow.
func TestWidenKeys(t *testing.T) {
	r := New(Config{Regions: shard.GridMap(4.5, 52.0, 5.5, 52.5, 4, 2, 200)})
	r.hooks.narrowAt = 1
	want := map[string]float64{}
	for i := range 2000 {
		name := fmt.Sprintf("d%d", i)
		score := geo.Encode(4.5+float64(i%97)/97, 52.0+float64(i%89)/180)
		r.Add(drivers, name, score, AddFlags{})
		want[name] = score
	}
	r.widenKeys()
	g := r.key(drivers, false)
	if g.narrowed.Load() || g.src.v.Load() != nil {
		t.Fatalf("key still narrow after widening")
	}
	for m, s := range want {
		st := r.stripe(g, m)
		if st.owner.src != nil {
			t.Fatalf("stripe of %s still narrow", m)
		}
		cur, ok := st.owner.get(m)
		e, inShard := r.shards[cur.shard].Get(drivers, m)
		if !ok || !inShard || cur.score != s || cur.stamp != e.Stamp {
			t.Fatalf("%s: record %+v %v, shard copy %+v, want score %v", m, cur, ok, e, s)
		}
	}
}

// Card and Each of a narrow key under a position TTL lock every stripe of
// the key and then shards, while writers lock a stripe and then a shard:
// run side by side (with -race) they neither deadlock nor yield a member
// twice.
func TestEachCopyDuringWrites(t *testing.T) {
	m := shard.GridMap(4.5, 52.0, 5.5, 52.5, 4, 2, 200)
	r := New(Config{Regions: m, PositionTTL: time.Hour})
	r.hooks.narrowAt = 1
	const members = 2000
	for i := range members {
		r.Add(drivers, fmt.Sprintf("d%d", i), geo.Encode(4.6, 52.1), AddFlags{})
	}
	done := make(chan struct{})
	var writers sync.WaitGroup
	for w := range 2 {
		writers.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for {
				select {
				case <-done:
					return
				default:
				}
				name := fmt.Sprintf("d%d", rng.IntN(members))
				r.Add(drivers, name, geo.Encode(4.5+rng.Float64(), 52.0+rng.Float64()/2), AddFlags{})
			}
		})
	}
	deadline := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(deadline) {
		if n := r.Card(drivers); n != members {
			t.Errorf("card %d, want %d", n, members)
			break
		}
		seen := make(map[string]bool, members)
		r.Each(drivers, func(member string, _ float64, _ int64) bool {
			if seen[member] {
				t.Errorf("Each yields %s twice", member)
			}
			seen[member] = true
			return true
		})
		if len(seen) != members {
			t.Errorf("Each yields %d members, want %d", len(seen), members)
			break
		}
	}
	close(done)
	writers.Wait()
}
