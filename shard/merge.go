package shard

// What a replica's fill needs: the keys a shard holds, and a put that
// keeps the newest copy, so a copy arriving from the primary never
// replaces a newer live write that reached the replica first.

// Keys lists the keys this shard holds copies of.
func (s *Shard) Keys() []Key {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Key, 0, len(s.sets))
	for k, st := range s.sets {
		if st.len() > 0 {
			out = append(out, k)
		}
	}
	return out
}

// PutNewer stores e unless the member's copy here is as new or newer, in
// one step under the shard's lock; it reports whether e was stored.
func (s *Shard) PutNewer(k Key, e Entry) bool { return s.PutNewerHash(k, e, Hash(e.Member)) }

// PutNewerHash is PutNewer for a member whose Hash is h (a router has it
// already).
func (s *Shard) PutNewerHash(k Key, e Entry, h uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.setFor(k)
	at, stamp, ok := st.stampOf(e.Member, h)
	if ok && stamp >= e.Stamp {
		return false
	}
	s.storeFound(k, st, e, h, at, ok)
	return true
}

// PutIf stores e only while the member's copy here has stamp expect: the
// writer's cached view of the member is then current. A negative expect
// asks for no copy stamped -expect or later (none live: an increment of a
// member it found nowhere). It reports whether e was stored.
func (s *Shard) PutIf(k Key, e Entry, expect int64) bool {
	h := Hash(e.Member)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.setFor(k)
	at, stamp, ok := st.stampOf(e.Member, h)
	if expect < 0 && ok && stamp >= -expect || expect >= 0 && (!ok || stamp != expect) {
		return false
	}
	s.storeFound(k, st, e, h, at, ok)
	return true
}

// The puts that judge the copy here look its member up once, for the
// check and the store: a check and then a put looked the name up twice
// (7 % of PutNewer's time in a cold load through a node, pprof of
// TestClusterColdLoad).

// stampOf returns the slot and stamp of member's copy in st, whose Hash
// is h; the caller holds the shard's lock.
func (st *set) stampOf(member string, h uint64) (at uint32, stamp int64, ok bool) {
	if at, ok = st.byName.findHash(member, h); ok {
		stamp = st.items.at(at).stamp
	}
	return at, stamp, ok
}

// storeFound stores e in st: over the copy in slot at when found (from
// stampOf), else anew, which Watch hears of.
func (s *Shard) storeFound(k Key, st *set, e Entry, h uint64, at uint32, found bool) {
	if found {
		st.move(at, e)
		return
	}
	st.insertHash(e, h)
	if s.changed != nil {
		s.changed(k, e, false)
	}
}

// Watch has changed called, under the shard's lock, whenever a put
// (PutNewer, PutNewerHash, PutIf) stores a member that had no copy here
// (with the copy stored) or a delete bounded by a newer write (notAfter
// below math.MaxInt64: a handoff's, the member living on elsewhere)
// removes one (with the copy removed, and left set); a delete of the
// member (ZREM) is not a change a count or a search could be wrong by. A cluster count needs to know which members
// crossed between shards while it read them, and it must not be able to
// see the copy before the change is known: a put that said whether it
// inserted would leave a moment between the two. changed must not call
// the shard. Set it before the shard is shared.
func (s *Shard) Watch(changed func(k Key, e Entry, left bool)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changed = changed
}
