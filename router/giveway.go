package router

// A first write whose notice (fresh.go) is answered with a newer copy
// elsewhere deletes its own copy. That newer copy may be a later write
// that found this one and is handing the member off from it: the later
// write's look-ups go to every node at once, and the one of this copy's
// shard could arrive after the delete and find nothing there. The write
// then counted the member as added where it existed: GEOADD k p m answered
// 1 after another node's GEOADD k q m, sent before it, had answered 1
// (TestClusterGenerated, seed 303; TestClusterFirstWriteGivesWay: 17 and
// 26 of 400). So the node holding such a copy keeps it for a few seconds
// after the delete, with the stamp it gave way to, and answers it to a
// batch look-up (GETPUT) that misses the member; only the write whose new
// copy carries that stamp counts it as found (findMany), as it would have
// counted it a moment earlier. Any other write finds the newer copy
// itself, or nothing if that one is gone too.

import (
	"context"
	"slices"
	"strings"
	"sync"

	"geoshard/shard"
)

// gaveWay holds the copies deleted lately for a newer one, keyed by
// member, from one to two askWindow: longer than a write's look-ups take
// (one call timeout).
type gaveWay struct {
	mu     sync.Mutex
	copies recent[memberRef, Copy]
}

// GaveWayFor fills in, for the members a look-up of shards ids did not
// find (found[i] false), a copy of one of those shards deleted lately
// for a newer copy, with its By stamp.
func (r *Router) GaveWayFor(ids []shard.ID, k shard.Key, names []string, cs []Copy, found []bool) {
	g := &r.remote.gaveWay
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.copies.empty() {
		return
	}
	g.copies.rotate(now())
	for i, m := range names {
		if found[i] {
			continue
		}
		if c, ok := g.copies.get(memberRef{k, m}); ok && slices.Contains(ids, c.Shard) {
			cs[i], found[i] = c, true
		}
	}
}

// GiveWayLocal is DelLocal for a first write's copy that gave way to the
// copy stamped by: it keeps what it deletes for GaveWayFor.
func (r *Router) GiveWayLocal(ids []shard.ID, k shard.Key, member string, notAfter, by int64) int64 {
	for _, id := range ids {
		if e, ok := r.shards[id].Get(k, member); ok && e.Stamp <= notAfter {
			ref := memberRef{shard.Key{DB: k.DB, Name: strings.Clone(k.Name)}, strings.Clone(member)}
			g := &r.remote.gaveWay
			g.mu.Lock()
			g.copies.rotate(now())
			g.copies.put(ref, Copy{Shard: id, Score: e.Score, Stamp: e.Stamp, By: by})
			g.mu.Unlock()
		}
	}
	return r.DelLocal(ids, k, member, notAfter)
}

// giveWay deletes this node's first write of member from shard id, as
// deleteCopy does, once a newer copy stamped by was found elsewhere.
func (r *Router) giveWay(ctx context.Context, id shard.ID, k shard.Key, member string, notAfter, by int64) {
	err := r.shardWrite(ctx, id, func(*shard.Shard) error {
		r.GiveWayLocal([]shard.ID{id}, k, member, notAfter, by)
		return nil
	}, func(ctx context.Context, p Peer) error {
		pb, ok := p.(PeerBatcher)
		if !ok {
			return errNoBatch
		}
		_, err := pb.GiveWay(ctx, []shard.ID{id}, k, member, notAfter, by)
		return err
	}, false)
	if err != nil {
		r.remoteFailed("first write's delete", err)
	}
}
