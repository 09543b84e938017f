package router

import (
	"slices"
	"sync/atomic"

	"geoshard/geo"
	"geoshard/shard"
)

// holders counts, for one big key on a fine map, how many of its members
// the owner table places in each shard, so that a search skips the shards
// its area touches but that hold none of the key: a wide search of 10,000
// members on 10,000 areas touches every area, a third of which are empty,
// and asking a shard costs its lock, key map and tree root whatever it
// holds. The counts follow the owner table, not the shards: a stale copy
// a lost delete left behind is not counted, and a search that skips it
// misses only what the newest copy would have outvoted anyway.
//
// Counts are built the first time a search needs them, stripe by stripe
// (a writer waits for one stripe's scan at most), and kept by every write
// after that under the member's stripe lock: a writer counts its member
// only once its stripe is scanned, so no member is counted twice.
type holders struct {
	n       []atomic.Int32       // by shard ID: members whose current copy is there
	scanned [stripes]atomic.Bool // stripe i's members are in n; set under stripe i's lock
	ready   atomic.Bool          // every stripe is scanned: n can be trusted
	// arrivals counts counts gone from 0 to 1: a search that skipped the
	// empty shards sees from it whether one filled up meanwhile.
	arrivals atomic.Uint64
}

// heldState is what a key keeps of which shards hold its members: a big
// key's counts per shard, once a search needs them, and for a small key
// the list of its shards the last search found, with the number of
// arrivals and departures it was found at, so that searches of a key
// whose members stay in their shards do not lock every stripe to find
// them again.
type heldState struct {
	counts atomic.Pointer[holders]
	moves  atomic.Uint64 // members come to or gone from a shard, counted before the copy goes in
	list   atomic.Pointer[heldList]
}

// heldList is a small key's shards (sorted, read only) as of moves; ok is
// false when they were more than heldShards.
type heldList struct {
	moves uint64
	ids   []shard.ID
	ok    bool
}

// heldMark is what a search's list of shards owed to g's held state: the
// counts it read (nil: none) and their arrivals before it read them, or,
// for a small key's kept list, the moves it was kept at. missed compares
// them with what holds after the search.
type heldMark struct {
	g        *geoKey
	h        *holders
	arrivals uint64
	// small: the shards were a small key's holders, as of moves.
	small bool
	moves uint64
}

// heldOnly filters ids (sorted, distinct; reused) down to the shards
// that hold members of g, when g keeps counts, and marks what it read for
// missed; when g keeps none (yet) the caller asks every shard in ids.
func (r *Router) heldOnly(g *geoKey, ids []shard.ID) ([]shard.ID, heldMark) {
	h := r.holdersOf(g)
	if h == nil {
		return ids, heldMark{}
	}
	mark := heldMark{g: g, h: h, arrivals: h.arrivals.Load()}
	return slices.DeleteFunc(ids, func(id shard.ID) bool { return h.n[id].Load() == 0 }), mark
}

// missed returns the shards q touches that a search asking ids skipped as
// empty but that came to hold some of the key since (sorted, distinct):
// a member handed off, or moved by a reload, into one of them after the
// search chose its shards may have left the shard it was in before the
// search got there. The new copy goes in before the old one goes, so
// asking these afterwards finds it.
func (r *Router) missed(m heldMark, q *geo.Search, ids []shard.ID) []shard.ID {
	if m.small {
		return r.missedHolding(m, q, ids)
	}
	if m.h == nil {
		return nil
	}
	cur := m.g.held.counts.Load()
	if cur == m.h && m.h.arrivals.Load() == m.arrivals {
		return nil
	}
	var late []shard.ID
	for _, id := range r.touching(q) {
		if _, asked := slices.BinarySearch(ids, id); asked {
			continue
		}
		if cur != m.h || int(id) >= len(cur.n) || cur.n[id].Load() > 0 {
			late = append(late, id) // counts replaced meanwhile: ask every shard skipped
		}
	}
	return late
}

// holdersOf returns g's counts, building them if no search has yet; nil
// while another search builds them or when they do not fit the router's
// shards (a reload replaced them).
func (r *Router) holdersOf(g *geoKey) *holders {
	h := g.held.counts.Load()
	if h == nil {
		h = &holders{n: make([]atomic.Int32, len(r.shards))}
		if !g.held.counts.CompareAndSwap(nil, h) {
			return nil
		}
		if !r.countHolders(g, h) {
			g.held.counts.CompareAndSwap(h, nil)
			return nil
		}
		h.ready.Store(true)
	}
	if !h.ready.Load() || len(h.n) != len(r.shards) {
		return nil
	}
	return h
}

// countHolders scans g's owner table into h, one stripe at a time; false
// if a member is in a shard h has no count for.
func (r *Router) countHolders(g *geoKey, h *holders) bool {
	for i := range g.stripes {
		st := &g.stripes[i]
		st.mu.Lock()
		for _, id := range st.owner.shards() {
			if int(id) >= len(h.n) {
				st.mu.Unlock()
				return false
			}
			h.n[id].Add(1)
		}
		h.scanned[i].Store(true)
		st.mu.Unlock()
	}
	return true
}

// arrive counts member into shard to, which the caller calls before the
// copy goes in (so that no search skips the shard while it holds the
// copy), unless the member was there already (had, in from). The caller
// holds the member's stripe lock.
func (r *Router) arrive(g *geoKey, member string, from shard.ID, had bool, to shard.ID) {
	if !had || from != to {
		r.countHeld(g, member, to, 1)
	}
}

// depart counts member out of shard from, after its copy there is gone
// (or, on a handoff, after the new one is in). The caller holds the
// member's stripe lock.
func (r *Router) depart(g *geoKey, member string, from shard.ID) {
	r.countHeld(g, member, from, -1)
}

func (r *Router) countHeld(g *geoKey, member string, id shard.ID, d int32) {
	g.held.moves.Add(1)
	h := g.held.counts.Load()
	if h == nil || !h.scanned[r.stripeOf(member)].Load() {
		return // not kept, or the scan of this stripe will count it
	}
	if int(id) >= len(h.n) {
		g.held.counts.CompareAndSwap(h, nil) // cannot count it: start again
		return
	}
	if h.n[id].Add(d) == 1 && d > 0 {
		h.arrivals.Add(1)
	}
}

// missedHolding is missed for a small key's search, which asked the
// shards holding it: those that hold it now and were not asked.
func (r *Router) missedHolding(m heldMark, q *geo.Search, ids []shard.ID) []shard.ID {
	if m.g.held.moves.Load() == m.moves {
		return nil
	}
	now, ok, _ := r.holding(m.g)
	if !ok {
		now = r.touching(q) // grown past heldShards: what the key's area search would ask
	}
	var late []shard.ID
	for _, id := range now {
		if _, asked := slices.BinarySearch(ids, id); !asked {
			late = append(late, id)
		}
	}
	return late
}

// forgetHolders drops g's counts, for a writer that changed its owner
// table without counting (a snapshot's bulk restore, a reload's new
// shard IDs): the next search counts again.
func forgetHolders(g *geoKey) {
	g.held.counts.Store(nil)
	g.held.moves.Add(1) // and a small key's list of shards
}
