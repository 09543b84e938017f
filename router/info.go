package router

import "geoshard/shard"

// ShardMembers counts, for each shard, the member copies it holds over
// every key of every database. A copy that a handoff in flight or a lost
// delete left behind counts until it is deleted or reclaimed: it is what
// the shard stores and searches. INFO's # Shards section reads it; it
// costs one lookup per key and shard, not a walk over members.
func (r *Router) ShardMembers() []int64 {
	r.mu.RLock()
	keys := make([]shard.Key, 0, len(r.keys))
	for k := range r.keys {
		keys = append(keys, k)
	}
	r.mu.RUnlock()
	counts := make([]int64, len(r.shards))
	for i, s := range r.shards {
		for _, k := range keys {
			counts[i] += int64(s.Len(k))
		}
	}
	return counts
}
