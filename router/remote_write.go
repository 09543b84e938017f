package router

// Writes in cluster mode: the owner table is a cache there, kept current
// by what other nodes send this one.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"geoshard/shard"
)

// findMember returns the newest live copy of a member over every shard of
// the cluster: the owner table is only a cache here, since members may
// have been written through other nodes. It also returns the error of a
// shard that could not be asked; the caller counts it.
func (r *Router) findMember(k shard.Key, member string, cut int64) (slot, bool, error) {
	ctx, cancel := r.callCtx()
	defer cancel()
	var (
		mu    sync.Mutex
		best  slot
		found bool
	)
	keep := func(s slot) {
		mu.Lock()
		// Of a moved copy and its claim (same stamp), the moved one.
		if !found || s.stamp > best.stamp || s.stamp == best.stamp && r.claimed(best) && !r.claimed(s) {
			best, found = s, true
		}
		mu.Unlock()
	}
	err := r.onNodes(ctx, nil, func(ids []shard.ID) {
		for _, id := range ids {
			if e, ok := r.shards[id].Get(k, member); ok && e.Stamp >= cut {
				keep(slot{shard: id, score: e.Score, stamp: e.Stamp})
			}
		}
	}, func(ctx context.Context, p Peer, ids []shard.ID) error {
		c, ok, err := p.Get(ctx, ids, k, member, cut)
		if ok {
			keep(c.slot())
		}
		return unread(ids, err)
	})
	if found {
		r.observe(best.stamp)
	}
	return best, found, err
}

// TryAdd is Add that says when the write could not be placed: in cluster
// mode the shard's node may be down or not answering, and the client must
// hear so instead of being told the position is stored.
func (r *Router) TryAdd(k shard.Key, member string, score float64, f AddFlags) (added, changed bool, err error) {
	if r.cl == nil {
		added, changed = r.Add(k, member, score, f)
		return added, changed, nil
	}
	return r.addCluster(k, member, score, f, nil)
}

// addCluster is Add when members may live on other nodes: the current
// copy comes from the cache, or from every shard when the cache has none.
// It fails, changing nothing, when the new copy cannot be stored. No lock
// others need is held across its remote calls: only this member's
// other writes through this node wait for it (hold).
func (r *Router) addCluster(k shard.Key, member string, score float64, f AddFlags, inc *increment) (added, changed bool, err error) {
	release := r.hold(k, member)
	defer release()
	g, st := r.lockMember(k, member, true)
	stamp := r.stamp()
	cut := r.minStamp(g, stamp)
	cur, exists := st.owner.get(member)
	big := g.big.Load()
	st.mu.Unlock()
	// An increment sums over the shard's copy, never the cache's.
	fromCache := exists && cur.stamp >= cut && inc == nil
	// NX, XX, GT, LT and increments judge the copy they read: the write is
	// stored only while that copy is still the member's (putCond).
	cond := inc != nil || f != AddFlags{}
	ctx, cancel := r.callCtx()
	defer cancel()
	var e shard.Entry
	var to shard.ID
	claimed := false // the move's old copy is this write's claim (cond.go)
	for attempt := 0; ; attempt++ {
		if !fromCache {
			if inc == nil {
				cur, exists, err = r.lookUp(k, member, cut, cur, exists, e.Stamp, cond)
			} else {
				cur, exists, err = inc.read(r, k, member, cut)
			}
			if err != nil {
				return false, false, err
			}
			if exists && cur.stamp >= stamp {
				stamp = r.stamp() // observed a newer stamp from another clock
			}
		}
		live := exists && cur.stamp >= cut
		if cond && live && r.claimed(cur) && attempt < condAttempts {
			time.Sleep(claimWait) // another node is moving the member (cond.go)
			fromCache = false
			continue
		}
		if inc != nil && !inc.apply(&score, live, cur) || flagsRefuse(f, live, score, cur) {
			if fromCache {
				// The cache knows where the member is, not the score
				// another node wrote since: refuse on the copy itself.
				fromCache = false
				continue
			}
			return false, false, nil
		}
		if score == 0 && !big {
			score = 0 // a listpack stores -0 as 0
		}
		e = shard.NewEntry(member, score, stamp)
		to = r.place(cur.shard, live, e.Lon, e.Lat)
		r.mayMove(k, exists && cur.shard != to, member) // counts name it (arrivals.go)
		if err = r.handoffAway(r.cl.View(), cur.shard, to, live); err != nil {
			break // the old copy could not be deleted everywhere (away_deletes.go)
		}
		if cond {
			claimed, err = r.putCond(ctx, k, e, live, cur, to, cut)
			if errors.Is(err, ErrStaleCopy) && attempt < condAttempts {
				fromCache, stamp = false, r.stamp()
				continue
			}
			break
		}
		// The cache is confirmed by the shard it names (owner_check.go).
		var expect int64
		switch {
		case !fromCache || attempt > 0:
		case to == cur.shard:
			expect = cur.stamp
		default:
			if ok, _ := r.cachedCurrent(ctx, k, member, cur); !ok {
				fromCache = false
				continue
			}
		}
		err = r.putChecked(ctx, to, k, e, expect)
		if errors.Is(err, ErrStaleCopy) && attempt == 0 {
			fromCache, stamp = false, r.stamp()
			continue
		}
		break
	}
	if err != nil {
		// The old copy, if any, stays and keeps the member visible.
		r.remoteFailed("put", err)
		r.failedMove(k, exists && cur.shard != to, member, e.Stamp) // arrivals.go
		return false, false, fmt.Errorf("shard %s could not be written (%w); position not stored", r.regions.Name(to), err)
	}
	live := exists && cur.stamp >= cut
	r.stats.Shards[to].Writes.Add(1)
	now := slot{shard: to, score: score, stamp: e.Stamp}
	if exists && cur.shard != to {
		r.stats.Shards[cur.shard].HandoffsOut.Add(1)
		r.stats.Shards[to].HandoffsIn.Add(1)
		r.stats.Border(cur.shard, to).Handoffs.Add(1)
		if claimed { // the claim exactly: a newer write over it stays
			r.leaveBy(ctx, cur.shard, k, member, &now, true, func() (bool, error) {
				return r.dropClaim(ctx, cur.shard, k, member, now) // create.go
			})
		} else {
			now = r.leaveOld(ctx, cur.shard, k, member, e.Stamp-1, now, true) // arrivals.go
		}
	}
	r.remember(k, member, now)
	if !cond && firstWrite(exists, live, cur.shard, to) && r.local(to) && r.storedHere(member) {
		r.fresh(k, []freshCopy{{member: member, s: now}}) // a first write another node may race (fresh.go)
	}
	return !live, live && cur.score != score, nil
}

// remember records this node's own write in the owner cache, unless a
// newer copy was announced while the write was out.
func (r *Router) remember(k shard.Key, member string, s slot) {
	r.rememberIn(nil, k, member, shard.Hash(member), s)
}

// rememberIn is remember for a member whose shard.Hash is h, in g, the
// key's view the caller looked up (nil: none yet); it returns the view in
// force (lockIn), for the batch's next member.
func (r *Router) rememberIn(g *geoKey, k shard.Key, member string, h uint64, s slot) *geoKey {
	g, st := r.lockIn(g, k, member, h)
	defer st.mu.Unlock()
	at, cur, ok := st.owner.lookup(member, h)
	switch {
	case ok && cur.stamp > s.stamp:
	case ok:
		st.owner.setAt(at, s)
	default:
		g.entries.Add(1)
		st.owner.add(member, h, s)
	}
	return g
}

// lockIn locks member's stripe (h is its shard.Hash) in g, the key's view
// a batch looked up once (nil: none yet), and returns the view in force:
// another one when g was dropped meanwhile (a DEL or FLUSH, or the reclaim
// of an empty key). lockMember looked the key up in the router's map, under
// its lock, for every member of a batch, twice.
func (r *Router) lockIn(g *geoKey, k shard.Key, member string, h uint64) (*geoKey, *stripe) {
	if g != nil {
		st := &g.stripes[stripeOfHash(h)]
		st.mu.Lock()
		if !g.dead {
			return g, st
		}
		st.mu.Unlock()
	}
	return r.lockMemberHash(k, member, h, true)
}

// memberRef names one member of one key.
type memberRef struct {
	k      shard.Key
	member string
}

// hold makes this node's cluster writes of one member wait for each
// other, so they reach the shards in the order they were stamped; the
// returned function lets the next one go. Unlike a stripe lock, it holds
// up no other member while a remote call is out.
func (r *Router) hold(k shard.Key, member string) (release func()) {
	ref := memberRef{k, member}
	for {
		r.remote.inflightMu.Lock()
		busy, ok := r.remote.inflight[ref]
		if !ok {
			if r.remote.inflight == nil {
				r.remote.inflight = make(map[memberRef]chan struct{})
			}
			done := make(chan struct{})
			r.remote.inflight[ref] = done
			r.remote.inflightMu.Unlock()
			return func() {
				r.remote.inflightMu.Lock()
				delete(r.remote.inflight, ref)
				r.remote.inflightMu.Unlock()
				close(done)
			}
		}
		r.remote.inflightMu.Unlock()
		<-busy
	}
}

// announceOwner tells every other node where a member went after a
// handoff. Without it, a node that wrote the member earlier would still
// think it in the old shard, and its next write would leave the new copy
// behind, stale, where searches near it would find the member twice
// (deduped) or at an old position (where only that shard is asked).
//
// It returns the stamp of the newest copy a node holds in another shard
// that is newer than s (dropOlder).
func (r *Router) announceOwner(ctx context.Context, k shard.Key, member string, s slot) int64 {
	if r.remote.dropNotices.Load() {
		return 0
	}
	var newer newestStamp
	err := r.onAllNodes(ctx, func() { newer.keep(r.dropOlder(k, member, s)) }, func(ctx context.Context, p Peer) error {
		n, err := p.Owner(ctx, k, member, s.copy())
		newer.keep(n)
		return err
	})
	if err != nil {
		r.remoteFailed("announce owner", err)
	}
	return newer.Load()
}

// deleteCopy removes the old copy after a handoff; if its node cannot be
// reached, the position TTL removes it later. It returns the stamp of the
// copy the shard's primary held (DelLocal); the error says the copy may
// be left (leaveOld marks it for counts).
func (r *Router) deleteCopy(ctx context.Context, id shard.ID, k shard.Key, member string, notAfter int64) (int64, error) {
	var held newestStamp
	err := r.shardWrite(ctx, id, func(s *shard.Shard) error {
		held.keep(r.DelLocal([]shard.ID{id}, k, member, notAfter))
		return nil
	}, func(ctx context.Context, p Peer) error {
		n, err := p.Del(ctx, []shard.ID{id}, k, member, notAfter)
		held.keep(n)
		return err
	}, false)
	if err != nil {
		r.remoteFailed("handoff delete", err)
	}
	return held.Load(), err
}

// removeCluster deletes every copy of a member on every node. It fails
// when a copy may be left: a shard holding one has a holder away
// (away_deletes.go), or a holder did not answer.
func (r *Router) removeCluster(k shard.Key, member string) (bool, error) {
	release := r.hold(k, member)
	defer release()
	ctx, cancel := r.callCtx()
	defer cancel()
	ids, away := r.splitAway(r.cl.View())
	if len(away) > 0 {
		// An expired copy counts too, as in keysAway.
		switch held, err := r.memberIn(ctx, away, k, member, 0); {
		case err != nil:
			return false, r.awayRefused("remove", away, err)
		case len(held) > 0:
			return false, r.awayRefused("remove", held, nil)
		}
	}
	g, st := r.lockMember(k, member, true)
	if _, ok := st.owner.get(member); ok {
		st.owner.del(member)
		g.entries.Add(-1)
	}
	st.mu.Unlock()
	var newest newestStamp
	// Only primaries answer for removed: a delete reaches a shard's
	// replica and primary in either order against another node's write,
	// so a replica may have taken a copy its primary never held by then,
	// or was already told to drop (TestClusterCreateWhileRemoved). A
	// sweep that found nothing may have fallen across a handoff by
	// another node, as findLive's read may, and left the member at its
	// new place: it sweeps again (TestClusterMoveWhileRemoved).
	var err error
	for try := 1; ; try++ {
		err = r.onHolders(ctx, ids, func(ids []shard.ID) {
			newest.keep(r.DelLocal(ids, k, member, math.MaxInt64))
		}, func(ctx context.Context, p Peer, ids []shard.ID) error {
			s, err := p.Del(ctx, ids, k, member, math.MaxInt64)
			newest.keep(s)
			return unread(ids, err)
		})
		if newest.Load() > 0 || err != nil || try == absentReads {
			break
		}
	}
	n := newest.Load()
	removed := n > 0 && n >= r.minStamp(g, now())
	if err != nil {
		return removed, r.shardsFailed("remove", "written", err)
	}
	return removed, nil
}

// sweepCache forgets cached owners older than the position TTL: in
// cluster mode the cache also holds members whose copy lives elsewhere,
// which no local reclaim would ever remove.
func (r *Router) sweepCache(t int64) {
	r.mu.RLock()
	keys := make([]*geoKey, 0, len(r.keys))
	for _, g := range r.keys {
		keys = append(keys, g)
	}
	r.mu.RUnlock()
	for _, g := range keys {
		cut := r.minStamp(g, t)
		if cut == 0 {
			continue
		}
		for i := range g.stripes {
			st := &g.stripes[i]
			st.mu.Lock()
			for m, s := range st.owner.all() {
				if s.stamp < cut {
					st.owner.del(m)
					g.entries.Add(-1)
				}
			}
			st.mu.Unlock()
		}
	}
}

// cacheOwner records, on the node that stores a copy, where the member now
// is, so its own owner cache follows writes made through other nodes.
// Waiting for the stripe is safe: no writer holds one across a remote call.
func (r *Router) cacheOwner(k shard.Key, member string, s slot) {
	g := r.key(k, true)
	st := r.stripe(g, member)
	st.mu.Lock()
	defer st.mu.Unlock()
	if g.dead {
		return
	}
	cur, ok := st.owner.get(member)
	if ok && cur.stamp >= s.stamp {
		return
	}
	if !ok {
		g.entries.Add(1)
	}
	st.owner.set(member, s)
	r.observe(s.stamp)
}

// uncacheOwner forgets a cached owner that a delete made stale.
func (r *Router) uncacheOwner(k shard.Key, member string, notAfter int64) {
	g := r.key(k, false)
	if g == nil {
		return
	}
	st := r.stripe(g, member)
	st.mu.Lock()
	defer st.mu.Unlock()
	if cur, ok := st.owner.get(member); ok && cur.stamp <= notAfter {
		st.owner.del(member)
		g.entries.Add(-1)
	}
}

// ClearShard removes the copies a shard holds from before cut. A node
// that gains a shard may still hold copies from an earlier time it owned
// it, which the pings since went elsewhere; a node that loses one keeps
// copies nobody asks for. Either way they go, and the shard refills from
// the next pings.
func (r *Router) ClearShard(id shard.ID, cut int64) {
	r.shards[id].Reclaim(func(shard.Key) int64 { return cut }, func(k shard.Key, e shard.Entry) {
		g := r.key(k, false)
		if g == nil {
			return
		}
		st := r.stripe(g, e.Member)
		st.mu.Lock()
		if cur, ok := st.owner.get(e.Member); ok && cur.shard == id && cur.stamp == e.Stamp {
			st.owner.del(e.Member)
			g.entries.Add(-1)
		}
		st.mu.Unlock()
	})
}
