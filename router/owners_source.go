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
		r.narrowStripe(g, st)
	}
}

// narrowStripe turns a stripe's table narrow (owners.narrow) and forgets
// the members whose copies were gone. The caller holds the stripe's lock.
func (r *Router) narrowStripe(g *geoKey, st *stripe) {
	for _, l := range st.owner.narrow(&g.src) {
		g.entries.Add(-1)
		r.depart(g, l.member, l.shard)
	}
	g.narrowed.Store(true)
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
