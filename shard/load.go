package shard

import (
	"cmp"
	"slices"
	"strings"
	"sync"
)

// Load adds many copies at once, as Put would one by one, but several
// times faster into a key this shard does not hold yet: the copies are
// sorted by score first, so the B-tree grows by appending at its right
// edge. It sorts es
// in place. es must not name a member twice (the one sorted last would
// win); members the shard already holds are replaced, as Put does.
func (s *Shard) Load(k Key, es []Entry) {
	if len(es) == 0 {
		return
	}
	slices.SortFunc(es, func(a, b Entry) int {
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return strings.Compare(a.Member, b.Member)
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.setFor(k)
	st.load(es)
}

// load adds es, sorted as the B-tree orders them. Into an empty set the
// slab is filled first and then the name index and the B-tree are built
// side by side, as they share nothing but the slab; otherwise
// each member takes the ordinary path.
func (s *set) load(es []Entry) {
	if s.len() != 0 {
		for _, e := range es {
			s.put(e)
		}
		return
	}
	s.items = slices.Grow(s.items[:0], len(es))
	s.free = s.free[:0]
	for _, e := range es {
		s.items = append(s.items, item{name: s.names.Add(e.Member), score: e.Score, stamp: e.Stamp})
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		s.byName.reserve(len(s.items))
		for at := range s.items {
			s.byName.insert(uint32(at))
		}
	})
	// Load appends at the tree's right edge: the refs come sorted.
	for at, it := range s.items {
		s.byScore.Load(ref{it.score, uint32(at)})
	}
	wg.Wait()
}
