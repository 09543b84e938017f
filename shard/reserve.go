package shard

// Reserve makes room in k's set for n more members, so that putting them
// one by one never rehashes the name index on the way: a region map
// reload moves hundreds of thousands of members into a new shard, and
// growing the index of a set of that size rehashes every name at once,
// under the shard's lock and the mover's (tens to hundreds of
// milliseconds at 500,000 members). Reserved into a set that is still
// empty, as a reload's new shards are, it costs only the allocation.
func (s *Shard) Reserve(k Key, n int) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.setFor(k)
	st.items.reserve(n)
	st.byName.reserve(n)
}
