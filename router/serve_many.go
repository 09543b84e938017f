package router

import "geoshard/shard"

// PutLocalMany is PutLocal for each es[i] in local shard ids[i], as a
// batched write's holder stores them (GETPUT, PUTMANY). Each member is
// hashed once, for its shard's name index, its stripe and its owner
// record, and its record is found in one probe: PutLocal hashed a member
// four times and probed its owner table twice, which made the owner cache
// two fifths of a holder's stores in a cold load (BenchmarkColdLoad).
func (r *Router) PutLocalMany(ids []shard.ID, k shard.Key, es []shard.Entry) {
	if len(es) == 0 {
		return
	}
	g := r.key(k, true)
	var newest int64
	for i, e := range es {
		h := shard.Hash(e.Member)
		r.stats.Shards[ids[i]].Writes.Add(1)
		if !r.shards[ids[i]].PutNewerHash(k, e, h) { // newest wins, as PutLocal
			continue
		}
		g = r.cacheOwnerHash(g, k, e.Member, h, slot{shard: ids[i], score: e.Score, stamp: e.Stamp})
		newest = max(newest, e.Stamp)
	}
	r.observe(newest)
}

// cacheOwnerHash is cacheOwner, less observe, for a member whose
// shard.Hash is h, in g, the key's view the caller looked up; it returns
// the view in force, which is another one when g was dropped meanwhile
// (a DEL or FLUSH, then a new write of the key).
func (r *Router) cacheOwnerHash(g *geoKey, k shard.Key, member string, h uint64, s slot) *geoKey {
	for {
		st := &g.stripes[stripeOfHash(h)]
		st.mu.Lock()
		if g.dead {
			st.mu.Unlock()
			g = r.key(k, true)
			continue
		}
		at, cur, ok := st.owner.lookup(member, h)
		switch {
		case ok && cur.stamp >= s.stamp:
		case ok:
			st.owner.setAt(at, s)
		default:
			g.entries.Add(1)
			st.owner.add(member, h, s)
		}
		st.mu.Unlock()
		return g
	}
}
