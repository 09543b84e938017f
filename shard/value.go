package shard

// Value is what a member's copy holds besides its name: the router keeps
// no copy of it for the members of its own shards and reads it here.
type Value struct {
	Score float64
	Stamp int64
}

// ValueHash returns the score and stamp of the member's copy (h is the
// member's Hash), without building an Entry.
func (s *Shard) ValueHash(k Key, member string, h uint64) (Value, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.sets[k]
	if st == nil {
		return Value{}, false
	}
	at, ok := st.byName.findHash(member, h)
	if !ok {
		return Value{}, false
	}
	it := st.items.at(at)
	return Value{it.score, it.stamp}, true
}

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

// EachValue calls fn for every copy of k's members written at or after
// minStamp, in slab order (no order a caller may rely on: a sequential
// read of the slab and names, where a walk of the tree or of a member
// table reads them in random order), until fn returns false; it reports
// whether fn never did. fn runs under the shard's read lock.
func (s *Shard) EachValue(k Key, minStamp int64, fn func(member string, v Value) bool) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.sets[k]
	if st == nil {
		return true
	}
	for _, ch := range st.items.chunks {
		for i := range ch {
			it := &ch[i]
			if it.name.None() || it.stamp < minStamp {
				continue
			}
			if !fn(st.names.Get(it.name), Value{it.score, it.stamp}) {
				return false
			}
		}
	}
	return true
}

// Scores appends to dst, up to its capacity, the scores of k's copies
// from slab slot from on, and returns them with the slot to go on from
// (-1: no more). A caller that reads a big set a chunk at a time holds
// the shard's read lock only for a chunk, never for the whole set.
func (s *Shard) Scores(k Key, from int, dst []float64) ([]float64, int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.sets[k]
	if st == nil {
		return dst, -1
	}
	for i := from; i < st.items.len(); i++ {
		if len(dst) == cap(dst) {
			return dst, i
		}
		if it := st.items.at(uint32(i)); !it.name.None() {
			dst = append(dst, it.score)
		}
	}
	return dst, -1
}
