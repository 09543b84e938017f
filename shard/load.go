package shard

import "sync"

// Load adds many copies at once, as Put would one by one, but several
// times faster into a key this shard does not hold yet: the slab is
// filled in es's order, and the B-tree grows by appending at its right
// edge from the slots sorted by score. es must not name a member twice
// (which copy wins is not defined); members the shard already holds are
// replaced, as Put does.
func (s *Shard) Load(k Key, es []Entry) {
	s.LoadEach(k, len(es), func(i int) Entry { return es[i] })
}

// LoadEach is Load with the n entries handed out by entry(0) to
// entry(n-1), each once and in that order, so that a caller need not
// gather them into one slice of Go pointers first (a million of them is
// a lot for the collector to scan while a snapshot loads).
func (s *Shard) LoadEach(k Key, n int, entry func(i int) Entry) {
	if n == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.setFor(k)
	st.load(n, entry)
}

// load adds es. Into an empty set the slab is filled first and then the
// name index and the B-tree are built side by side, as they share
// nothing but the slab, which neither changes; otherwise each member
// takes the ordinary path.
func (s *set) load(n int, entry func(i int) Entry) {
	if s.len() != 0 {
		for i := range n {
			s.put(entry(i))
		}
		return
	}
	s.items.reset()
	s.items.reserve(n)
	s.free = s.free[:0]
	refs := make([]ref, n)
	for at := range n {
		e := entry(at)
		refs[at] = mkref(e.Score, s.items.push(item{name: s.names.Add(e.Member), score: e.Score, stamp: e.Stamp}))
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		s.byName.reserve(s.items.len())
		for at := range s.items.len() {
			s.byName.insert(uint32(at))
		}
	})
	// Sorting 12-byte refs moves a quarter of what sorting the entries
	// would; names are read only for equal scores.
	s.sortRefs(refs)
	for _, r := range refs {
		s.byScore.Load(r)
	}
	wg.Wait()
}
