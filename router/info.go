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
	keys := r.keyList()
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
	// Shards of no map in force count only while they hold members: the
	// previous map's during a reload's move.
	first, own := s.regions.Own()
	ids := make([]shard.ID, 0, len(s.Shards))
	for i := range s.Shards {
		if (i >= first && i < first+own) || (i < len(members) && members[i] > 0) {
			ids = append(ids, shard.ID(i))
		}
	}
	if len(ids) <= n {
		return ids, 0
	}
	// Counters move while we sort: read each once.
	weight := make([]int64, len(s.Shards))
	for _, id := range ids {
		weight[id] = s.Shards[id].Writes.Load() + s.Shards[id].Searches.Load()
		if int(id) < len(members) {
			weight[id] += members[id]
		}
	}
	slices.SortStableFunc(ids, func(a, b shard.ID) int { return cmp.Compare(weight[b], weight[a]) })
	rest = len(ids) - n
	ids = ids[:n]
	slices.Sort(ids)
	return ids, rest
}

// keyList returns the keys the router knows now, so that a walk over them
// does not hold r.mu.
func (r *Router) keyList() []shard.Key {
	r.mu.RLock()
	defer r.mu.RUnlock()
	keys := make([]shard.Key, 0, len(r.keys))
	for k := range r.keys {
		keys = append(keys, k)
	}
	return keys
}
