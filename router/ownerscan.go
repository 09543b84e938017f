package router

import (
	"geoshard/geo"
	"geoshard/shard"
)

// ownerScanShards is how many members of a key one shard visit is worth:
// asking a shard costs its lock, key map, tree root and cell walk, a few
// hundred nanoseconds whatever it holds, about what reading a handful of
// owner-table entries does (BenchmarkFineMap, docs/BENCHMARKS.md).
const ownerScanShards = 8

// ownerScanMin is the fewest shards a search must ask to be read from the
// owner table instead: below it the two cost about the same.
const ownerScanMin = 16

// fromOwners reports whether a search of g that would ask asks shards is
// cheaper read from g's owner table: on a fine map, a wide search of a
// big key asks thousands of shards for one or two members each, while
// the owner table holds each member's score and write time in one place.
func (r *Router) fromOwners(g *geoKey, asks int) bool {
	// A narrow owner table (a big key) holds no scores: its members'
	// copies would be read in their shards one by one.
	return r.cl == nil && g != nil && !g.narrowed.Load() && asks >= ownerScanMin && r.regions.Len() > fineMap &&
		g.entries.Load() <= int64(ownerScanShards*asks)
}

// scanOwners appends the members of g that q matches and that were written
// at or after cut, one hit per cell of q that holds the member's score, as
// the shards would find them (the caller merges them into discovery
// order). The owner table is the newest copy of every member, so no copy
// a handoff or a lost delete left behind is seen; a search of a small key
// asks only the shards the owner table names, to the same effect.
func (r *Router) scanOwners(g *geoKey, q *geo.Search, cut int64, dst []shard.Hit) []shard.Hit {
	for i := range g.stripes {
		st := &g.stripes[i]
		st.mu.Lock()
		for member, s := range st.owner.all() {
			if s.stamp < cut {
				continue
			}
			dst = appendOwnerHits(dst, q, member, s)
		}
		st.mu.Unlock()
	}
	return dst
}

// appendOwnerHits appends one member's hits: one per cell holding its
// score, if q matches it.
func appendOwnerHits(dst []shard.Hit, q *geo.Search, member string, s slot) []shard.Hit {
	var e shard.Entry
	var dist float64
	matched := false
	for c := range q.Cells {
		if s.score < q.Cells[c].Min || s.score >= q.Cells[c].Max {
			continue
		}
		if !matched {
			lon, lat := geo.Decode(s.score)
			d, ok := q.Match(lon, lat)
			if !ok {
				return dst
			}
			matched, dist = true, d
			e = shard.Entry{Member: member, Score: s.score, Lon: lon, Lat: lat, Stamp: s.stamp}
		}
		dst = append(dst, shard.Hit{Entry: e, Dist: dist, Cell: c})
	}
	return dst
}
