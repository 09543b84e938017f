package shard

import (
	"slices"
	"sort"
)

// rmMaxBorders bounds how many borders a map numbers. A planar map has a
// few per area, but areas meeting at one point (slices of a pie) would
// make every pair a border; past this bound the rest go unnumbered and
// whoever counts per border counts them together.
const rmMaxBorders = 1 << 20

// rmAdj is a map's borders: pairs of shards whose areas come within the
// margin of each other, numbered 0..n-1 in (lower ID, higher ID) order.
// above[start[a]:start[a+1]] are the shards above a that a borders, and
// border start[a]+j is the one with above[start[a]+j].
type rmAdj struct {
	start []int32
	above []ID
}

// adjacency computes the borders once per map, on first use: a map loaded
// only to be checked never pays for it.
func (m *Map) adjacency() *rmAdj {
	m.adjOnce.Do(func() { m.adj = m.buildAdj() })
	return &m.adj
}

// buildAdj asks Touching, margin included, which shards come near each
// polygon's bounding box: a superset of the shards near the polygon that
// costs one index search per polygon, never a pass over all areas.
func (m *Map) buildAdj() rmAdj {
	type pair struct{ a, b ID }
	var pairs []pair
	var buf []ID
	for i := range m.polys {
		p := &m.polys[i]
		buf = m.Touching(p.bbox, buf[:0])
		for _, t := range buf {
			if t != p.shard {
				pairs = append(pairs, pair{min(t, p.shard), max(t, p.shard)})
			}
		}
	}
	slices.SortFunc(pairs, func(x, y pair) int {
		if x.a != y.a {
			return int(x.a) - int(y.a)
		}
		return int(x.b) - int(y.b)
	})
	pairs = slices.Compact(pairs)
	if len(pairs) > rmMaxBorders {
		pairs = pairs[:rmMaxBorders]
	}
	adj := rmAdj{start: make([]int32, len(m.names)+1), above: make([]ID, len(pairs))}
	for i, p := range pairs {
		adj.above[i] = p.b
		adj.start[p.a+1]++
	}
	for a := 1; a < len(adj.start); a++ {
		adj.start[a] += adj.start[a-1]
	}
	return adj
}

// Borders returns how many borders the map numbers: pairs of shards whose
// areas, each expanded by the margin, may meet (a few per area on a
// planar map, never more than about a million).
func (m *Map) Borders() int { return len(m.adjacency().above) }

// Border returns the number of the border between a and b, in either
// order; false when the two do not border each other (or the pair went
// unnumbered, see Borders).
func (m *Map) Border(a, b ID) (int, bool) {
	if a > b {
		a, b = b, a
	}
	adj := m.adjacency()
	if a == b || int(b) >= len(m.names) {
		return 0, false
	}
	lo, hi := adj.start[a], adj.start[a+1]
	j := sort.Search(int(hi-lo), func(i int) bool { return adj.above[lo+int32(i)] >= b })
	if int32(j) < hi-lo && adj.above[lo+int32(j)] == b {
		return int(lo) + j, true
	}
	return 0, false
}

// BorderAt returns the two shards of border i, the lower ID first.
func (m *Map) BorderAt(i int) (a, b ID) {
	adj := m.adjacency()
	// The shard whose run of borders holds i: the last start <= i.
	k := sort.Search(len(adj.start), func(k int) bool { return int(adj.start[k]) > i }) - 1
	return ID(k), adj.above[i]
}

// Neighbours returns the shards above id (higher IDs) that id borders, in
// ID order, and the number of the border with the first of them; the
// border with the j-th is first+j. The slice is the map's: read only.
func (m *Map) Neighbours(id ID) (above []ID, first int) {
	adj := m.adjacency()
	if int(id) >= len(m.names) {
		return nil, 0
	}
	lo, hi := adj.start[id], adj.start[id+1]
	return adj.above[lo:hi:hi], int(lo)
}
