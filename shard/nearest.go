package shard

import (
	"geoshard/geo"
)

// Nearest appends at least the n nearest hits of the circle search q
// written at or after minStamp (all of them when there are fewer), walking
// the score order's geohash cells outwards from the centre (walk.go), in
// no particular order; members as near as the n-th may come too. Only members Redis's cell scan would
// visit count. It reports whether the walk saw every hit.
func (s *Shard) Nearest(k Key, q *geo.Search, minStamp int64, n int, dst []Hit) ([]Hit, bool) {
	return s.NearestWithin(k, q, minStamp, n, q.RadiusMetres(), dst)
}

// NearestWithin is Nearest that also stops at within metres from the
// centre (at most the search's radius): a router that already knows n+1
// members nearer than that needs nothing farther from this shard.
func (s *Shard) NearestWithin(k Key, q *geo.Search, minStamp int64, n int, within float64, dst []Hit) ([]Hit, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.sets[k]
	if st == nil {
		return dst, true
	}
	radius := min(within, q.RadiusMetres())
	wk := s.walker()
	defer s.walks.Put(wk)
	// far holds the distances of the n nearest hits so far, farthest on
	// top: once the walk's bound passes the farthest of them, nothing left
	// can come nearer.
	far := wk.far[:0]
	defer func() { wk.far = far[:0] }()
	complete := true
	st.nearbyIn(&wk.steps, q.Lon, q.Lat, func(it *item, bound float64) bool {
		if bound > radius {
			return false // everything left is farther still
		}
		if len(far) == n && bound > far[0] {
			complete = false
			return false
		}
		if it.stamp < minStamp {
			return true
		}
		cell := q.CellOf(it.score)
		if cell < 0 {
			return true
		}
		e := st.entry(it)
		dist, ok := q.Match(e.Lon, e.Lat)
		if !ok {
			return true
		}
		dst = append(dst, Hit{Entry: e, Dist: dist, Cell: cell})
		far.offer(dist, n)
		return true
	})
	return dst, complete
}

// walker is the scratch of one nearest search: its queue of cells and
// members, and the distances of the nearest hits so far. Shards lend it
// from a pool because a fresh one for every search was most of a 2 km
// COUNT 10 search's garbage (4.6 of 7.3 KB, issue 10).
type walker struct {
	steps walk
	far   maxHeap
}

// maxPooled bounds the queue and heap a pooled walker keeps: a walk
// through a dense continent-wide circle, or a COUNT of 65,536, is not
// worth holding on to.
const maxPooled = 1 << 14

func (s *Shard) walker() *walker {
	if w, ok := s.walks.Get().(*walker); ok {
		if cap(w.steps) > maxPooled {
			w.steps = nil
		}
		if cap(w.far) > maxPooled {
			w.far = nil
		}
		return w
	}
	return &walker{steps: make(walk, 0, 256), far: make(maxHeap, 0, 64)}
}

// maxHeap keeps the n smallest distances offered, the largest at [0].
type maxHeap []float64

func (h *maxHeap) offer(d float64, n int) {
	if len(*h) < n {
		*h = append(*h, d)
		h.up(len(*h) - 1)
		return
	}
	if d < (*h)[0] {
		(*h)[0] = d
		h.down(0)
	}
}

func (h maxHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p] >= h[i] {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (h maxHeap) down(i int) {
	for {
		l, big := 2*i+1, i
		if l < len(h) && h[l] > h[big] {
			big = l
		}
		if r := l + 1; r < len(h) && h[r] > h[big] {
			big = r
		}
		if big == i {
			return
		}
		h[i], h[big] = h[big], h[i]
		i = big
	}
}
