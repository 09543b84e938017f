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
		keys, members := s.Expired(minStamp)
		for i, k := range keys {
			r.reclaimOne(shard.ID(id), k, members[i], minStamp(k))
		}
	}
	if r.cl != nil {
		r.sweepCache(t)
	}
	r.forgetEmpty()
}

// reclaimOne removes member's copy in shard id if it was written before
// cut, and forgets the member if that copy was its current one. The copy
// goes under the member's stripe lock, after a narrow record that names
// its slot (owners_slot.go): the slot may be reused as soon as the copy
// is gone, and the record's name is read through it.
func (r *Router) reclaimOne(id shard.ID, k shard.Key, member string, cut int64) {
	s := r.shards[id]
	h := shard.Hash(member)
	g, st := r.lockMemberHash(k, member, h, false)
	if g == nil {
		r.reclaimUnknown(id, k, member, cut, h)
		return
	}
	defer st.mu.Unlock()
	if g.current(k) != k {
		return // renamed since the shard listed it: the next reclaim lists it again
	}
	at, found := st.owner.find(member, h)
	found = found && st.owner.rec(at).shard == id
	if found && st.owner.src != nil {
		if st.owner.slotAt(at, member, h).stamp < cut {
			st.owner.delHash(member, h)
			g.entries.Add(-1)
			r.depart(g, member, id)
		}
		found = false
	}
	e, ok := s.DeleteHash(k, member, cut-1, h)
	if !ok {
		return
	}
	r.stats.Shards[id].Expired.Add(1)
	if found && st.owner.slotAt(at, member, h).stamp == e.Stamp {
		st.owner.delHash(member, h)
		g.entries.Add(-1)
		r.depart(g, member, id)
	}
}

// reclaimUnknown is reclaimOne for a key the router did not know: its
// copy may be a lost delete's. It is deleted under r.mu, so that no key
// that holds it, with records naming its slot, can come under that name
// meanwhile: a rename, or the router that replaced this one (Reload).
func (r *Router) reclaimUnknown(id shard.ID, k shard.Key, member string, cut int64, h uint64) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.retired || r.keys[k] != nil {
		return // the next reclaim looks again
	}
	if _, ok := r.shards[id].DeleteHash(k, member, cut-1, h); ok {
		r.stats.Shards[id].Expired.Add(1)
	}
}

// forgetEmpty drops the router's view of keys that no longer have members
// here: no cached owner, and no copy in this node's shards. A key with
// copies here must stay known: FLUSHALL and DEL drop the keys a node
// knows. A claim (cond.go, create.go) and its new copy share a stamp, so
// a node holding both kept the claim as the member's cached owner, and
// the claim's delete took the key's last owner: the key was forgotten
// while the new copy stayed, and a FLUSHALL left it
// (TestClusterDifferential, seeds 21 then 22). A writer that found the
// key before it went sees it marked dead and looks it up again.
func (r *Router) forgetEmpty() {
	var gone []shard.Key
	r.mu.RLock()
	for k, g := range r.keys {
		if g.whenNoOwners(nil) {
			gone = append(gone, k)
		}
	}
	r.mu.RUnlock()
	// The shards are asked with no router lock held: a shard calls the
	// router (minStamp) under its own lock.
	kept := gone[:0]
	for _, k := range gone {
		if !r.holdsLocally(k) {
			kept = append(kept, k)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range kept {
		if g := r.keys[k]; g != nil {
			g.whenNoOwners(func() {
				g.dead = true
				delete(r.keys, k)
			})
		}
	}
}

// whenNoOwners reports whether the key caches no member's owner, and then
// runs then (if not nil) with every stripe held: a writer adds an owner
// under its stripe once it has seen the key is not dead.
func (g *geoKey) whenNoOwners(then func()) bool {
	for i := range g.stripes {
		g.stripes[i].mu.Lock()
	}
	defer func() {
		for i := range g.stripes {
			g.stripes[i].mu.Unlock()
		}
	}()
	for i := range g.stripes {
		if g.stripes[i].owner.len() != 0 {
			return false
		}
	}
	if then != nil {
		then()
	}
	return true
}

// holdsLocally reports whether some shard of this node has a copy of k.
func (r *Router) holdsLocally(k shard.Key) bool {
	for _, s := range r.shards {
		if s.Len(k) > 0 {
			return true
		}
	}
	return false
}
