package plan

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// Shape "follow": the rectangles of the bisection are a start; each
// border between two of them is then re-routed as a staircase through the
// quietest cells of the two, so it can bend along a diagonal or winding
// gap instead of running straight through the first cheap grid line.
// Each shard ends up a union of grid cells, written as a rectilinear
// polygon.

// cellOwners is which leaf owns each grid cell (row-major, j*nx+i).
func (g *grid) cellOwners(leaves []cellRect) []int {
	owner := make([]int, g.nx*g.ny)
	for n, l := range leaves {
		for j := l.j0; j < l.j1; j++ {
			for i := l.i0; i < l.i1; i++ {
				owner[j*g.nx+i] = n
			}
		}
	}
	return owner
}

// cellWeights is what a border next to each cell costs: its share of
// pings (future handoffs and flaps) plus its share of searches spread
// over their typical reach (a search crosses borders within its radius).
func (g *grid) cellWeights() (weight, pings []float64) {
	n := g.nx * g.ny
	weight, pings = make([]float64, n), make([]float64, n)
	for _, p := range g.pings {
		pings[p.j*g.nx+p.i]++
	}
	searches := make([]float64, n)
	reach := 0.0
	for _, s := range g.searches {
		searches[s.j*g.nx+s.i]++
		reach += s.reach
	}
	cellM := math.Min((g.xs[1]-g.xs[0])*g.mx, (g.ys[1]-g.ys[0])*g.my)
	r := 0
	if len(g.searches) > 0 {
		r = min(int(math.Round(reach/float64(len(g.searches))/cellM)), 8)
	}
	spread := boxBlur(searches, g.nx, g.ny, r)
	for c := range weight {
		weight[c] = g.cfg.PingWeight*ratio(pings[c], g.nPings) + ratio(spread[c], g.nSearch)
	}
	return weight, pings
}

// boxBlur spreads each value evenly over the (2r+1)² cells around it.
func boxBlur(v []float64, nx, ny, r int) []float64 {
	if r == 0 {
		return v
	}
	out := make([]float64, len(v))
	share := 1 / float64((2*r+1)*(2*r+1))
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			if v[j*nx+i] == 0 {
				continue
			}
			for dj := max(-r, -j); dj <= r && j+dj < ny; dj++ {
				for di := max(-r, -i); di <= r && i+di < nx; di++ {
					out[(j+dj)*nx+i+di] += v[j*nx+i] * share
				}
			}
		}
	}
	return out
}

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
			best, arg := math.Inf(1), lo[r-1]
			for x0 := max(lo[r-1], x-maxStep); x0 <= min(hi[r-1], x+maxStep); x0++ {
				step := cost[r-1][x0-lo[r-1]]
				for c := min(x0, x); c < max(x0, x); c++ {
					step += w(row-1, c) + w(row, c)
				}
				if step < best {
					best, arg = step, x0
				}
			}
			cost[r][x-lo[r]], from[r][x-lo[r]] = best+here, arg
		}
	}
	x := lo[n-1]
	for c := lo[n-1]; c <= hi[n-1]; c++ {
		if cost[n-1][c-lo[n-1]] < cost[n-1][x-lo[n-1]] {
			x = c
		}
	}
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
	if cost[n-1][x-lo[n-1]] >= now-1e-12 {
		return 0, false
	}
	saved := map[int]int{}
	for r := n - 1; r >= 0; r-- {
		row := s.lo + r
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
		x = from[r][x-lo[r]]
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

// connected reports whether shard s's cells form one piece (4-neighbour).
func (g *grid) connected(owner []int, s int) bool {
	start, count := -1, 0
	for c, o := range owner {
		if o == s {
			count++
			if start < 0 {
				start = c
			}
		}
	}
	if start < 0 {
		return false
	}
	seen := map[int]bool{start: true}
	stack := []int{start}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		g.eachNeighbour(c, func(n int) {
			if owner[n] == s && !seen[n] {
				seen[n] = true
				stack = append(stack, n)
			}
		})
	}
	return len(seen) == count
}

func (g *grid) eachNeighbour(c int, fn func(n int)) {
	i, j := c%g.nx, c/g.nx
	if i > 0 {
		fn(c - 1)
	}
	if i+1 < g.nx {
		fn(c + 1)
	}
	if j > 0 {
		fn(c - g.nx)
	}
	if j+1 < g.ny {
		fn(c + g.nx)
	}
}

// pinched reports whether a 2x2 block around cell c has a shard on one
// diagonal only: two of its cells would meet at a single point, which a
// region map cannot describe as one simple ring.
func (g *grid) pinched(owner []int, c int) bool {
	i, j := c%g.nx, c/g.nx
	for _, d := range [][2]int{{-1, -1}, {0, -1}, {-1, 0}, {0, 0}} {
		i0, j0 := i+d[0], j+d[1]
		if i0 < 0 || j0 < 0 || i0+1 >= g.nx || j0+1 >= g.ny {
			continue
		}
		a, b := owner[j0*g.nx+i0], owner[j0*g.nx+i0+1]
		cc, dd := owner[(j0+1)*g.nx+i0], owner[(j0+1)*g.nx+i0+1]
		if (a == dd && a != b && a != cc) || (b == cc && b != a && b != dd) {
			return true
		}
	}
	return false
}

// cellsGeoJSON writes each shard's cells as one polygon (outer ring and
// any holes) traced along the cell edges.
func (g *grid) cellsGeoJSON(owner []int, k int, margin float64) ([]byte, error) {
	var feats []any
	for s := 0; s < k; s++ {
		rings := g.trace(owner, s)
		if len(rings) == 0 {
			continue
		}
		// The outer ring has the largest area; the rest are holes.
		outer := 0
		for r := range rings {
			if math.Abs(ringArea(rings[r])) > math.Abs(ringArea(rings[outer])) {
				outer = r
			}
		}
		rings[0], rings[outer] = rings[outer], rings[0]
		feats = append(feats, map[string]any{"type": "Feature", "properties": map[string]string{"shard": fmt.Sprintf("area-%d", s+1)},
			"geometry": map[string]any{"type": "Polygon", "coordinates": rings}})
	}
	return json.MarshalIndent(map[string]any{"type": "FeatureCollection",
		"properties": map[string]any{"margin": margin}, "features": feats}, "", " ")
}

// trace chains the directed cell edges that have shard s on their left
// into closed rings, dropping the points between collinear edges.
func (g *grid) trace(owner []int, s int) [][][2]float64 {
	in := func(i, j int) bool { return i >= 0 && j >= 0 && i < g.nx && j < g.ny && owner[j*g.nx+i] == s }
	type pt struct{ i, j int }
	next := map[pt]pt{}
	for j := 0; j < g.ny; j++ {
		for i := 0; i < g.nx; i++ {
			if !in(i, j) {
				continue
			}
			if !in(i, j-1) {
				next[pt{i, j}] = pt{i + 1, j}
			}
			if !in(i+1, j) {
				next[pt{i + 1, j}] = pt{i + 1, j + 1}
			}
			if !in(i, j+1) {
				next[pt{i + 1, j + 1}] = pt{i, j + 1}
			}
			if !in(i-1, j) {
				next[pt{i, j + 1}] = pt{i, j}
			}
		}
	}
	// Start each ring at its lowest, then leftmost, point, so the output
	// does not depend on map order.
	order := make([]pt, 0, len(next))
	for p := range next {
		order = append(order, p)
	}
	slices.SortFunc(order, func(a, b pt) int { return cmp.Or(cmp.Compare(a.j, b.j), cmp.Compare(a.i, b.i)) })
	var rings [][][2]float64
	for _, start := range order {
		if _, open := next[start]; !open {
			continue
		}
		var pts []pt
		for p := start; ; {
			pts = append(pts, p)
			q := next[p]
			delete(next, p)
			if p = q; p == start {
				break
			}
		}
		var ring [][2]float64
		for n, p := range pts {
			prev, nxt := pts[(n+len(pts)-1)%len(pts)], pts[(n+1)%len(pts)]
			if (prev.i == p.i && p.i == nxt.i) || (prev.j == p.j && p.j == nxt.j) {
				continue
			}
			ring = append(ring, [2]float64{g.xs[p.i], g.ys[p.j]})
		}
		rings = append(rings, append(ring, ring[0]))
	}
	return rings
}
