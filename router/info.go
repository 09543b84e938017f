package router

import (
	"cmp"
	"slices"

	"geoshard/shard"
)

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

// InfoLimit is how many shards, and how many borders, INFO and /metrics
// list at most: the busiest, with a count of the rest, so that what they
// build stays a few hundred kilobytes on a map of any size.
const InfoLimit = 256

// TopShards returns at most n shards, the busiest first (members, then
// writes and searches; ties in ID order), and how many were left out.
// members is ShardMembers' answer. With no more than n shards it gives
// them all, in ID order.
func (s *Stats) TopShards(members []int64, n int) (top []shard.ID, rest int) {
	ids := make([]shard.ID, len(s.Shards))
	for i := range ids {
		ids[i] = shard.ID(i)
	}
	if len(ids) <= n {
		return ids, 0
	}
	// Counters move while we sort: read each once.
	weight := make([]int64, len(ids))
	for i := range weight {
		weight[i] = s.Shards[i].Writes.Load() + s.Shards[i].Searches.Load()
		if i < len(members) {
			weight[i] += members[i]
		}
	}
	slices.SortStableFunc(ids, func(a, b shard.ID) int { return cmp.Compare(weight[b], weight[a]) })
	ids = ids[:n]
	slices.Sort(ids)
	return ids, len(s.Shards) - n
}
