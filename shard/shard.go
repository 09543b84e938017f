package shard

import (
	"math"
	"sync"

	"geoshard/geo"
)

// Key names one geo key of one database.
type Key struct {
	DB   int
	Name string
}

// Entry is one member's copy in a shard.
type Entry struct {
	Member   string
	Score    float64 // the sorted-set score: Redis's 52-bit cell index
	Lon, Lat float64 // the cell centre the score decodes to
	Stamp    int64   // when it was written (unix ns); merges keep the newest
}

// NewEntry builds the entry for a member stored with a sorted-set score.
func NewEntry(member string, score float64, stamp int64) Entry {
	lon, lat := geo.Decode(score)
	return Entry{Member: member, Score: score, Lon: lon, Lat: lat, Stamp: stamp}
}

// Hit is an entry found by a search.
type Hit struct {
	Entry
	Dist float64 // metres from the search centre
	Cell int     // index in geo.Search.Cells of the cell it was found in
}

// Shard is the in-memory index of one region: for every geo key, the
// members whose position the router placed here. It is safe for
// concurrent use; searches share a read lock, writes take it alone.
type Shard struct {
	mu   sync.RWMutex
	sets map[Key]*set
	// walks lends nearest searches their heaps (nearest.go).
	walks sync.Pool
	// changed, when set (Watch), hears each member gaining its copy here
	// or losing it to a handoff; called under mu.
	changed func(k Key, e Entry, left bool)
}

// New returns an empty shard.
func New() *Shard {
	return &Shard{sets: make(map[Key]*set)}
}

// setFor returns k's set, creating it; the caller holds s.mu for writing.
func (s *Shard) setFor(k Key) *set {
	st := s.sets[k]
	if st == nil {
		st = newSet()
		s.sets[k] = st
	}
	return st
}

// Put stores e, replacing the member's previous copy, which it returns.
func (s *Shard) Put(k Key, e Entry) (old Entry, existed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.setFor(k)
	return st.put(e)
}

// Get returns the member's copy in this shard.
func (s *Shard) Get(k Key, member string) (Entry, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if st := s.sets[k]; st != nil {
		if it, ok := st.get(member); ok {
			return st.entry(it), true
		}
	}
	return Entry{}, false
}

// Delete removes the member's copy unless it was written after notAfter:
// a handoff's late delete must not remove a newer copy.
func (s *Shard) Delete(k Key, member string, notAfter int64) (Entry, bool) {
	return s.DeleteHash(k, member, notAfter, Hash(member))
}

// DeleteHash is Delete for a caller that has hashed the member already
// (h is its Hash). The member is looked up once, for the check and the
// removal both.
func (s *Shard) DeleteHash(k Key, member string, notAfter int64, h uint64) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sets[k]
	if st == nil {
		return Entry{}, false
	}
	at, ok := st.byName.findHash(member, h)
	if !ok || st.items.at(at).stamp > notAfter {
		return Entry{}, false
	}
	e := st.deleteAt(at)
	if st.len() == 0 {
		delete(s.sets, k)
	}
	if s.changed != nil && notAfter < math.MaxInt64 {
		s.changed(k, e, true) // a handoff's: the member lives on elsewhere
	}
	return e, true
}

// Search appends, in Redis's discovery order (cell by cell, each in score
// order), the copies that q matches and that were written at or after
// minStamp. With limit > 0 it stops after limit hits, as COUNT ... ANY does.
func (s *Shard) Search(k Key, q *geo.Search, minStamp int64, limit int, dst []Hit) []Hit {
	return s.SearchCells(k, q, AllCells, minStamp, limit, dst)
}

// AllCells asks SearchCells for every cell of a search's plan.
const AllCells = ^CellMask(0)

// CellMask names cells of a search's plan (at most nine): bit i for
// q.Cells[i].
type CellMask uint16

// SearchCells is Search over the cells of q in mask only, which the
// caller knows to be the only ones that can hold this shard's members:
// on a fine map a shard's area meets one or two of a search's nine
// cells, and a cell skipped costs nothing. Hits keep their cell's index
// in q.Cells.
func (s *Shard) SearchCells(k Key, q *geo.Search, mask CellMask, minStamp int64, limit int, dst []Hit) []Hit {
	if mask == 0 {
		return dst
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.sets[k]
	if st == nil {
		return dst
	}
	found := 0
	items := st.items.chunks // read through a local: see slots
	for i, c := range q.Cells {
		if limit > 0 && found >= limit {
			break
		}
		if mask != AllCells && mask&(1<<i) == 0 {
			continue
		}
		st.scan(q, c.Min, c.Max, 0, func(r ref, inside bool) bool {
			lon, lat := geo.Decode(r.score())
			var d float64
			if inside {
				if q.NeedDist {
					d = geo.Distance(q.Lon, q.Lat, lon, lat)
				}
			} else {
				var ok bool
				if d, ok = q.Match(lon, lat); !ok {
					return true
				}
			}
			it := items.at(r.at)
			if it.stamp < minStamp {
				return true
			}
			dst = append(dst, Hit{Entry: Entry{Member: st.member(it), Score: r.score(), Lon: lon, Lat: lat, Stamp: it.stamp}, Dist: d, Cell: i})
			found++
			return limit <= 0 || found < limit
		})
	}
	return dst
}

// Ascend calls fn, in sorted-set order, for each copy with score >= min
// written at or after minStamp, until fn returns false. fn runs under the
// shard's read lock and must not call back into the shard.
func (s *Shard) Ascend(k Key, min float64, minStamp int64, fn func(Entry) bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if st := s.sets[k]; st != nil {
		st.ascend(min, func(it *item) bool {
			return it.stamp < minStamp || fn(st.entry(it))
		})
	}
}

// Descend is Ascend in reverse order, from the copies with score <= max.
func (s *Shard) Descend(k Key, max float64, minStamp int64, fn func(Entry) bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if st := s.sets[k]; st != nil {
		st.descend(max, func(it *item) bool {
			return it.stamp < minStamp || fn(st.entry(it))
		})
	}
}

// Len returns how many copies of the key's members this shard holds.
func (s *Shard) Len(k Key) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if st := s.sets[k]; st != nil {
		return st.len()
	}
	return 0
}

// Drop removes the key and returns how many copies it held.
func (s *Shard) Drop(k Key) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	if st := s.sets[k]; st != nil {
		n = st.len()
		delete(s.sets, k)
	}
	return n
}

// Rename moves the key's copies to another name, replacing what was there.
func (s *Shard) Rename(from, to Key) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sets[from]
	delete(s.sets, to)
	if st != nil {
		delete(s.sets, from)
		s.sets[to] = st
	}
}

// Reclaim removes the copies written before the cut-off that minStamp
// returns for their key (0: keep everything) and reports each one.
func (s *Shard) Reclaim(minStamp func(Key) int64, removed func(Key, Entry)) {
	keys, members := s.Expired(minStamp)
	for i, k := range keys {
		if e, ok := s.Delete(k, members[i], minStamp(k)-1); ok {
			removed(k, e)
		}
	}
}
