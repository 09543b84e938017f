package shard

import (
	"geoshard/geo"
)

// The score order is a Z-order curve: the members of one geohash cell
// (an aligned power-of-four range of scores) lie next to each other in the
// B-tree. So a nearest-first walk needs no second index: it opens cells
// best-first by a lower bound of their distance, reading the members of a
// cell once it holds few enough, and splitting it in four otherwise.

// leafMembers is how many members a cell may hold before a walk splits it
// rather than read them all.
const leafMembers = 16

// step is one cell or one member waiting in a walk's queue.
type step struct {
	bound float64 // lower bound of the distance, metres
	start uint64  // the cell's first score
	at    uint32  // the member's slab index
	level int8    // the cell spans 4^level scores; -1 for a member
}

// walk is a min-heap of steps on their bound.
type walk []step

func (w *walk) push(s step) {
	*w = append(*w, s)
	h := *w
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p].bound <= h[i].bound {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (w *walk) pop() step {
	h := *w
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < len(h) && h[l].bound < h[small].bound {
			small = l
		}
		if r := l + 1; r < len(h) && h[r].bound < h[small].bound {
			small = r
		}
		if small == i {
			break
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
	*w = h
	return top
}

// nearby visits items in the order of a lower bound of their distance from
// (lon, lat); fn gets each item with that bound, until it returns false.
// Every item not yet visited is at least as far as the last bound. Only
// members whose scores GEOADD can give (0 <= score < 2^54, edge overflow
// included), the ones a search can match, are visited.
func (s *set) nearby(lon, lat float64, fn func(it *item, bound float64) bool) {
	var w walk
	s.nearbyIn(&w, lon, lat, fn)
}

// nearbyIn is nearby with the queue's storage lent by the caller, which
// spares a search its garbage.
func (s *set) nearbyIn(buf *walk, lon, lat float64, fn func(it *item, bound float64) bool) {
	near := geo.NewNear(lon, lat)
	w := (*buf)[:0]
	defer func() { *buf = w[:0] }()
	// GEOADD's scores fill [0, 2^52) and, for points on the east edge
	// (lon=180) or the north edge (lat=MaxLat), overflow into bits 52
	// and 53 as in Redis: four top cells hold them all.
	for c := range uint64(4) {
		start := c << (2 * geo.Step)
		w.push(step{bound: near.Bound(geo.CellRect(start, geo.Step)), start: start, level: geo.Step})
	}
	var refs [leafMembers + 1]ref
	items := s.items.chunks
	// The search's point's own score: the cells that hold it are split
	// first, so skipChain skips most of their look-ups.
	trunk := geo.Valid(lon, lat)
	point := uint64(geo.Encode(lon, lat))
	for len(w) > 0 {
		st := w.pop()
		if st.level < 0 {
			if !fn(items.at(st.at), st.bound) {
				return
			}
			continue
		}
		lo, hi := float64(st.start), float64(st.start+1<<(2*uint(st.level)))
		n := s.firstRefs(lo, hi, refs[:])
		if n <= leafMembers || st.level == 0 {
			// Their items are read when popped: touched now, their cache
			// misses overlap (see scanRange).
			touch(items, refs[:n])
			for _, r := range refs[:n] {
				lon, lat := geo.Decode(r.score())
				b := near.Bound(geo.Rect{MinLon: lon, MinLat: lat, MaxLon: lon, MaxLat: lat})
				w.push(step{bound: max(b, st.bound), at: r.at, level: -1})
			}
			if n > leafMembers { // a single score held by many members
				s.byScore.Ascend(refs[n-1], func(r ref) bool {
					if r.score() >= hi {
						return false
					}
					if r.at != refs[n-1].at {
						w.push(step{bound: st.bound, at: r.at, level: -1})
					}
					return true
				})
			}
			continue
		}
		if trunk && st.level > 1 && point >= st.start && point-st.start < 1<<(2*uint(st.level)) {
			st = s.skipChain(&w, &near, st, point, refs[:])
		}
		w.split(&near, st, -1)
	}
}

// split queues the quarters of cell st, all but quarter skip (0 to 3; -1:
// none).
func (w *walk) split(near *geo.Near, st step, skip int) {
	child := uint64(1) << (2 * uint(st.level-1))
	for c := range 4 {
		if c == skip {
			continue
		}
		start := st.start + uint64(c)*child
		b := near.Bound(geo.CellRect(start, uint(st.level-1)))
		w.push(step{bound: max(b, st.bound), start: start, level: st.level - 1})
	}
}

// skipChain takes a crowded cell st holding the search's own point, whose
// score is point, down the chain of cells that hold the point to the
// smallest one still crowded, found by bisecting the levels (a crowded
// cell's parent is crowded too): it queues the other three quarters of
// every cell on the way and returns that smallest cell, for the caller
// to split. The queue ends as if the walk had split each cell of the
// chain in turn, which it would, the chain's bound being the least; but
// a 1M-driver metro took a look-up of the tree for each of 19 levels of a
// 2 km COUNT 10 search, of 31 in all, where bisecting takes 5.
func (s *set) skipChain(w *walk, near *geo.Near, st step, point uint64, buf []ref) step {
	cell := func(level int) uint64 { return point >> (2 * uint(level)) << (2 * uint(level)) }
	deep := int(st.level)
	for lo, hi := 1, deep-1; lo <= hi; {
		mid := (lo + hi) / 2
		start := cell(mid)
		if s.firstRefs(float64(start), float64(start+1<<(2*uint(mid))), buf) > leafMembers {
			deep, hi = mid, mid-1
		} else {
			lo = mid + 1
		}
	}
	for level := int(st.level) - 1; level >= deep; level-- {
		parent := cell(level + 1)
		on := int((point - parent) >> (2 * uint(level))) // the quarter on the chain
		w.split(near, step{bound: st.bound, start: parent, level: int8(level + 1)}, on)
	}
	return step{bound: st.bound, start: cell(deep), level: int8(deep)}
}
