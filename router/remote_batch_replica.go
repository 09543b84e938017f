package router

// Replicas of batched writes. A write is acknowledged only once both the
// shard's primary and its replica hold it (as onShardWrite): the batch
// stores the primaries' copies first (conditional puts decide there),
// then sends the copies written to the replicas, one PutMany per node,
// under the same view. A replica of another view would be the wrong node:
// with the primary killed in between, the copy would be on the new
// replica but not on the promoted one, and a new replica's fill copies
// the primary before the copy got there. So a replica that says the view
// is stale gets nothing: the copy is written again to primary and replica
// under the view in force, as a write of its own.
// Without replicas (cluster-replicas 0) this costs nothing.

import (
	"context"
	"errors"

	"geoshard/shard"
)

// putReplicas stores on their shards' replicas in view v the new copies
// the batch wrote there; an item whose replica could not be written fails
// (its primary keeps the copy; the client hears the error).
func (r *Router) putReplicas(ctx context.Context, v View, k shard.Key, items []batchItem) {
	var idx []int
	for i := range items {
		if !items[i].skip && items[i].err == nil && !items[i].replicated {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return
	}
	r.putReplicasOnce(ctx, v, k, items, idx)
	for _, i := range idx {
		if it := &items[i]; errors.Is(it.err, ErrStale) {
			it.err = r.putBoth(ctx, k, it)
		}
	}
}

// putBoth writes an item's new copy to its shard's primary and replica
// under the view in force.
func (r *Router) putBoth(ctx context.Context, k shard.Key, it *batchItem) error {
	return r.putNewerBoth(ctx, it.to, k, it.e)
}

// putNewerBoth writes e to shard to's primary and replica under the view
// in force (onShardWrite), newest wins: a copy already decided, whose
// view moved on before it reached them both.
func (r *Router) putNewerBoth(ctx context.Context, to shard.ID, k shard.Key, e shard.Entry) error {
	return r.onShardWrite(ctx, to, func(s *shard.Shard) error {
		s.PutNewer(k, e)
		return nil
	}, func(ctx context.Context, p Peer) error {
		return p.Put(ctx, to, k, e)
	})
}

// putReplicasOnce sends items idx to their replicas in view v.
func (r *Router) putReplicasOnce(ctx context.Context, v View, k shard.Key, items []batchItem, idx []int) {
	groups := map[Peer][]int{}
	for _, i := range idx {
		it := &items[i]
		switch local, p, _ := v.ReplicaOf(it.to); {
		case replicaGone(v, it.to):
			it.err = errReplicaGone // stored on the primary alone: not acknowledged
		case local:
			it.err = r.pinned(v, func() error { r.shards[it.to].PutNewer(k, it.e); return nil })
		case p != nil:
			groups[p] = append(groups[p], i)
		}
	}
	r.putGroups(ctx, k, items, groups, true)
}
