package shard

// GetEach calls fn with the index and copy of each member of members that
// has a copy in this shard: Get for many members of one key, under one
// read lock, the key's set found once. A batched write looks up hundreds
// of members on every node; one lock and one key lookup per member and
// shard were a third of that cost.
func (s *Shard) GetEach(k Key, members []string, fn func(i int, e Entry)) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.sets[k]
	if st == nil {
		return
	}
	for i, m := range members {
		if it, ok := st.get(m); ok {
			fn(i, st.entry(it))
		}
	}
}
