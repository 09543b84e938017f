package router

// Replicas of batched writes. A write is acknowledged only once both the
// shard's primary and its replica hold it (as onShardWrite): the batch
// stores the primaries' copies first (conditional puts decide there),
// then sends the copies written to the replicas, one PutMany per node.
// Without replicas (cluster-replicas 0) this costs nothing.

import (
	"context"
	"sync"

	"geoshard/shard"
)

// putReplicas stores on their shards' replicas the new copies the batch
// wrote; an item whose replica could not be written fails (its primary
// keeps the copy; the client hears the error).
func (r *Router) putReplicas(ctx context.Context, k shard.Key, items []batchItem) {
	v := r.cl.View()
	groups := map[Peer][]int{}
	for i := range items {
		it := &items[i]
		if it.skip || it.err != nil {
			continue
		}
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
