package plan

import (
	"math"
	"slices"
)

// Shape "follow": the rectangles of the bisection are a start; each
// border between two of them is then re-routed as a staircase through the
// quietest cells of the two, so it can bend along a diagonal or winding
// gap instead of running straight through the first cheap grid line.
// Each shard ends up a union of grid cells, written as a rectilinear
// polygon.

// follow re-routes every straight border between two leaves as a
// staircase through the cells of the two leaves: a path, one border
// position per row (per column for a horizontal border), that minimises
// the weight of the cells it runs between, found by dynamic programming.
// A re-routing that would push either side out of the balance tolerance
// (and further than the straight cut) is retried in a narrower corridor
// around the straight line, down to the straight line itself; one that
// would leave two cells meeting at a single corner is dropped.
func (g *grid) follow(owner []int, leaves []cellRect) {
	weight, pings := g.cellWeights()
	load := make([]float64, len(leaves))
	total := 0.0
	for c, o := range owner {
		load[o] += pings[c]
		total += pings[c]
	}
	fair := total / float64(len(leaves))
	off := func(l float64) float64 { return math.Max(0, math.Abs(l-fair)/math.Max(fair, 1)-g.cfg.Tolerance) }
	for a := range leaves {
		for b := range leaves {
			for _, vertical := range []bool{true, false} {
				seg, ok := sharedEdge(leaves[a], leaves[b], vertical)
				if !ok || seg.hi-seg.lo < minFollowRun {
					continue
				}
				before := slices.Clone(owner)
				for width := seg.span; width >= 1; width /= 2 {
					moved, ok := g.reroute(owner, weight, pings, a, b, seg, width)
					if !ok {
						continue
					}
					if off(load[a]-moved)+off(load[b]+moved) <= off(load[a])+off(load[b])+1e-12 {
						load[a], load[b] = load[a]-moved, load[b]+moved
						break
					}
					copy(owner, before)
				}
			}
		}
	}
}

// minFollowRun is the shortest straight border (cells) that is
// re-routed: a short one between two cut lines would move as a whole,
// leaving a thin strip of one shard between two others.
const minFollowRun = 8

// maxStep is how far a re-routed border may shift from one row to the
// next: it keeps borders from diving along the edge of their corridor
// as thin strips, and still lets them follow a diagonal gap.
const maxStep = 2

// edgeSeg is a straight border between leaf a (low side: west or south)
// and leaf b: grid line at, over rows (columns) lo..hi-1, with the
// corridor of cells from min..max-1 that the two leaves span across it.
type edgeSeg struct {
	vertical             bool
	at, lo, hi, min, max int
	span                 int // how far the border may move either way
}

func sharedEdge(a, b cellRect, vertical bool) (edgeSeg, bool) {
	if vertical {
		lo, hi := max(a.j0, b.j0), min(a.j1, b.j1)
		if a.i1 != b.i0 || lo >= hi {
			return edgeSeg{}, false
		}
		return edgeSeg{true, a.i1, lo, hi, a.i0, b.i1, max(a.i1-a.i0, b.i1-b.i0)}, true
	}
	lo, hi := max(a.i0, b.i0), min(a.i1, b.i1)
	if a.j1 != b.j0 || lo >= hi {
		return edgeSeg{}, false
	}
	return edgeSeg{false, a.j1, lo, hi, a.j0, b.j1, max(a.j1-a.j0, b.j1-b.j0)}, true
}

// cell returns the grid index of position x across the border in row
// (column) r of the segment.
func (g *grid) segCell(s edgeSeg, r, x int) int {
	if s.vertical {
		return r*g.nx + x
	}
	return x*g.nx + r
}

// reroute moves the border of s to the cheapest staircase within width
// cells of the straight line, rewriting owner, and returns the pings that
// moved from a to b (negative: from b to a). Only cells a or b own now
// change hands. ok is false, with owner as it was, when it found nothing
// better than the line as it runs now, or the result would split a side
// or make two cells meet at a corner only.
func (g *grid) reroute(owner []int, weight, pings []float64, a, b int, s edgeSeg, width int) (moved float64, ok bool) {
	n := s.hi - s.lo
	// Per row, the run of a and b cells around the line bounds where the
	// border may go.
	lo, hi := make([]int, n), make([]int, n)
	mine := func(row, c int) bool { o := owner[g.segCell(s, row, c)]; return o == a || o == b }
	for r := range n {
		row := s.lo + r
		x0, x1 := s.at, s.at
		for x0 > s.min && mine(row, x0-1) {
			x0--
		}
		for x1 < s.max && mine(row, x1) {
			x1++
		}
		lo[r], hi[r] = max(x0+1, s.at-width), min(x1-1, s.at+width)
		if lo[r] > hi[r] {
			return 0, false
		}
	}
	w := func(row, x int) float64 { return weight[g.segCell(s, row, x)] }
	path, best := staircase(s, lo, hi, w)
	// What the border between a and b costs in these rows as it runs now.
	now := 0.0
	for r := range n {
		row := s.lo + r
		for c := s.min; c+1 < s.max; c++ {
			o1, o2 := owner[g.segCell(s, row, c)], owner[g.segCell(s, row, c+1)]
			if o1 != o2 && (o1 == a || o1 == b) && (o2 == a || o2 == b) {
				now += w(row, c) + w(row, c+1)
			}
		}
	}
	if best >= now-1e-12 {
		return 0, false
	}
	saved := map[int]int{}
	for r := n - 1; r >= 0; r-- {
		row, x := s.lo+r, path[r]
		for c := s.min; c < s.max; c++ {
			cell := g.segCell(s, row, c)
			was := owner[cell]
			if was != a && was != b {
				continue
			}
			saved[cell] = was
			owner[cell] = a
			if c >= x {
				owner[cell] = b
			}
			if was == a && owner[cell] == b {
				moved += pings[cell]
			} else if was == b && owner[cell] == a {
				moved -= pings[cell]
			}
		}
	}
	bad := !g.connected(owner, a) || !g.connected(owner, b)
	for cell := range saved {
		bad = bad || g.pinched(owner, cell)
	}
	if bad {
		for cell, o := range saved {
			owner[cell] = o
		}
		return 0, false
	}
	return moved, true
}

// staircase finds, by dynamic programming over the rows of s, the border
// position per row within lo[r]..hi[r] (shifting at most maxStep between
// rows) that minimises the weight of the cells it runs between, and its
// cost; w is a cell's weight by row and position.
func staircase(s edgeSeg, lo, hi []int, w func(row, x int) float64) (path []int, best float64) {
	n := len(lo)
	// cost[r][x-lo[r]]: cheapest path over rows 0..r ending at position x.
	cost, from := make([][]float64, n), make([][]int, n)
	for r := range n {
		row := s.lo + r
		cost[r], from[r] = make([]float64, hi[r]-lo[r]+1), make([]int, hi[r]-lo[r]+1)
		for x := lo[r]; x <= hi[r]; x++ {
			here := w(row, x-1) + w(row, x)
			if r == 0 || r == n-1 {
				// The cells the border moves past in an end row now face
				// the row beyond the segment across a new border.
				for c := min(x, s.at); c < max(x, s.at); c++ {
					here += w(row, c)
				}
			}
			if r == 0 {
				cost[r][x-lo[r]] = here
				continue
			}
			low, arg := math.Inf(1), lo[r-1]
			for x0 := max(lo[r-1], x-maxStep); x0 <= min(hi[r-1], x+maxStep); x0++ {
				step := cost[r-1][x0-lo[r-1]]
				for c := min(x0, x); c < max(x0, x); c++ {
					step += w(row-1, c) + w(row, c)
				}
				if step < low {
					low, arg = step, x0
				}
			}
			cost[r][x-lo[r]], from[r][x-lo[r]] = low+here, arg
		}
	}
	x := lo[n-1]
	for c := lo[n-1]; c <= hi[n-1]; c++ {
		if cost[n-1][c-lo[n-1]] < cost[n-1][x-lo[n-1]] {
			x = c
		}
	}
	best = cost[n-1][x-lo[n-1]]
	path = make([]int, n)
	for r := n - 1; r >= 0; r-- {
		path[r] = x
		x = from[r][x-lo[r]]
	}
	return path, best
}
