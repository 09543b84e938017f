package router

// Counts in cluster mode: every node counts its own copies and answers
// one number, so ZCARD, ZCOUNT, EXISTS and TYPE cost one small message per
// node instead of carrying every member across the bus.

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"

	"geoshard/shard"
)

// PeerCounter is a Peer that counts a key's members in its shards. It is
// an interface of its own so the Peer interface, which other work extends
// too, stays as it is.
type PeerCounter interface {
	// Count returns how many copies of k the node's shards ids hold with
	// a score within [min, max] and a stamp not older than cut (as
	// CountLocal), and the node's arrival marks of k (ArrivalsLocal).
	Count(ctx context.Context, ids []shard.ID, k shard.Key, min, max Bound, cut int64) (CountReply, error)
	// Left returns how many of the old copies marks point to the node's
	// shards hold and Count counted (as LeftLocal).
	Left(ctx context.Context, k shard.Key, min, max Bound, cut int64, marks []Arrival) (int64, error)
}

// CountReply is one node's part of a count.
type CountReply struct {
	N     int64
	Marks []Arrival
	Whole bool // false: the node dropped marks that may matter (maxArrivals)
}

// errNoCount is a peer that cannot count (not one of cluster's peers).
var errNoCount = errors.New("peer cannot count")

// TryCount returns how many members of k have a score within [min, max]
// (ZCOUNT). In cluster mode it fails when some shard could not be counted;
// the count then is the others' sum, which ZCOUNT does not answer.
func (r *Router) TryCount(k shard.Key, min, max Bound) (int, error) {
	if r.cl != nil {
		return r.countCluster(k, min, max)
	}
	ms, err := r.TryRange(k, min, max, false, 0, -1)
	return len(ms), err
}

// countCluster adds up every node's count of k's members within [min,
// max]. Each shard is asked of the one node the view names for it, so a
// copy is counted once per shard. A member with copies in two shards is a
// handoff whose delete has not landed: if it failed, the handoff marked
// the new copy (arrivals.go) and a second round takes the old copies the
// marks point to off; the node holding an old copy may also know from its
// owner cache that a newer copy exists and leave it out (both rounds ask
// the same thing of it).
func (r *Router) countCluster(k shard.Key, min, max Bound) (int, error) {
	cut := r.minStamp(r.key(k, false), now())
	ctx, cancel := r.callCtx()
	defer cancel()
	var (
		total atomic.Int64
		mu    sync.Mutex
		marks = map[arrivalRef]int64{}
		whole = true
	)
	keep := func(ms []Arrival, all bool) {
		mu.Lock()
		defer mu.Unlock()
		whole = whole && all
		for _, m := range ms {
			ref := arrivalRef{m.Member, m.From}
			if m.Stamp > marks[ref] {
				marks[ref] = m.Stamp
			}
		}
	}
	keep(r.ArrivalsLocal(k, cut))
	err := r.onNodes(ctx, nil, func(ids []shard.ID) {
		total.Add(r.CountLocal(ids, k, min, max, cut))
	}, func(ctx context.Context, p Peer, ids []shard.ID) error {
		pc, ok := p.(PeerCounter)
		if !ok {
			return unread(ids, errNoCount)
		}
		c, err := pc.Count(ctx, ids, k, min, max, cut)
		total.Add(c.N)
		keep(c.Marks, c.Whole || err != nil)
		return unread(ids, err)
	})
	if err != nil {
		// The others' sum goes with the error: a key some live node
		// holds exists (EXISTS, TYPE) even when another did not answer.
		return int(total.Load()), r.readFailed("count", err)
	}
	if !whole {
		// A node dropped marks: gather the members and dedupe by name.
		es, _, err := r.scanCluster(k, min, max, false, cut, math.MaxInt)
		return len(es), err
	}
	n := total.Load()
	if len(marks) > 0 {
		left, err := r.countLeft(ctx, k, min, max, cut, marks)
		n -= left
		if err != nil {
			return int(n), r.readFailed("count", err)
		}
	}
	return int(n), nil
}

// countLeft asks the nodes of the shards marks point to how many of the
// old copies they still hold and counted.
func (r *Router) countLeft(ctx context.Context, k shard.Key, min, max Bound, cut int64,
	marks map[arrivalRef]int64) (int64, error) {
	byShard := map[shard.ID][]Arrival{}
	var ids []shard.ID
	for ref, s := range marks {
		if int(ref.from) >= len(r.shards) {
			continue
		}
		if _, ok := byShard[ref.from]; !ok {
			ids = append(ids, ref.from)
		}
		byShard[ref.from] = append(byShard[ref.from], Arrival{Member: ref.member, From: ref.from, Stamp: s})
	}
	of := func(ids []shard.ID) []Arrival {
		var out []Arrival
		for _, id := range ids {
			out = append(out, byShard[id]...)
		}
		return out
	}
	var left atomic.Int64
	err := r.onNodes(ctx, ids, func(ids []shard.ID) {
		left.Add(r.LeftLocal(k, min, max, cut, of(ids)))
	}, func(ctx context.Context, p Peer, ids []shard.ID) error {
		pc, ok := p.(PeerCounter)
		if !ok {
			return unread(ids, errNoCount)
		}
		n, err := pc.Left(ctx, k, min, max, cut, of(ids))
		left.Add(n)
		return unread(ids, err)
	})
	return left.Load(), err
}

// LeftLocal counts the old copies marks point to that this node holds and
// CountLocal counts: in range, not older than cut, older than the mark.
func (r *Router) LeftLocal(k shard.Key, min, max Bound, cut int64, marks []Arrival) int64 {
	g := r.key(k, false)
	var n int64
	for _, m := range marks {
		if int(m.From) >= len(r.shards) {
			continue
		}
		e, ok := r.shards[m.From].Get(k, m.Member)
		if ok && e.Stamp >= cut && e.Stamp < m.Stamp && min.below(e.Score) && max.above(e.Score) &&
			!r.supersededHere(g, m.From, e) {
			n++
		}
	}
	return n
}

// CountLocal counts the copies of k in local shards ids with a score
// within [min, max] and a stamp not older than cut, leaving out a copy
// when this node knows a newer one of the same member in another shard:
// that copy is the member's current one and is counted where it is.
func (r *Router) CountLocal(ids []shard.ID, k shard.Key, min, max Bound, cut int64) int64 {
	g := r.key(k, false)
	var n int64
	for _, id := range ids {
		if int(id) >= len(r.shards) {
			continue
		}
		r.shards[id].Ascend(k, min.Score, cut, func(e shard.Entry) bool {
			if !max.above(e.Score) {
				return false
			}
			if min.below(e.Score) && !r.supersededHere(g, id, e) {
				n++
			}
			return true
		})
	}
	return n
}

// supersededHere reports whether the owner cache names a newer copy of
// e's member in a shard other than id.
func (r *Router) supersededHere(g *geoKey, id shard.ID, e shard.Entry) bool {
	if g == nil {
		return false
	}
	st := r.stripe(g, e.Member)
	st.mu.Lock()
	cur, ok := st.owner.get(e.Member)
	st.mu.Unlock()
	return ok && cur.shard != id && cur.stamp > e.Stamp
}
