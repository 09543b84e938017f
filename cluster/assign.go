package cluster

import (
	"slices"
)

// plan works out the next assignment of shards to the live nodes, in
// steps an operator can live with:
//   - a shard whose node is gone (or that has none) goes to the least
//     loaded live node at once;
//   - then, while loads differ by more than one, at most maxMoves shards
//     move from the most to the least loaded node, so a join moves a few
//     shards at a time instead of all at once;
//   - nothing else moves (sticky).
//
// With no live node the assignment stays as it is. It reports whether
// anything changed.
func plan(cur []string, live []string, maxMoves int) ([]string, bool) {
	if len(live) == 0 {
		return cur, false
	}
	live = slices.Clone(live)
	slices.Sort(live)
	next := slices.Clone(cur)
	load := make(map[string]int, len(live))
	for _, n := range live {
		load[n] = 0
	}
	for _, o := range next {
		if _, ok := load[o]; ok {
			load[o]++
		}
	}
	least := func() string {
		best := live[0]
		for _, n := range live[1:] {
			if load[n] < load[best] {
				best = n
			}
		}
		return best
	}
	most := func() string {
		best := live[0]
		for _, n := range live[1:] {
			if load[n] > load[best] {
				best = n
			}
		}
		return best
	}
	changed := false
	for i, o := range next {
		if _, ok := load[o]; !ok {
			to := least()
			next[i] = to
			load[to]++
			changed = true
		}
	}
	for moves := 0; moves < maxMoves; moves++ {
		hi, lo := most(), least()
		if load[hi]-load[lo] <= 1 {
			break
		}
		// The last shard of the busiest node: a deterministic choice, so
		// a leader that restarts mid-rebalance carries on the same way.
		for i := len(next) - 1; i >= 0; i-- {
			if next[i] == hi {
				next[i] = lo
				break
			}
		}
		load[hi]--
		load[lo]++
		changed = true
	}
	return next, changed
}
