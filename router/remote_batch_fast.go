package router

// The fast path of a cluster write: a member whose cached copy is live and
// stays in its shard is written by that shard's node in one message, the
// node deciding NX, XX, GT and LT against the copy it holds. The cache
// here knows where a member is, not its current score (writes through
// other nodes that stay in one shard do not tell this node), so the one
// holding the copy must decide.

import (
	"context"
	"errors"
	"sync"

	"geoshard/shard"
)

// PutIf outcomes, per member.
const (
	PutIfMissing = iota // no live copy in the shard: nothing written
	PutIfSkipped        // the flags left the copy as it was
	PutIfWritten        // written; Old is the score it replaced
)

// PutIfResult is what a conditional put did to one member.
type PutIfResult struct {
	Status int
	Old    float64
}

// PutIfLocal writes e to local shard id if the member has a copy there
// not older than cut and the flags allow it; the flags are decided
// against that copy. NX always leaves a live copy alone. A copy as new as
// e or newer (another node's clock ahead, or this write arriving late)
// counts as missing: the writer looks the member up and stamps anew.
func (r *Router) PutIfLocal(id shard.ID, k shard.Key, e shard.Entry, f AddFlags, cut int64) PutIfResult {
	s := r.shards[id]
	cur, ok := s.Get(k, e.Member)
	switch {
	case !ok || cur.Stamp < cut || cur.Stamp >= e.Stamp:
		return PutIfResult{Status: PutIfMissing}
	case f.NX, f.GT && !(e.Score > cur.Score), f.LT && !(e.Score < cur.Score):
		return PutIfResult{Status: PutIfSkipped, Old: cur.Score}
	}
	// As PutLocal, less the write count: the writing node counts it. Only
	// over the copy just read: a newer one stored meanwhile stays.
	if !s.PutIf(k, e, cur.Stamp) {
		return PutIfResult{Status: PutIfMissing}
	}
	r.cacheOwner(k, e.Member, slot{shard: id, score: e.Score, stamp: e.Stamp})
	return PutIfResult{Status: PutIfWritten, Old: cur.Score}
}

// putIfFast sends the items whose cached copy is live and whose new
// position keeps them in its shard to that shard's node as conditional
// puts, one message per node, and settles them; the items it returns
// (missing there, or on a node that failed) take the slow path.
func (r *Router) putIfFast(ctx context.Context, v View, k shard.Key, items []batchItem, f AddFlags) (slow []int) {
	groups := map[Peer][]int{}
	cut := int64(0)
	for i := range items {
		it := &items[i]
		fast := it.exists && it.cur.stamp >= it.cut
		if fast { // the slow paths make their own entries (a cold load: all of them)
			it.e = shard.NewEntry(it.member, it.score, it.stamp)
			fast = r.place(it.cur.shard, true, it.e.Lon, it.e.Lat) == it.cur.shard
		}
		p := v.Peer(it.cur.shard)
		switch {
		case !fast:
			slow = append(slow, i)
		case replicaGone(v, it.cur.shard):
			it.err = errReplicaGone // no write on the primary alone (replica_gone.go)
		case v.Local(it.cur.shard):
			var res PutIfResult
			if r.pinned(v, func() error { res = r.PutIfLocal(it.cur.shard, k, it.e, f, it.cut); return nil }) != nil {
				slow = append(slow, i) // the view moved on: looked up anew
				continue
			}
			r.settleFast(it, res)
			if it.fastMiss {
				slow = append(slow, i)
			}
		case p == nil:
			slow = append(slow, i)
		default:
			groups[p] = append(groups[p], i)
			cut = max(cut, it.cut)
		}
	}
	if len(groups) == 1 { // most often: no goroutine to wait for
		for p, idx := range groups {
			return append(slow, r.putIfGroup(ctx, p, k, items, idx, f, cut)...)
		}
	}
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	for p, idx := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			miss := r.putIfGroup(ctx, p, k, items, idx, f, cut)
			mu.Lock()
			slow = append(slow, miss...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return slow
}

// putIfGroup sends one node its conditional puts and returns the items
// that must take the slow path.
func (r *Router) putIfGroup(ctx context.Context, p Peer, k shard.Key, items []batchItem, idx []int,
	f AddFlags, cut int64) (slow []int) {
	ids := make([]shard.ID, len(idx))
	es := make([]shard.Entry, len(idx))
	for j, i := range idx {
		ids[j], es[j] = items[i].cur.shard, items[i].e
	}
	var (
		res []PutIfResult
		err = errNoBatch
	)
	if pb, ok := p.(PeerBatcher); ok {
		res, err = pb.PutIfMany(ctx, k, ids, es, f, cut)
	}
	if err == nil && len(res) != len(idx) {
		err = errors.New("conditional put: answers do not match the members")
	}
	if err != nil {
		// A stale view or a node that failed: the slow path looks the
		// members up again and reports what cannot be written.
		r.remoteFailed("conditional put", err)
		return idx
	}
	for j, i := range idx {
		it := &items[i]
		r.settleFast(it, res[j])
		if it.fastMiss {
			slow = append(slow, i)
		}
	}
	return slow
}

// settleFast records what a conditional put did to an item.
func (r *Router) settleFast(it *batchItem, res PutIfResult) {
	switch res.Status {
	case PutIfMissing:
		it.fastMiss, it.exists = true, false
		return
	case PutIfSkipped:
		it.skip = true
	}
	it.done, it.live, it.to = true, true, it.cur.shard
	it.cur.score = res.Old
}
