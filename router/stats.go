package router

import (
	"sort"
	"sync"
	"sync/atomic"

	"geoshard/shard"
)

// ShardStats counts what happens in one shard. INFO and /metrics read it.
type ShardStats struct {
	Writes      atomic.Int64 // copies written
	HandoffsIn  atomic.Int64 // members moved here from another shard
	HandoffsOut atomic.Int64 // members moved away
	Searches    atomic.Int64 // searches that asked this shard
	Degraded    atomic.Int64 // searches that gave up waiting for this shard
	Expired     atomic.Int64 // copies removed by the position TTL
}

// BorderStats counts what happens across the border between two shards.
type BorderStats struct {
	Handoffs        atomic.Int64 // members that crossed it
	FlapsSuppressed atomic.Int64 // writes kept in place by the hysteresis margin
	Searches        atomic.Int64 // searches that asked both shards
}

// Border names a pair of shards, the lower ID first.
type Border struct{ A, B shard.ID }

func borderOf(a, b shard.ID) Border {
	if a > b {
		a, b = b, a
	}
	return Border{a, b}
}

// Stats holds the router's counters.
type Stats struct {
	Shards []ShardStats
	// FanOut[n] counts searches that asked n shards (the last bucket
	// counts n and more).
	FanOut   [9]atomic.Int64
	Degraded atomic.Int64

	mu      sync.Mutex
	borders map[Border]*BorderStats
}

func newStats(shards int) *Stats {
	return &Stats{Shards: make([]ShardStats, shards), borders: make(map[Border]*BorderStats)}
}

// Border returns the counters of the border between a and b.
func (s *Stats) Border(a, b shard.ID) *BorderStats {
	k := borderOf(a, b)
	s.mu.Lock()
	defer s.mu.Unlock()
	bs := s.borders[k]
	if bs == nil {
		bs = new(BorderStats)
		s.borders[k] = bs
	}
	return bs
}

// Borders lists the borders that have seen any traffic, in ID order.
func (s *Stats) Borders() []Border {
	s.mu.Lock()
	out := make([]Border, 0, len(s.borders))
	for b := range s.borders {
		out = append(out, b)
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].A != out[j].A {
			return out[i].A < out[j].A
		}
		return out[i].B < out[j].B
	})
	return out
}

func (s *Stats) countFanOut(n int) {
	s.FanOut[min(n, len(s.FanOut)-1)].Add(1)
}
