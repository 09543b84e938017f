package router

// Replicas of batched writes. When shards have replicas (a View that
// answers ReplicaOf), a write is acknowledged only once both the primary
// and the replica hold it: the batch stores the primaries' copies first
// (conditional puts decide there), then sends the copies written to the
// replicas, one PutMany per node. Without replicas this costs nothing.

import (
	"context"
	"sync"

	"geoshard/shard"
)

// replicaViewer is a View that knows where each shard's replica is.
type replicaViewer interface {
	// ReplicaOf tells where a shard's replica is: in this process, on a
	// live peer, or nowhere (false, nil); filled says it has its copy of
	// the shard (writes go to it either way). Replication's signature:
	// should it change, this assertion stops compiling rather than
	// silently leaving replicas out.
	ReplicaOf(id shard.ID) (local bool, p Peer, filled bool)
}

// putReplicas stores on their shards' replicas the new copies the batch
// wrote; an item whose replica could not be written fails (its primary
// keeps the copy; the client hears the error).
func (r *Router) putReplicas(ctx context.Context, k shard.Key, items []batchItem) {
	rv, ok := r.cl.View().(replicaViewer)
	if !ok {
		return
	}
	groups := map[Peer][]int{}
	for i := range items {
		it := &items[i]
		if it.skip || it.err != nil {
			continue
		}
		switch local, p, _ := rv.ReplicaOf(it.to); {
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
