package cluster

// ShardMembers counts, for each shard, the members whose current copy it
// holds, over every key of every database. Copies a handoff or a lost
// delete left behind are not counted, nor are positions past their TTL.
// INFO's # Shards section reads it; it walks every member, so it is meant
// for occasional reads, not for a hot path.
func (r *Router) ShardMembers() []int64 {
	counts := make([]int64, len(r.shards))
	r.mu.RLock()
	keys := make([]*geoKey, 0, len(r.keys))
	for _, g := range r.keys {
		keys = append(keys, g)
	}
	r.mu.RUnlock()
	t := now()
	for _, g := range keys {
		cut := r.minStamp(g, t)
		for i := range g.stripes {
			st := &g.stripes[i]
			st.mu.Lock()
			for _, s := range st.owner {
				if s.stamp >= cut && int(s.shard) < len(counts) {
					counts[s.shard]++
				}
			}
			st.mu.Unlock()
		}
	}
	return counts
}
