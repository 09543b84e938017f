package shard

import "slices"

// Reserve makes room in k's set for n more members, so that putting them
// one by one never grows the slab or rehashes the name index on the way:
// a region map reload moves hundreds of thousands of members into a new
// shard, and growing a set of that size copies its slab and rehashes
// every name at once, under the shard's lock and the mover's (tens to
// hundreds of milliseconds at 500,000 members). Reserved into a set that
// is still empty, as a reload's new shards are, it costs only the
// allocation.
func (s *Shard) Reserve(k Key, n int) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.setFor(k)
	st.items = slices.Grow(st.items, n)
	st.names.reserve(n)
}
