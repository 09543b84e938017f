package router

import (
	"math"

	"geoshard/shard"
)

// Redis's default limits for keeping a sorted set as a listpack.
const (
	listpackEntries = 128
	listpackValue   = 64
)

// AddFlags are ZADD's conditions, which GEOADD shares.
type AddFlags struct {
	NX, XX, GT, LT bool
}

// Add writes one member with a sorted-set score (a GEOADD position or any
// ZADD score) and reports whether it was new and whether its score changed.
// Every write refreshes the member's timestamp, even when the score stays.
func (r *Router) Add(k shard.Key, member string, score float64, f AddFlags) (added, changed bool) {
	if r.cl != nil {
		added, changed, _ = r.addCluster(k, member, score, f, nil) // TryAdd reports the error
		return added, changed
	}
	// One hash of the member serves the stripe, the owner table and the
	// shard's name index.
	h := shard.Hash(member)
	g, st := r.lockMemberHash(k, member, h, !f.XX)
	if g == nil {
		return false, false
	}
	defer st.mu.Unlock()
	stamp := r.stamp()
	var cur slot
	at, exists := st.owner.find(member, h)
	// A narrow owner table keeps only the shard: the score and stamp are
	// read from the shard when a condition needs them first, else taken
	// from the write that replaces them.
	known := !exists || st.owner.src == nil || f.NX || f.XX || f.GT || f.LT
	if exists {
		cur.shard = st.owner.rec(at).shard
		if known {
			cur = st.owner.slotAt(at, member, h)
		}
	}
	cut := r.minStamp(g, stamp)
	live := exists && cur.stamp >= cut
	if known {
		switch {
		case f.NX && live, f.XX && !live:
			return false, false
		case live && f.GT && !(score > cur.score), live && f.LT && !(score < cur.score):
			return false, false
		}
	}
	if !exists && (g.entries.Load() >= listpackEntries || len(member) > listpackValue) {
		g.big.Store(true)
	}
	if score == 0 && !g.big.Load() {
		score = 0 // a listpack stores -0 as 0
	}
	e := shard.NewEntry(member, score, stamp)
	to := r.place(cur.shard, exists, e.Lon, e.Lat)
	// No slab hint is kept (it would cost every member 4 bytes of the
	// owner table); the shard's name index reuses h and its entries' hash
	// tags spare it reading other members' names.
	r.arrive(g, member, cur.shard, exists, to) // before the copy goes in: no search skips it
	var prev shard.Value
	var had bool
	var copyAt uint32
	if exists && to == cur.shard && st.owner.src != nil {
		// The record names the copy's slot: no look-up by name.
		prev, had, copyAt = r.shards[to].PutSlot(k, e, st.owner.rec(at).nameAt, h)
	} else {
		prev, had, copyAt = r.shards[to].PutHashSlot(k, e, h)
	}
	r.stats.Shards[to].Writes.Add(1)
	if exists && cur.shard != to {
		prev, had = r.handoff(k, g, member, h, cur.shard, to, stamp)
	}
	if !known {
		// The copy this write replaced held the member's score and stamp
		// (none: reclaimed, as expired).
		cur.score, cur.stamp = prev.Score, gone
		if had {
			cur.stamp = prev.Stamp
		}
		live = cur.stamp >= cut
	}
	next := slot{shard: to, at: copyAt, score: score, stamp: stamp}
	if exists {
		st.owner.setAt(at, next)
	} else {
		g.entries.Add(1)
		st.owner.add(member, h, next)
		r.grown(g, st)
	}
	return !live, live && cur.score != score
}

// handoff deletes a member's old copy in shard from, now that its new copy
// is in shard to, and returns what the old copy held.
func (r *Router) handoff(k shard.Key, g *geoKey, member string, h uint64, from, to shard.ID, stamp int64) (shard.Value, bool) {
	r.stats.Shards[from].HandoffsOut.Add(1)
	r.stats.Shards[to].HandoffsIn.Add(1)
	r.stats.Border(from, to).Handoffs.Add(1)
	var old shard.Entry
	var had bool
	if r.hooks.dropDeletes.Load() {
		// The old copy stays: no search can miss the member, and a range
		// reading alone with its stripe locks (currentIn) must not wait.
		r.hooks.dropped.Store(true)
		old, had = r.shards[from].Get(k, member)
	} else {
		// Counted before the delete, and not while a search reads alone:
		// a search reading both shards meanwhile reads them again
		// (readShards).
		g.handing.RLock()
		g.handoffs.Add(1)
		old, had = r.shards[from].DeleteHash(k, member, stamp-1, h)
		g.handing.RUnlock()
	}
	r.depart(g, member, from)
	return shard.Value{Score: old.Score, Stamp: old.Stamp}, had
}

// lockMember finds the key (creating it if asked) and locks the stripe of
// the member, retrying if the key was forgotten meanwhile.
func (r *Router) lockMember(k shard.Key, member string, create bool) (*geoKey, *stripe) {
	return r.lockMemberHash(k, member, shard.Hash(member), create)
}

// lockMemberHash is lockMember for a member whose shard.Hash is h.
func (r *Router) lockMemberHash(k shard.Key, member string, h uint64, create bool) (*geoKey, *stripe) {
	for {
		g := r.key(k, create)
		if g == nil {
			return nil, nil
		}
		st := &g.stripes[stripeOfHash(h)]
		st.mu.Lock()
		if !g.dead {
			return g, st
		}
		st.mu.Unlock()
	}
}

// place picks the shard for a member's new position: where the region map
// puts it, unless the member's current shard is no more than the margin
// away, which keeps members that wobble along a border from flapping.
func (r *Router) place(cur shard.ID, exists bool, lon, lat float64) shard.ID {
	if !exists {
		return r.regions.Locate(lon, lat)
	}
	owner, kept := r.keeps(cur, lon, lat)
	if kept {
		r.stats.Border(cur, owner).FlapsSuppressed.Add(1)
		return cur
	}
	return owner
}

// keeps reports whether a copy in shard cur at lon, lat stays there
// although its region is another (owner): no more than the margin past
// cur's border. place counts that as a flap suppressed; a copy in cur
// that neither its region nor the margin keeps there is on its way out
// (cond.go, claimed).
func (r *Router) keeps(cur shard.ID, lon, lat float64) (owner shard.ID, kept bool) {
	owner = r.regions.Locate(lon, lat)
	return owner, owner != cur && r.regions.Distance(cur, lon, lat) <= r.regions.Margin()
}

// Remove deletes a member and reports whether it was there.
func (r *Router) Remove(k shard.Key, member string) bool {
	if r.cl != nil {
		removed, _ := r.removeCluster(k, member) // TryRemove reports the error
		return removed
	}
	h := shard.Hash(member)
	g, st := r.lockMemberHash(k, member, h, false)
	if g == nil {
		return false
	}
	defer st.mu.Unlock()
	at, ok := st.owner.find(member, h)
	if !ok {
		return false
	}
	// A narrow table reads the stamp from the copy the delete removes.
	cur := slot{shard: st.owner.rec(at).shard, stamp: gone}
	if st.owner.src == nil {
		cur = st.owner.slotAt(at, member, h)
	}
	st.owner.delHash(member, h)
	g.entries.Add(-1)
	if e, had := r.shards[cur.shard].DeleteHash(k, member, math.MaxInt64, h); had && st.owner.src != nil {
		cur.stamp = e.Stamp
	}
	r.depart(g, member, cur.shard)
	return cur.stamp >= r.minStamp(g, now())
}

// Score returns a member's score, if it is there.
func (r *Router) Score(k shard.Key, member string) (float64, bool) {
	if r.cl != nil {
		score, ok, _ := r.scoreCluster(k, member)
		return score, ok
	}
	g := r.key(k, false)
	if g == nil {
		return 0, false
	}
	h := shard.Hash(member)
	st := &g.stripes[stripeOfHash(h)]
	st.mu.Lock()
	_, cur, ok := st.owner.lookup(member, h)
	st.mu.Unlock()
	if !ok || cur.stamp < r.minStamp(g, now()) {
		return 0, false
	}
	return cur.score, true
}

// TryScore is Score that fails, in cluster mode, when the member was not
// found and some shard could not be read.
func (r *Router) TryScore(k shard.Key, member string) (float64, bool, error) {
	if r.cl != nil {
		return r.scoreCluster(k, member)
	}
	score, ok := r.Score(k, member)
	return score, ok, nil
}

// TryCard is Card that fails, in cluster mode, when some shard could not
// be read, rather than count the members of the others.
func (r *Router) TryCard(k shard.Key) (int, error) {
	if r.cl != nil {
		return r.cardCluster(k)
	}
	return r.Card(k), nil
}

// Card returns how many members the key has; 0 means it does not exist.
func (r *Router) Card(k shard.Key) int {
	if r.cl != nil {
		n, _ := r.cardCluster(k)
		return n
	}
	g := r.key(k, false)
	if g == nil {
		return 0
	}
	cut := r.minStamp(g, now())
	if cut == 0 {
		return int(g.entries.Load())
	}
	n := 0
	if r.eachCopy(k, g, cut, func(string, shard.Value) bool { n++; return true }) {
		return n
	}
	for i := range g.stripes {
		st := &g.stripes[i]
		st.mu.Lock()
		for _, s := range st.owner.all() {
			if s.stamp >= cut {
				n++
			}
		}
		st.mu.Unlock()
	}
	return n
}
