package router

import (
	"cmp"
	"slices"
	"sort"
	"sync/atomic"

	"geoshard/shard"
)

// ShardStats counts what happens in one shard. INFO and /metrics read it.
//
// Every write adds to Writes, every search to Searches: two cores writing
// two shards must not write one cache line. The leading pad and the
// trailing one keep the counters of neighbours in Stats.Shards at least a
// line apart whatever the slice's alignment.
type ShardStats struct {
	_           [64]byte
	Writes      atomic.Int64 // copies written
	HandoffsIn  atomic.Int64 // members moved here from another shard
	HandoffsOut atomic.Int64 // members moved away
	Searches    atomic.Int64 // searches that asked this shard
	Degraded    atomic.Int64 // searches that gave up waiting for this shard
	Expired     atomic.Int64 // copies removed by the position TTL
	_           [16]byte
}

// BorderStats counts what happens across the border between two shards.
type BorderStats struct {
	Handoffs        atomic.Int64 // members that crossed it
	FlapsSuppressed atomic.Int64 // writes kept in place by the hysteresis margin
	Searches        atomic.Int64 // searches that asked both shards
}

func (b *BorderStats) total() int64 {
	return b.Handoffs.Load() + b.FlapsSuppressed.Load() + b.Searches.Load()
}

// Border names a pair of shards, the lower ID first.
type Border struct{ A, B shard.ID }

// Stats holds the router's counters. Border counters exist only for the
// region map's borders (shards whose areas come within the margin of each
// other), made once with the map, so counting takes no lock and memory
// does not grow with traffic; what happens between shards that do not
// border each other (a member that jumped far) goes to Elsewhere.
type Stats struct {
	Shards []ShardStats
	// FanOut[n] counts searches that asked n shards (the last bucket
	// counts n and more).
	FanOut   [9]atomic.Int64
	Degraded atomic.Int64
	// SearchRetries counts searches that read their shards again because
	// members were handed off between them meanwhile (readShards).
	SearchRetries atomic.Int64
	// Elsewhere counts what happened between shards that are not
	// neighbours on the map.
	Elsewhere BorderStats

	regions *shard.Map
	borders []BorderStats // by the map's border number
}

func newStats(m *shard.Map) *Stats {
	return &Stats{Shards: make([]ShardStats, m.Len()), regions: m, borders: make([]BorderStats, m.Borders())}
}

// Border returns the counters of the border between a and b: Elsewhere
// when the two are not neighbours. It never allocates.
func (s *Stats) Border(a, b shard.ID) *BorderStats {
	if i, ok := s.regions.Border(a, b); ok {
		return &s.borders[i]
	}
	return &s.Elsewhere
}

// Borders lists the borders that have seen any traffic, in ID order.
func (s *Stats) Borders() []Border {
	var out []Border
	for i := range s.borders {
		if s.borders[i].total() != 0 {
			a, b := s.regions.BorderAt(i)
			out = append(out, Border{a, b})
		}
	}
	return out
}

// TopBorders lists at most n of the borders that have seen traffic, the
// busiest first (ties in ID order), and how many more saw some: INFO and
// /metrics stay a few kilobytes on a map of any size.
func (s *Stats) TopBorders(n int) (top []Border, rest int) {
	type busy struct {
		i     int
		total int64
	}
	var all []busy
	for i := range s.borders {
		if t := s.borders[i].total(); t != 0 {
			all = append(all, busy{i, t})
		}
	}
	slices.SortFunc(all, func(x, y busy) int { return cmp.Or(cmp.Compare(y.total, x.total), cmp.Compare(x.i, y.i)) })
	if len(all) > n {
		rest = len(all) - n
		all = all[:n]
	}
	for _, b := range all {
		a, c := s.regions.BorderAt(b.i)
		top = append(top, Border{a, c})
	}
	return top, rest
}

// countSearch counts a search that asked the shards ids (sorted, distinct):
// once per shard, and once per border between two of them, at a cost that
// grows with those shards and their borders, not with the map.
func (s *Stats) countSearch(ids []shard.ID) {
	if len(ids) >= bitsetMin {
		s.countSearchWide(ids)
		return
	}
	s.countSearchNarrow(ids)
}

// countSearchNarrow is countSearch for a few shards: each neighbour of
// one is looked up among the rest, or the rest among its neighbours.
func (s *Stats) countSearchNarrow(ids []shard.ID) {
	for i, a := range ids {
		s.Shards[a].Searches.Add(1)
		above, first := s.regions.Neighbours(a)
		rest := ids[i+1:]
		if len(rest) < len(above) {
			for _, b := range rest {
				if j := sort.Search(len(above), func(j int) bool { return above[j] >= b }); j < len(above) && above[j] == b {
					s.borders[first+j].Searches.Add(1)
				}
			}
			continue
		}
		for j, b := range above {
			if _, ok := slices.BinarySearch(rest, b); ok {
				s.borders[first+j].Searches.Add(1)
			}
		}
	}
}

// bitsetMin is how many shards a search must ask for countSearch to mark
// them in a bitset rather than binary-search each neighbour among them.
const bitsetMin = 32

// countSearchWide is countSearch for many shards: it marks them in a
// bitset of the map's shards, then tests each of their neighbours above
// them with one bit, so the cost is one step per border rather than a
// binary search (a third of it on 906 shards of a 10,000-area grid).
func (s *Stats) countSearchWide(ids []shard.ID) {
	asked := make([]uint64, (int(ids[len(ids)-1])+64)/64)
	for _, id := range ids {
		asked[id/64] |= 1 << (id % 64)
	}
	for _, a := range ids {
		s.Shards[a].Searches.Add(1)
		above, first := s.regions.Neighbours(a)
		for j, b := range above {
			if int(b/64) < len(asked) && asked[b/64]&(1<<(b%64)) != 0 {
				s.borders[first+j].Searches.Add(1)
			}
		}
	}
}

func (s *Stats) countFanOut(n int) {
	s.FanOut[min(n, len(s.FanOut)-1)].Add(1)
}
