package router

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// ownerCounts tallies g's owner table by shard: what its holders must say.
func ownerCounts(g *geoKey) map[shard.ID]int32 {
	want := map[shard.ID]int32{}
	for i := range g.stripes {
		st := &g.stripes[i]
		st.mu.Lock()
		for _, s := range st.owner.all() {
			want[s.shard]++
		}
		st.mu.Unlock()
	}
	return want
}

// checkHolders fails unless g's per-shard counts, once a search built
// them, equal its owner table's.
func checkHolders(t *testing.T, r *Router, g *geoKey, when string) {
	t.Helper()
	h := r.holdersOf(g)
	if h == nil {
		t.Fatalf("%s: no per-shard counts", when)
	}
	got := map[shard.ID]int32{}
	for id := range h.n {
		if n := h.n[id].Load(); n != 0 {
			got[shard.ID(id)] = n
		}
	}
	if want := ownerCounts(g); !maps.Equal(got, want) {
		t.Fatalf("%s: counts of %d shards, owner table names %d", when, len(got), len(want))
	}
}

// checkSearches compares searches of every size around random centres
// with a brute-force scan of pts.
func checkSearches(t *testing.T, r *Router, pts map[string]float64, rng *rand.Rand, when string) {
	t.Helper()
	var all []point
	for m, s := range pts {
		all = append(all, point{m, s})
	}
	for _, shape := range []geo.Shape{
		{Radius: 50, Unit: 1000}, {Radius: 500, Unit: 1000}, {Radius: 5000, Unit: 1000},
		{Box: true, Width: 40000, Height: 20000, Unit: 1000},
	} {
		q := geo.NewSearch(-10+rng.Float64()*40, 35+rng.Float64()*25, shape)
		res := r.Search(drivers, q, 0)
		got := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			got[i] = h.Member
		}
		want := bruteForce(all, q)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %+v found %d, want %d", when, shape, len(got), len(want))
		}
		// The shards asked (when the search fans out) hold every hit.
		g := r.key(drivers, false)
		asked, _ := r.asked(g, q)
		for _, m := range want {
			st := r.stripe(g, m)
			st.mu.Lock()
			s, _ := st.owner.get(m)
			st.mu.Unlock()
			id := s.shard
			if !slices.Contains(asked, id) {
				t.Fatalf("%s: %+v does not ask shard %d, which holds %s", when, shape, id, m)
			}
		}
	}
}

// A big key on a fine map is searched in the shards it touches that hold
// some of it: a world-wide search of 2,000 members over 10,000 areas asks
// the ~1,800 shards holding them, not all 10,001 (issue 11), and the
// per-shard counts that decide it follow every way a member comes, moves
// and goes: writes, handoffs, hysteresis, removes, the position TTL,
// restores and a region map reload.
func TestHoldersFollowTheOwnerTable(t *testing.T) {
	m := shard.GridMap(-10, 35, 30, 60, 100, 100, 200)
	r := New(Config{Regions: m})
	rng := rand.New(rand.NewPCG(21, 5))
	pts := map[string]float64{}
	at := func() float64 { return geo.Encode(-10+rng.Float64()*40, 35+rng.Float64()*25) }
	for i := range 2000 {
		pts[fmt.Sprint(i)] = at()
		r.Add(drivers, fmt.Sprint(i), pts[fmt.Sprint(i)], AddFlags{})
	}
	g := r.key(drivers, false)
	world := geo.NewSearch(0, 0, geo.Shape{Box: true, Width: 40000, Height: 20000, Unit: 1000})
	if ids, _ := r.asked(g, world); len(ids) != len(ownerCounts(g)) {
		t.Fatalf("world search asks %d shards; %d hold the key", len(ids), len(ownerCounts(g)))
	}
	checkHolders(t, r, g, "built")

	for i := range 3000 {
		member := fmt.Sprint(rng.IntN(2500))
		switch i % 4 {
		case 0: // far
			pts[member] = at()
		case 1: // a few metres: kept in its shard by the margin, or a handoff
			lon, lat := geo.Decode(pts[member])
			pts[member] = geo.Encode(lon+0.002, lat)
		case 2:
			r.Remove(drivers, member)
			delete(pts, member)
			continue
		case 3:
			r.Restore(drivers, member, at(), time.Now().UnixNano())
			pts[member], _ = r.Score(drivers, member)
			continue
		}
		r.Add(drivers, member, pts[member], AddFlags{})
	}
	checkHolders(t, r, g, "after writes")
	checkSearches(t, r, pts, rng, "after writes")

	// Copies written two hours ago expire under a one-hour TTL.
	old := time.Now().Add(-2 * time.Hour).UnixNano()
	for i := range 300 {
		member := fmt.Sprint(i)
		r.Restore(drivers, member, at(), old)
		delete(pts, member)
	}
	r.SetKeyTTL(drivers, time.Hour)
	r.Reclaim()
	checkHolders(t, r, g, "after reclaim")
	checkSearches(t, r, pts, rng, "after reclaim")

	// A reload to another grid: searches stay exact while members move,
	// and the counts follow them to their new shards.
	nr, err := r.Reload(shard.GridMap(-10, 35, 30, 60, 37, 41, 200))
	if err != nil {
		t.Fatal(err)
	}
	checkSearches(t, nr, pts, rng, "before the move")
	checkHolders(t, nr, g, "before the move")
	nr.MoveMembers()
	checkHolders(t, nr, g, "after the move")
	checkSearches(t, nr, pts, rng, "after the move")
}

// Counts built by searches while writers move members equal the owner
// table at the end: a writer counts its member only in stripes already
// scanned, never twice (run with -race).
func TestHoldersBuiltDuringWrites(t *testing.T) {
	m := shard.GridMap(-10, 35, 30, 60, 60, 60, 200)
	r := New(Config{Regions: m})
	for i := range 3000 {
		r.Add(drivers, fmt.Sprint(i), geo.Encode(-10+float64(i%200)*0.2, 35+float64(i/200)), AddFlags{})
	}
	g := r.key(drivers, false)
	small := shard.Key{Name: "small"}
	world := geo.NewSearch(0, 0, geo.Shape{Box: true, Width: 40000, Height: 20000, Unit: 1000})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 2 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				member := fmt.Sprint(rng.IntN(3200))
				if i%3 == 0 { // a small key: its searches keep a list of its shards
					r.Add(small, fmt.Sprint(rng.IntN(40)), geo.Encode(-10+rng.Float64()*40, 35+rng.Float64()*25), AddFlags{})
				}
				if i%5 == 0 {
					r.Remove(drivers, member)
					continue
				}
				r.Add(drivers, member, geo.Encode(-10+rng.Float64()*40, 35+rng.Float64()*25), AddFlags{})
			}
		})
	}
	for range 40 {
		forgetHolders(g) // the next search counts again, with writers running
		if res := r.Search(drivers, world, 0); res.Degraded {
			t.Fatal("degraded")
		}
		if res := r.Search(small, world, 0); len(res.Hits) > 40 {
			t.Fatalf("%d hits of a 40-member key", len(res.Hits))
		}
	}
	close(stop)
	wg.Wait()
	checkHolders(t, r, g, "after concurrent writes")
	// The small key's kept list names the shards its owner table does.
	sg := r.key(small, false)
	ids, ok, _ := r.holding(sg)
	want, _ := r.holdingNow(sg)
	if !ok || !slices.Equal(ids, want) {
		t.Fatalf("small key's kept shards %v, owner table's %v", ids, want)
	}
}
