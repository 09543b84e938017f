package router

import (
	"math"
	"sync/atomic"

	"geoshard/shard"
)

// source is where a key's narrow owner tables read their members' scores
// and stamps: the copy in the shard a record names, under the key's
// current name. Renames and map reloads swap the view; the stripes hold a
// pointer to their key's source.
type source struct {
	v atomic.Pointer[sourceView]
}

type sourceView struct {
	key    shard.Key
	shards []*shard.Shard
}

// gone is the stamp of a member whose record names a shard that no longer
// holds its copy: the position TTL reclaimed it and the router has not
// forgotten the member yet. It reads as expired under any cut-off.
const gone = math.MinInt64

// value reads the score and stamp of member (shard.Hash h) in shard id.
func (s *source) value(id shard.ID, member string, h uint64) shard.Value {
	v := s.v.Load()
	if val, ok := v.shards[id].ValueHash(v.key, member, h); ok {
		return val
	}
	return shard.Value{Stamp: gone}
}

// narrowAt is how many members a stripe holds before its owner table
// turns narrow (a key of about 130,000 members): a small key keeps its
// members' scores and stamps in one place for searches that read the
// owner table rather than thousands of shards (ownerscan.go), where
// reading each member's copy in its shard costs about a microsecond (a
// few cache misses in a shard of its own), and its memory hardly counts.
const narrowAt = 2048

func (r *Router) narrowLimit() int {
	if n := r.hooks.narrowAt; n > 0 {
		return n
	}
	return narrowAt
}

// localKey makes g's source the shards of r under the name k, which lets its
// owner tables turn narrow as they grow (grown). Called on a new key in a
// router without other nodes.
func (r *Router) localKey(g *geoKey, k shard.Key) {
	g.src.v.Store(&sourceView{key: k, shards: r.shards})
}

// grown turns a stripe's owner table narrow once it holds narrowAt
// members (tests set another limit), if its key has a source. The caller
// holds the stripe's lock.
func (r *Router) grown(g *geoKey, st *stripe) {
	if st.owner.src == nil && st.owner.len() >= r.narrowLimit() && g.src.v.Load() != nil && r.cl == nil {
		st.owner.src, st.owner.vals = &g.src, nil
		g.narrowed.Store(true)
	}
}

// renamed points a narrow key's tables at its new name.
func (g *geoKey) renamed(k shard.Key) {
	if v := g.src.v.Load(); v != nil {
		g.src.v.Store(&sourceView{key: k, shards: v.shards})
	}
}

// reshard points a narrow key's tables at a new router's shards, which
// hold the same shards under the same IDs (Reload).
func (g *geoKey) reshard(shards []*shard.Shard) {
	if v := g.src.v.Load(); v != nil {
		g.src.v.Store(&sourceView{key: v.key, shards: shards})
	}
}

// widenKeys makes every key's owner tables wide, copying each member's
// score and stamp from its shard: a router that joins a cluster caches
// them for members on other nodes (a snapshot may have been loaded
// before). New keys are wide from then on.
func (r *Router) widenKeys() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, g := range r.keys {
		for i := range g.stripes {
			st := &g.stripes[i]
			st.mu.Lock()
			st.owner.widen()
			st.mu.Unlock()
		}
		g.src.v.Store(nil)
		g.narrowed.Store(false)
	}
}

// widen makes a narrow table wide: vals filled from the shards.
func (o *owners) widen() {
	if o.src == nil {
		return
	}
	o.vals = make([][]value, len(o.chunks))
	for c := range o.vals {
		o.vals[c] = make([]value, 1<<recordBits)
	}
	for i := 0; i < o.limit(); i++ {
		r := o.rec(uint32(i))
		if r.name().None() {
			continue
		}
		m := o.names.Get(r.name())
		v := o.src.value(r.shard, m, shard.Hash(m))
		*o.val(uint32(i)) = value{v.Score, v.Stamp}
	}
	o.src = nil
}

// eachCopy calls fn, until it returns false, for every member of a key
// with narrow owner tables whose copy was written at or after cut, reading
// the shards' slabs in order with every stripe of the key locked: the
// copies in the shards are then exactly the members' current ones (no
// handoff or move half done), and reading each member's copy through its
// record would cost a random lookup per member (BGSAVE's copy at 1M: 0.9 s
// against 0.1 s). It reports false, having done nothing, for a key no
// stripe of which is narrow (its records hold the values: walking every
// shard of a fine map for a few members would cost more), in cluster mode,
// or once a delete was dropped (a test hook): stale copies would be seen.
// fn runs under a shard's read lock and the key's stripe locks.
func (r *Router) eachCopy(k shard.Key, g *geoKey, cut int64, fn func(string, shard.Value) bool) bool {
	v := g.src.v.Load()
	if v == nil || !g.narrowed.Load() || r.hooks.dropped.Load() {
		return false
	}
	for i := range g.stripes {
		g.stripes[i].mu.Lock()
	}
	defer func() {
		for i := range g.stripes {
			g.stripes[i].mu.Unlock()
		}
	}()
	if g.dead {
		return true
	}
	for _, s := range v.shards {
		if !s.EachValue(v.key, cut, fn) {
			break
		}
	}
	return true
}
