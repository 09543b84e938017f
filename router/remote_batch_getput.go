package router

// The one-round-trip write of members whose current copy is not known
// here (a cold load; members last written through other nodes): each node
// is sent, in one message, the members to look up and, after the look-up,
// the new copies its shards get. The new copy goes where the position
// says (or, for a cached member, where hysteresis keeps it); a copy found
// elsewhere is then handed off as any other: new copy first, then the old
// one deleted. Only plain writes take this path: NX, XX, GT and LT must
// see the current copy before writing.

import (
	"context"

	"geoshard/shard"
)

// getPut writes the items idx, looking them up on every node in the same
// message that stores their new copies.
func (r *Router) getPut(ctx context.Context, v View, k shard.Key, items []batchItem, idx []int) {
	for _, i := range idx {
		it := &items[i]
		it.e = shard.NewEntry(it.member, it.score, it.stamp)
		it.to = r.place(it.cur.shard, it.exists, it.e.Lon, it.e.Lat)
	}
	plan := newPutPlan(v, items, idx)
	stamps := make([]int64, len(items))
	for _, i := range idx {
		stamps[i] = items[i].stamp
	}
	r.findMissing(k, items, idx, plan)
	plan.finish(ctx, r, k)
	for _, i := range idx {
		it := &items[i]
		it.stamp = stamps[i] // the copy stored has it; findMissing may have moved it on
		if it.err == nil {
			r.settleGetPut(ctx, k, it)
		}
	}
}

// settleGetPut finishes one member once its new copy is stored and its
// old one (if any) found: a new copy older than the old one is written
// again with a newer stamp; an old copy in another shard that hysteresis
// would have kept the member in gets the new position instead, and the
// copy just stored goes.
func (r *Router) settleGetPut(ctx context.Context, k shard.Key, it *batchItem) {
	it.live = it.exists && it.cur.stamp >= it.cut
	restamp := it.exists && it.cur.stamp >= it.stamp
	stay := it.exists && it.cur.shard != it.to && r.place(it.cur.shard, true, it.e.Lon, it.e.Lat) == it.cur.shard
	if !restamp && !stay {
		return // stored() hands off from the old shard, if another
	}
	stored, storedStamp := it.to, it.stamp
	if stay {
		it.to = it.cur.shard
	}
	it.stamp = r.stamp()
	it.e = shard.NewEntry(it.member, it.score, it.stamp)
	err := r.onShardWrite(ctx, it.to, func(s *shard.Shard) error {
		s.PutNewer(k, it.e)
		return nil
	}, func(ctx context.Context, p Peer) error {
		return p.Put(ctx, it.to, k, it.e)
	})
	switch {
	case err != nil && stay:
		// The copy stored first stands; stored() deletes the old one.
		it.to, it.stamp = stored, storedStamp
		it.e = shard.NewEntry(it.member, it.score, it.stamp)
	case err != nil:
		it.err = err
	case stay:
		now := r.leaveOld(ctx, stored, k, it.member, storedStamp, slot{shard: it.to, score: it.e.Score, stamp: it.stamp}, false)
		it.stamp, it.e = now.stamp, shard.NewEntry(it.member, it.score, now.stamp)
	}
}
