package plan

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// The cell grid under the "follow" shape: which shard owns each cell,
// what a border next to a cell costs, and how a shard's cells become a
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
