package router

import (
	"geoshard/shard"
)

// Reclaim removes, from every shard, the copies whose position TTL has run
// out, including copies a lost delete left behind, and forgets members
// whose current copy went.
func (r *Router) Reclaim() {
	t := now()
	// Cut-offs are worked out before any shard is locked: the shard calls
	// minStamp under its lock, which must not wait for the router's.
	global := r.minStamp(nil, t)
	cuts := make(map[shard.Key]int64)
	r.mu.RLock()
	for k, g := range r.keys {
		cuts[k] = r.minStamp(g, t)
	}
	r.mu.RUnlock()
	minStamp := func(k shard.Key) int64 {
		if c, ok := cuts[k]; ok {
			return c
		}
		return global
	}
	for id, s := range r.shards {
		s.Reclaim(minStamp, func(k shard.Key, e shard.Entry) {
			r.stats.Shards[id].Expired.Add(1)
			g := r.key(k, false)
			if g == nil {
				return
			}
			st := r.stripe(g, e.Member)
			st.mu.Lock()
			// A narrow table reads the stamp of the copy just removed as
			// gone: that copy was the current one.
			if cur, ok := st.owner.get(e.Member); ok && cur.shard == shard.ID(id) && (cur.stamp == e.Stamp || cur.stamp == gone) {
				st.owner.del(e.Member)
				g.entries.Add(-1)
				r.depart(g, e.Member, cur.shard)
			}
			st.mu.Unlock()
		})
	}
	if r.cl != nil {
		r.sweepCache(t)
	}
	r.forgetEmpty()
}

// forgetEmpty drops the router's view of keys that no longer have members.
// A writer that found the key before it went sees it marked dead and looks
// it up again.
func (r *Router) forgetEmpty() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, g := range r.keys {
		for i := range g.stripes {
			g.stripes[i].mu.Lock()
		}
		empty := true
		for i := range g.stripes {
			empty = empty && g.stripes[i].owner.len() == 0
		}
		if empty {
			g.dead = true
			delete(r.keys, k)
		}
		for i := range g.stripes {
			g.stripes[i].mu.Unlock()
		}
	}
}
