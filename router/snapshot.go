package router

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"geoshard/shard"
)

// Each calls fn for every live member of k with its score and write
// timestamp, stripe by stripe, until fn returns false. Members written
// while it runs may or may not be seen; a consistent view needs the
// caller to keep writers out.
func (r *Router) Each(k shard.Key, fn func(member string, score float64, stamp int64) bool) {
	g := r.key(k, false)
	if g == nil {
		return
	}
	cut := r.minStamp(g, now())
	if r.eachCopy(k, g, cut, func(m string, v shard.Value) bool { return fn(m, v.Score, v.Stamp) }) {
		return
	}
	for i := range g.stripes {
		st := &g.stripes[i]
		st.mu.Lock()
		for m, s := range st.owner.all() {
			if s.stamp >= cut && !fn(m, s.score, s.stamp) {
				st.mu.Unlock()
				return
			}
		}
		st.mu.Unlock()
	}
}

// Restore puts back a member read from a snapshot with its original
// score and timestamp, so its position TTL runs from its last real write.
func (r *Router) Restore(k shard.Key, member string, score float64, stamp int64) {
	g, st := r.lockMember(k, member, true)
	defer st.mu.Unlock()
	// Later writes must still get later stamps, even if the clock is
	// behind the one that wrote the snapshot.
	r.observe(stamp)
	h := shard.Hash(member)
	var cur slot
	at, exists := st.owner.find(member, h)
	if exists {
		// Read before the copy changes: a narrow record's name is its copy's.
		cur = st.owner.slotAt(at, member, h)
	}
	// As Add decides listpack or skiplist, but on the count after this
	// member: restores of one key run side by side, and only the last
	// one's count is sure to be the whole key's.
	if !exists && (g.entries.Add(1) > listpackEntries || len(member) > listpackValue) {
		g.big.Store(true)
	}
	if score == 0 && math.Signbit(score) {
		g.big.Store(true) // only a skiplist kept a -0, so the key was big
	}
	e := shard.NewEntry(member, score, stamp)
	to := r.regions.Locate(e.Lon, e.Lat)
	r.arrive(g, member, cur.shard, exists, to)
	_, _, copyAt := r.shards[to].PutHashSlot(k, e, h)
	if exists && cur.shard != to {
		r.shards[cur.shard].DeleteHash(k, member, math.MaxInt64, h)
		r.depart(g, member, cur.shard)
	}
	next := slot{shard: to, at: copyAt, score: score, stamp: stamp}
	if exists {
		st.owner.setAt(at, next)
	} else {
		st.owner.add(member, h, next)
	}
	r.grown(g, st)
}

// KeyTTLs returns the per-key position TTLs set in database db, which
// outlive their keys.
func (r *Router) KeyTTLs(db int) map[string]time.Duration {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make(map[string]time.Duration)
	for k, d := range r.keyTTL {
		if k.DB == db {
			out[k.Name] = d
		}
	}
	return out
}

// Saved is one member as a snapshot holds it.
type Saved struct {
	Member string
	Score  float64
	Stamp  int64
}

// RestoreKey puts back a whole key read from a snapshot, as Restore would
// member by member but several times faster into a key the router does
// not hold yet: members are placed in parallel and each shard builds its
// index in one sorted pass. A member saved twice keeps its last copy. The
// caller keeps other writers of k out while it runs.
func (r *Router) RestoreKey(k shard.Key, ms []Saved) {
	kr := r.NewKeyRestore(k)
	kr.Add(ms)
	kr.Finish()
}

// restoreOwners fills the empty key's owner table, stripe by stripe in
// parallel, and reports which of es to keep: all but the earlier copies
// of members saved twice. Each worker sweeps es in its saved order and
// takes the members of its stripes: a sweep streams through memory,
// where visiting a stripe's members one after the other missed the
// cache on every entry and every name.
//
// recOf[i] is set to the record number of es's entry i.
func (r *Router) restoreOwners(g *geoKey, es *entryBlocks, stripeOf []uint8, shardOf []shard.ID, recOf []uint32) []bool {
	var count [stripes]int
	for _, s := range stripeOf {
		count[s]++
	}
	kept := make([]bool, es.n)
	var unique atomic.Int64
	var newest newestStamp
	var big atomic.Bool
	parallel(stripes, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			st := &g.stripes[s]
			st.mu.Lock()
			defer st.mu.Unlock()
			// Wide while the shards are empty (a narrow record names its
			// copy's slot): narrowed once they are loaded (narrowRestored).
			st.owner = owners{}
			st.owner.reserve(count[s])
		}
		stamp, n := int64(0), int64(0)
		var dups [stripes]bool
		for i, s := range stripeOf {
			if int(s) < lo || int(s) >= hi {
				continue
			}
			e := es.at(i)
			o := &g.stripes[s].owner
			at, dup := o.upsert(e.Member)
			recOf[i] = at
			o.setAt(at, slot{shard: shardOf[i], score: e.Score, stamp: e.Stamp})
			dups[s] = dups[s] || dup
			kept[i] = !dup
			if !dup {
				n++
			}
			stamp = max(stamp, e.Stamp)
			if len(e.Member) > listpackValue || (e.Score == 0 && math.Signbit(e.Score)) {
				big.Store(true) // only a skiplist keeps a long member or a -0
			}
		}
		for s := lo; s < hi; s++ {
			if dups[s] {
				keepLast(es, stripeOf, uint8(s), kept)
			}
		}
		unique.Add(n)
		newest.keep(stamp)
	})
	g.entries.Add(unique.Load())
	if big.Load() || unique.Load() > listpackEntries {
		g.big.Store(true)
	}
	// Later writes must still get later stamps, even if the clock is
	// behind the one that wrote the snapshot.
	r.observe(newest.Load())
	return kept
}

// keepLast marks, in a stripe that had a member saved twice, only each
// member's last copy as kept. Rare: saves write each member once.
func keepLast(es *entryBlocks, stripeOf []uint8, s uint8, kept []bool) {
	last := make(map[string]int)
	for i, t := range stripeOf {
		if t == s {
			last[es.member(i)] = i
		}
	}
	for i, t := range stripeOf {
		if t == s {
			kept[i] = last[es.member(i)] == i
		}
	}
}

// restoreShards hands each shard its kept members in one bulk load,
// by their indexes: a copy of the entries would be as many Go pointers
// for the collector to scan. slotOf[i] is set to the slab slot of kept
// entry i's copy.
func (r *Router) restoreShards(k shard.Key, es *entryBlocks, shardOf []shard.ID, kept []bool, slotOf []uint32) {
	per := make([][]int32, len(r.shards))
	counts := make([]int, len(r.shards))
	for i, id := range shardOf {
		if kept[i] {
			counts[id]++
		}
	}
	for i, id := range shardOf {
		if kept[i] {
			if per[id] == nil {
				per[id] = make([]int32, 0, counts[id])
			}
			per[id] = append(per[id], int32(i))
		}
	}
	// Largest first, each worker taking the next: drivers cluster in a
	// few regions, and contiguous halves of the shards left one worker
	// with most of the members.
	ids := make([]int, len(per))
	for id := range ids {
		ids[id] = id
	}
	slices.SortFunc(ids, func(a, b int) int { return cmp.Compare(counts[b], counts[a]) })
	var next atomic.Int64
	parallel(min(len(ids), runtime.GOMAXPROCS(0)), func(int, int) {
		for j := next.Add(1) - 1; j < int64(len(ids)); j = next.Add(1) - 1 {
			idx := per[ids[j]]
			r.shards[ids[j]].LoadEachSlots(k, len(idx), func(i int) shard.Entry { return es.at(int(idx[i])) },
				func(i int, at uint32) { slotOf[idx[i]] = at })
		}
	})
}

// parallel splits [0, n) into one contiguous part per processor and runs
// fn on each at once.
func parallel(n int, fn func(lo, hi int)) {
	parts := min(n, runtime.GOMAXPROCS(0))
	if parts <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { fn(p*n/parts, (p+1)*n/parts) })
	}
	wg.Wait()
}
