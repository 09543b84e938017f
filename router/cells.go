package router

import (
	"geoshard/geo"
	"geoshard/shard"
)

// CellCount is how many member copies one shard holds in one geohash
// cell: the cell's index is a stored score shifted right by 2*(26-step)
// bits, so it interleaves step bits of latitude and of longitude.
type CellCount struct {
	Shard shard.ID
	Cell  uint64
	Count int64
}

// CellCounts counts the member copies of every key, per local shard and
// geohash cell of the given step (1..26 bits per axis), for density
// pictures. It walks the copies in score order, one cell per call into
// the shard, so a writer never waits longer than one cell's walk; the
// whole walk costs one visit per copy, which is why callers cache it.
func (r *Router) CellCounts(step uint) []CellCount {
	step = min(max(step, 1), geo.Step)
	shift := 2 * (geo.Step - step)
	keys := r.keyList()
	var out []CellCount
	for i, s := range r.shards {
		counts := map[uint64]int64{}
		for _, k := range keys {
			countCells(s, k, shift, counts)
		}
		for c, n := range counts {
			out = append(out, CellCount{Shard: shard.ID(i), Cell: c, Count: n})
		}
	}
	return out
}

// countCells adds one key's copies in s to counts, cell by cell.
func countCells(s *shard.Shard, k shard.Key, shift uint, counts map[uint64]int64) {
	from, more := 0.0, true
	for more {
		more = false
		cell, n := uint64(0), int64(0)
		s.Ascend(k, from, 0, func(e shard.Entry) bool {
			c := uint64(e.Score) >> shift
			if n == 0 {
				cell = c
			} else if c != cell {
				// The next cell starts here: resume from its first score.
				from, more = float64(c<<shift), true
				return false
			}
			n++
			return true
		})
		if n > 0 {
			counts[cell] += n
		}
	}
}
