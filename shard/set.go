package shard

import (
	"math"

	"github.com/tidwall/btree"

	"geoshard/geo"
)

// item is one member's copy in one shard. Items live in a slab and the
// indexes refer to them by position; the name lives in the set's Names.
// Nothing in an item is a pointer, so the garbage collector never scans
// the slab, however many members it holds.
type item struct {
	name  Name // NoName: a free slot
	score float64
	stamp int64
}

func (s *set) entry(it *item) Entry {
	lon, lat := geo.Decode(it.score)
	return Entry{Member: s.names.Get(it.name), Score: it.score, Lon: lon, Lat: lat, Stamp: it.stamp}
}

// name returns the member at a slab slot ("" for a free one).
func (s *set) name(at uint32) string {
	if n := s.items.at(at).name; !n.None() {
		return s.names.Get(n)
	}
	return ""
}

// member returns an item's name.
func (s *set) member(it *item) string { return s.names.Get(it.name) }

// ref is an item's place in the score-ordered tree. The score is kept in
// the tree node so that most comparisons never touch the slab, split in
// two halves so that a ref is 12 bytes rather than a float64's alignment
// making it 16: a quarter of the tree's memory.
type ref struct {
	hi, lo uint32 // the score's bits
	at     uint32 // slab index; probe for a search pivot
}

func mkref(score float64, at uint32) ref {
	b := math.Float64bits(score)
	return ref{uint32(b >> 32), uint32(b), at}
}

func (r ref) score() float64 { return math.Float64frombits(uint64(r.hi)<<32 | uint64(r.lo)) }

// probe marks a pivot: it sorts before every member with its score.
const probe = math.MaxUint32

// set holds one geo key's members that live in one shard.
type set struct {
	items   slab
	free    []uint32 // slab slots to reuse
	names   Names
	byName  nameIndex
	byScore *btree.BTreeG[ref] // also the nearest-first index: see walk.go
}

func newSet() *set {
	s := &set{}
	s.byName.set = s
	s.byScore = btree.NewBTreeGOptions(s.less, btree.Options{NoLocks: true, Degree: treeDegree})
	return s
}

// treeDegree makes the score tree's nodes hold up to 127 refs (1.5 KB)
// rather than the library's 63: a level fewer to descend for the walks'
// look-ups and the moves' deletes and inserts, at 1M drivers 5-7 % less
// CPU a nearest search and 3-7 % an update (BenchmarkNearestCPU,
// BenchmarkAdd, alternately), 0.8 B less a driver; 128 measured the same.
const treeDegree = 64

// less orders refs as a Redis sorted set does: by score, then member bytes.
func (s *set) less(a, b ref) bool {
	if as, bs := a.score(), b.score(); as != bs {
		return as < bs
	}
	if a.at == probe || b.at == probe {
		return a.at == probe && b.at != probe
	}
	return s.name(a.at) < s.name(b.at)
}

func (s *set) len() int { return s.byName.Len() }

func (s *set) get(member string) (*item, bool) {
	at, ok := s.byName.find(member)
	if !ok {
		return nil, false
	}
	return s.items.at(at), true
}

func (s *set) put(e Entry) (old Entry, existed bool) {
	if at, ok := s.byName.find(e.Member); ok {
		old = s.entry(s.items.at(at))
		s.move(at, e)
		return old, true
	}
	s.insert(e)
	return Entry{}, false
}

// putHashSlot stores e, whose member's Hash is h, and returns what the
// member's copy held before (when existed) and the copy's slab slot.
func (s *set) putHashSlot(e Entry, h uint64) (prev Value, existed bool, at uint32) {
	if at, ok := s.byName.findHash(e.Member, h); ok {
		it := s.items.at(at)
		prev = Value{it.score, it.stamp}
		s.move(at, e)
		return prev, true, at
	}
	return Value{}, false, s.insertHash(e, h)
}

// putSlot is putHashSlot for a caller that knows the copy's slab slot:
// while slot at still holds the member the name index is not consulted;
// a wrong, stale or free slot costs the look-up, never a wrong copy.
func (s *set) putSlot(e Entry, at uint32, h uint64) (prev Value, existed bool, slot uint32) {
	if at < s.items.n {
		if it := s.items.at(at); !it.name.None() && s.names.Get(it.name) == e.Member {
			prev = Value{it.score, it.stamp}
			s.move(at, e)
			return prev, true, at
		}
	}
	return s.putHashSlot(e, h)
}

// move rewrites the item at a slot with e's score and stamp.
func (s *set) move(at uint32, e Entry) {
	it := s.items.at(at) // once: each lookup goes through the chunk list
	if it.score != e.Score {
		s.byScore.Delete(mkref(it.score, at))
		it.score = e.Score
		s.byScore.Set(mkref(it.score, at))
	}
	it.stamp = e.Stamp
}

// insert adds a member that is not in the set and returns its slot.
func (s *set) insert(e Entry) uint32 { return s.insertHash(e, Hash(e.Member)) }

// insertHash is insert for a member whose Hash is h.
func (s *set) insertHash(e Entry, h uint64) uint32 {
	var at uint32
	if n := len(s.free); n > 0 {
		at = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		at = s.items.push(item{})
	}
	*s.items.at(at) = item{name: s.names.Add(e.Member), score: e.Score, stamp: e.Stamp}
	s.byName.insertHash(at, h)
	s.index(at)
	return at
}

func (s *set) index(at uint32) { s.byScore.Set(mkref(s.items.at(at).score, at)) }

func (s *set) unindex(at uint32) { s.byScore.Delete(mkref(s.items.at(at).score, at)) }

func (s *set) delete(member string) (Entry, bool) {
	at, ok := s.byName.find(member)
	if !ok {
		return Entry{}, false
	}
	return s.deleteAt(at), true
}

// deleteAt removes the member at slab slot at and returns its copy.
func (s *set) deleteAt(at uint32) Entry {
	e := s.entry(s.items.at(at))
	s.unindex(at)
	s.byName.remove(at)
	it := s.items.at(at)
	s.names.Free(it.name)
	*it = item{name: NoName()}
	s.free = append(s.free, at)
	if s.names.Wasteful() {
		s.compact()
	}
	return e
}

// compact copies the live names into a fresh store, leaving behind the
// bytes of deleted ones. Strings handed out before keep the old chunks.
func (s *set) compact() {
	var fresh Names
	for _, ch := range s.items.chunks {
		for i := range ch {
			if it := &ch[i]; !it.name.None() {
				it.name = fresh.Add(s.names.Get(it.name))
			}
		}
	}
	s.names = fresh
}

// ascend calls fn for every item with score >= min, in sorted-set order,
// until fn returns false.
func (s *set) ascend(min float64, fn func(*item) bool) {
	items := s.items.chunks
	s.byScore.Ascend(mkref(min, probe), func(r ref) bool { return fn(items.at(r.at)) })
}

// descend calls fn for every item with score <= max, in reverse sorted-set
// order, until fn returns false.
func (s *set) descend(max float64, fn func(*item) bool) {
	items := s.items.chunks
	visit := func(r ref) bool { return r.score() > max || fn(items.at(r.at)) }
	if math.IsInf(max, 1) {
		s.byScore.Reverse(visit)
		return
	}
	// The pivot sorts after every member whose score is max.
	s.byScore.Descend(mkref(math.Nextafter(max, math.Inf(1)), probe), visit)
}

// Splitting a Redis cell into quarter cells to skip what lies outside a
// search stops this many levels down (a 5 km cell ends in 80 m pieces),
// or at cells of 16x16 geohash units.
const (
	maxSplit = 6
	minSplit = 1 << 8
)

// sparse is how many members a range may hold for a scan to test each
// one rather than classify the range: about what one classification
// costs in distances.
const sparse = 3

// scan visits, in sorted-set order, the members with scores in [lo, hi)
// that the search may match, telling fn whether the member is certainly
// inside. Ranges the search cannot reach are skipped whole. It returns
// false if fn stopped it.
func (s *set) scan(q *geo.Search, lo, hi float64, depth int, fn func(r ref, inside bool) bool) bool {
	// On a fine map most ranges a shard is asked for hold no member or a
	// few: testing those few costs less than classifying the range, and
	// an empty one costs one probe of the tree.
	var few [sparse + 1]ref
	n := s.firstRefs(lo, hi, few[:])
	if n <= sparse {
		for _, r := range few[:n] {
			if !fn(r, false) {
				return false
			}
		}
		return true
	}
	class := q.Classify(lo, hi)
	switch {
	case class == geo.Outside:
		return true
	case class == geo.Partial && depth < maxSplit && hi-lo >= 4*minSplit:
		quarter := (hi - lo) / 4
		for k := range 4 {
			if !s.scan(q, lo+float64(k)*quarter, lo+float64(k+1)*quarter, depth+1, fn) {
				return false
			}
		}
		return true
	}
	return s.scanRange(lo, hi, class == geo.Inside, fn)
}

// each calls fn for every item, in no particular order.
func (s *set) each(fn func(*item) bool) {
	items := s.items.chunks
	s.byScore.Scan(func(r ref) bool { return fn(items.at(r.at)) })
}

// firstRefs fills buf with the first members whose scores lie in [lo, hi),
// in score order, and returns how many it found: at most len(buf).
func (s *set) firstRefs(lo, hi float64, buf []ref) int {
	n := 0
	s.byScore.Ascend(mkref(lo, probe), func(r ref) bool {
		if r.score() >= hi {
			return false
		}
		buf[n] = r
		n++
		return n < len(buf)
	})
	return n
}
