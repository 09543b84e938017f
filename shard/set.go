package shard

import (
	"math"

	"github.com/tidwall/btree"
	"github.com/tidwall/rtree"
)

// item is one member's copy in one shard. The same pointer sits in the
// member map, the score-ordered tree and the R-tree.
type item struct {
	member   string
	score    float64
	lon, lat float64
	stamp    int64
}

func (it *item) entry() Entry {
	return Entry{Member: it.member, Score: it.score, Lon: it.lon, Lat: it.lat, Stamp: it.stamp}
}

// less orders items as a Redis sorted set does: by score, then member bytes.
func less(a, b *item) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.member < b.member
}

// set holds one geo key's members that live in one shard.
type set struct {
	members map[string]*item
	byScore *btree.BTreeG[*item]
	spatial rtree.RTreeG[*item]
}

func newSet() *set {
	return &set{
		members: make(map[string]*item),
		byScore: btree.NewBTreeGOptions(less, btree.Options{NoLocks: true}),
	}
}

func point(it *item) [2]float64 { return [2]float64{it.lon, it.lat} }

func (s *set) put(e Entry) (old Entry, existed bool) {
	if it, ok := s.members[e.Member]; ok {
		old = it.entry()
		if it.score != e.Score {
			s.byScore.Delete(it)
			s.spatial.Delete(point(it), point(it), it)
			it.score, it.lon, it.lat = e.Score, e.Lon, e.Lat
			s.byScore.Set(it)
			s.spatial.Insert(point(it), point(it), it)
		}
		it.stamp = e.Stamp
		return old, true
	}
	it := &item{member: e.Member, score: e.Score, lon: e.Lon, lat: e.Lat, stamp: e.Stamp}
	s.members[e.Member] = it
	s.byScore.Set(it)
	s.spatial.Insert(point(it), point(it), it)
	return Entry{}, false
}

func (s *set) delete(member string) (Entry, bool) {
	it, ok := s.members[member]
	if !ok {
		return Entry{}, false
	}
	delete(s.members, member)
	s.byScore.Delete(it)
	s.spatial.Delete(point(it), point(it), it)
	return it.entry(), true
}

// ascend calls fn for every item with score >= min, in sorted-set order,
// until fn returns false.
func (s *set) ascend(min float64, fn func(*item) bool) {
	s.byScore.Ascend(&item{score: min}, fn)
}

// descend calls fn for every item with score <= max, in reverse sorted-set
// order, until fn returns false.
func (s *set) descend(max float64, fn func(*item) bool) {
	if math.IsInf(max, 1) {
		s.byScore.Reverse(fn)
		return
	}
	// The pivot sorts after every member whose score is max.
	pivot := &item{score: math.Nextafter(max, math.Inf(1))}
	s.byScore.Descend(pivot, func(it *item) bool {
		return it.score > max || fn(it)
	})
}
