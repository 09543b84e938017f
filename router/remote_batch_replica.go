package router

// Replicas of batched writes. A write is acknowledged only once both the
// shard's primary and its replica hold it (as onShardWrite): the batch
// stores the primaries' copies first (conditional puts decide there),
// then sends the copies written to the replicas, one PutMany per node.
// Without replicas (cluster-replicas 0) this costs nothing.

import (
	"context"
	"errors"
	"sync"

	"geoshard/shard"
)

// putReplicas stores on their shards' replicas the new copies the batch
// wrote; an item whose replica could not be written fails (its primary
// keeps the copy; the client hears the error). A node that says our view
// is stale (replicas fill and move) gets its items again under a fresh
// view, once.
func (r *Router) putReplicas(ctx context.Context, k shard.Key, items []batchItem) {
	var idx []int
	for i := range items {
		if !items[i].skip && items[i].err == nil && !items[i].replicated {
			idx = append(idx, i)
		}
	}
	for attempt := 0; attempt < 2 && len(idx) > 0; attempt++ {
		r.putReplicasOnce(ctx, k, items, idx)
		var stale []int
		for _, i := range idx {
			if errors.Is(items[i].err, ErrStale) {
				items[i].err = nil
				stale = append(stale, i)
			}
		}
		if len(stale) == 0 || attempt == 1 {
			for _, i := range stale {
				items[i].err = ErrStale
			}
			return
		}
		r.cl.Refresh(ctx)
		idx = stale
	}
}

// putReplicasOnce sends items idx to their replicas under the view in force.
func (r *Router) putReplicasOnce(ctx context.Context, k shard.Key, items []batchItem, idx []int) {
	v := r.cl.View()
	groups := map[Peer][]int{}
	for _, i := range idx {
		it := &items[i]
		switch local, p, _ := v.ReplicaOf(it.to); {
		case local:
			r.shards[it.to].Put(k, it.e)
		case p != nil:
			groups[p] = append(groups[p], i)
		}
	}
	var wg sync.WaitGroup
	for p, idx := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.putGroup(ctx, p, k, items, idx, true)
		}()
	}
	wg.Wait()
}
