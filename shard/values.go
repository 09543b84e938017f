package shard

// ValuesHash reads the score and stamp of several members' copies (hs[i]
// is members[i]'s Hash) under one read lock and one look-up of the key,
// calling fn for each in order: GEOPOS, GEOHASH and ZMSCORE of many
// members of a big key read them here rather than one call at a time.
// fn runs under the shard's read lock.
func (s *Shard) ValuesHash(k Key, members []string, hs []uint64, fn func(i int, v Value, ok bool)) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.sets[k]
	for i, m := range members {
		if st == nil {
			fn(i, Value{}, false)
			continue
		}
		at, ok := st.byName.findHash(m, hs[i])
		if !ok {
			fn(i, Value{}, false)
			continue
		}
		it := st.items.at(at)
		fn(i, Value{it.score, it.stamp}, true)
	}
}
