package router

import (
	"math"
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
	for i := range g.stripes {
		st := &g.stripes[i]
		st.mu.Lock()
		for m, s := range st.owner {
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
	for {
		last := r.lastStamp.Load()
		if stamp <= last || r.lastStamp.CompareAndSwap(last, stamp) {
			break
		}
	}
	cur, exists := st.owner[member]
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
	r.shards[to].Put(k, e)
	if exists && cur.shard != to {
		r.shards[cur.shard].Delete(k, member, math.MaxInt64)
	}
	st.owner[member] = slot{shard: to, score: score, stamp: stamp}
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
