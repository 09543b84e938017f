package shard

import (
	"cmp"
	"slices"
	"strings"
	"sync"
)

// Load adds many copies at once, as Put would one by one, but several
// times faster into a key this shard does not hold yet: the slab is
// filled in es's order, and the B-tree grows by appending at its right
// edge from the slots sorted by score. es must not name a member twice
// (which copy wins is not defined); members the shard already holds are
// replaced, as Put does.
func (s *Shard) Load(k Key, es []Entry) {
	if len(es) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.setFor(k)
	st.load(es)
}

// load adds es. Into an empty set the slab is filled first and then the
// name index and the B-tree are built side by side, as they share
// nothing but the slab, which neither changes; otherwise each member
// takes the ordinary path.
func (s *set) load(es []Entry) {
	if s.len() != 0 {
		for _, e := range es {
			s.put(e)
		}
		return
	}
	s.items = slices.Grow(s.items[:0], len(es))
	s.free = s.free[:0]
	refs := make([]ref, len(es))
	for at, e := range es {
		s.items = append(s.items, item{name: s.names.Add(e.Member), score: e.Score, stamp: e.Stamp})
		refs[at] = mkref(e.Score, uint32(at))
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		s.byName.reserve(len(s.items))
		for at := range s.items {
			s.byName.insert(uint32(at))
		}
	})
	// Sorting 16-byte refs moves a third of what sorting the entries
	// would; names are read only for equal scores.
	slices.SortFunc(refs, func(a, b ref) int {
		if c := cmp.Compare(a.score(), b.score()); c != 0 {
			return c
		}
		return strings.Compare(s.name(a.at), s.name(b.at))
	})
	for _, r := range refs {
		s.byScore.Load(r)
	}
	wg.Wait()
}
