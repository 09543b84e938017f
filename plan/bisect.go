package plan

// The recursive bisection at the heart of Propose: each block of the
// density grid is cut along the cheapest grid line that keeps both sides
// near their fair share of pings.

import "math"

// bisect splits r into k leaves.
func (g *grid) bisect(r cellRect, k int, out *[]cellRect) {
	if k <= 1 || (r.i1-r.i0 < 2 && r.j1-r.j0 < 2) {
		*out = append(*out, r)
		return
	}
	best := g.bestCut(r, k)
	a, b := r, r
	if best.vertical {
		a.i1, b.i0 = best.at, best.at
	} else {
		a.j1, b.j0 = best.at, best.at
	}
	g.bisect(a, best.kLow, out)
	g.bisect(b, k-best.kLow, out)
}

// cut is a candidate line: column or row boundary `at`, with kLow shards
// going to the low (west or south) side.
type cut struct {
	vertical  bool
	at, kLow  int
	cost, off float64 // off: distance from the fair share, for ties and fallbacks
	fair      bool
}

func (c cut) better(o cut) bool {
	if c.fair != o.fair {
		return c.fair
	}
	if !c.fair {
		return c.off < o.off
	}
	if c.cost != o.cost {
		return c.cost < o.cost
	}
	return c.off < o.off
}

func (g *grid) bestCut(r cellRect, k int) cut {
	best := cut{off: math.Inf(1)}
	for _, vertical := range []bool{true, false} {
		lo, hi := r.i0, r.i1
		if !vertical {
			lo, hi = r.j0, r.j1
		}
		if hi-lo < 2 {
			continue
		}
		cost, weight := g.lineCosts(r, vertical, lo, hi)
		total := 0.0
		for _, w := range weight {
			total += w
		}
		// A cut's low side holds the weight of the lines before it.
		lowW := 0.0
		for at := lo + 1; at < hi; at++ {
			lowW += weight[at-1-lo]
			for _, kLow := range lowShares(k) {
				share := float64(kLow) / float64(k)
				got := share
				if total > 0 {
					got = lowW / total
				} else {
					got = float64(at-lo) / float64(hi-lo)
				}
				off := math.Abs(got-share) / math.Min(share, 1-share)
				c := cut{vertical: vertical, at: at, kLow: kLow, cost: cost[at-lo], off: off, fair: off <= g.cfg.Tolerance}
				if c.better(best) {
					best = c
				}
			}
		}
	}
	return best
}

// lowShares lists how k shards may split: evenly, and for odd k either way.
func lowShares(k int) []int {
	if k%2 == 0 {
		return []int{k / 2}
	}
	return []int{k / 2, k - k/2}
}

// lineCosts returns, for the grid lines lo..hi across r (vertical lines are
// column boundaries), what a border there would cost, and the ping weight
// of each column (or row) of cells of r.
func (g *grid) lineCosts(r cellRect, vertical bool, lo, hi int) (cost, weight []float64) {
	cost = make([]float64, hi-lo+1)
	weight = make([]float64, hi-lo)
	diff := make([]float64, hi-lo+2)
	edges, scale := g.xs, g.mx
	if !vertical {
		edges, scale = g.ys, g.my
	}
	add := func(p gpoint, w float64) {
		v := p.lon
		if !vertical {
			v = p.lat
		}
		d := p.reach / scale
		// Lines with edges[at] within [v-d, v+d] are reached.
		a := lowerBound(edges, v-d)
		b := lowerBound(edges, v+d+1e-12) - 1
		a, b = max(a, lo), min(b, hi)
		if a <= b {
			diff[a-lo] += w
			diff[b-lo+1] -= w
		}
	}
	for _, s := range g.searches {
		if r.has(s) {
			add(s, 1/g.nSearch)
		}
	}
	for _, p := range g.pings {
		if r.has(p) {
			add(p, g.cfg.PingWeight/g.nPings)
			if vertical {
				weight[p.i-lo]++
			} else {
				weight[p.j-lo]++
			}
		}
	}
	if g.nPings == 0 {
		// No pings: balance by searches instead.
		for _, s := range g.searches {
			if r.has(s) {
				if vertical {
					weight[s.i-lo]++
				} else {
					weight[s.j-lo]++
				}
			}
		}
	}
	run := 0.0
	for i := range cost {
		run += diff[i]
		cost[i] = run
	}
	return cost, weight
}

// lowerBound is the first index of sorted xs with xs[i] >= v.
func lowerBound(xs []float64, v float64) int {
	lo, hi := 0, len(xs)
	for lo < hi {
		mid := (lo + hi) / 2
		if xs[mid] < v {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
