package shard

// A router's narrow owner table keeps no names of its own: its record of
// a member is the shard of the member's copy and the copy's slab slot
// there, and the table reads the name through the slot (NameAt). That
// holds only while a slot a record names keeps its member: the router
// deletes such a copy only under the member's stripe lock, fixing the
// record in the same hold (router/owners_slot.go). A shard never moves
// a copy to another slot (compaction moves names, not items), and reuses
// a slot only once the copy in it was deleted.
//
// Every read here checks the slot against the slab, so a record read
// after its key was dropped, or with a slot from another set, reads as
// nothing rather than panicking.

// itemAt returns the live item in slot at of k's set, if there is one.
// The caller holds s.mu.
func (s *Shard) itemAt(k Key, at uint32) (*set, *item) {
	st := s.sets[k]
	if st == nil || at >= st.items.n {
		return nil, nil
	}
	it := st.items.at(at)
	if it.name.None() {
		return nil, nil
	}
	return st, it
}

// NameAt returns the member whose copy is in slab slot at of k's set. The
// string stays valid after the copy goes (Names never rewrites bytes).
func (s *Shard) NameAt(k Key, at uint32) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st, it := s.itemAt(k, at)
	if it == nil {
		return "", false
	}
	return st.names.Get(it.name), true
}

// ValueAt returns the score and stamp of the copy in slab slot at of k's
// set: a single score read of a member whose slot the caller knows skips
// the name index.
func (s *Shard) ValueAt(k Key, at uint32) (Value, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, it := s.itemAt(k, at)
	if it == nil {
		return Value{}, false
	}
	return Value{it.score, it.stamp}, true
}

// SlotHash returns the slab slot of member's copy (h is its Hash).
func (s *Shard) SlotHash(k Key, member string, h uint64) (uint32, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.sets[k]
	if st == nil {
		return 0, false
	}
	return st.byName.findHash(member, h)
}

// PutHashSlot stores e, whose member's Hash is h (a router has it
// already), and returns what the member's copy held before (when
// existed) and the copy's slab slot.
func (s *Shard) PutHashSlot(k Key, e Entry, h uint64) (prev Value, existed bool, slot uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.setFor(k).putHashSlot(e, h)
}

// PutSlot is PutHashSlot for a caller that knows the copy's slab slot at:
// should the slot hold another member or nothing, it falls back to the
// look-up by name, so a wrong slot costs a look-up, never a wrong copy.
func (s *Shard) PutSlot(k Key, e Entry, at uint32, h uint64) (prev Value, existed bool, slot uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.setFor(k).putSlot(e, at, h)
}

// LoadEachSlots is LoadEach that also reports, through placed, the slab
// slot each entry went to.
func (s *Shard) LoadEachSlots(k Key, n int, entry func(i int) Entry, placed func(i int, at uint32)) {
	if n == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.setFor(k)
	if st.len() != 0 {
		for i := range n {
			e := entry(i)
			_, _, at := st.putHashSlot(e, Hash(e.Member))
			placed(i, at)
		}
		return
	}
	st.load(n, entry)
	for i := range n {
		placed(i, uint32(i)) // an empty set's load fills slots in order
	}
}

// Expired returns, for every key whose cut-off minStamp gives (0: keep
// everything), the members whose copies here were written before it,
// without removing them: a router whose records name slab slots removes
// each under its member's stripe lock.
func (s *Shard) Expired(minStamp func(Key) int64) (keys []Key, members []string) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for k, st := range s.sets {
		cut := minStamp(k)
		if cut == 0 {
			continue
		}
		st.each(func(it *item) bool {
			if it.stamp < cut {
				keys = append(keys, k)
				members = append(members, st.member(it))
			}
			return true
		})
	}
	return keys, members
}

// CopyAt returns the member and the score and stamp of the copy in slab
// slot at of k's set, in one read: a narrow owner table's look-up of a
// member reads its name and its value together.
func (s *Shard) CopyAt(k Key, at uint32) (string, Value, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st, it := s.itemAt(k, at)
	if it == nil {
		return "", Value{}, false
	}
	return st.names.Get(it.name), Value{it.score, it.stamp}, true
}

// NamesAt calls fn with each of slots' members (i indexes slots; "" for a
// slot that holds none), under one read lock and one look-up of the key:
// a narrow owner table re-hashing its members as it grows reads them a
// shard at a time, in slot order, rather than one locked call each.
// fn runs under the shard's read lock.
func (s *Shard) NamesAt(k Key, slots []uint32, fn func(i int, member string)) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.sets[k]
	for i, at := range slots {
		m := ""
		if st != nil && at < st.items.n {
			if it := st.items.at(at); !it.name.None() {
				m = st.names.Get(it.name)
			}
		}
		fn(i, m)
	}
}
