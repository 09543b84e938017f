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
	it := &st.items[at]
	return Value{it.score, it.stamp}, true
}

// PutHashPrev is PutHash that also returns what the member's copy held
// before (when existed), which the router needs for ZADD's reply and
// conditions and no longer keeps itself.
func (s *Shard) PutHashPrev(k Key, e Entry, h uint64) (prev Value, existed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.setFor(k)
	if at, ok := st.byName.findHash(e.Member, h); ok {
		it := &st.items[at]
		prev = Value{it.score, it.stamp}
		st.move(at, e)
		return prev, true
	}
	st.insertHash(e, h)
	return Value{}, false
}
