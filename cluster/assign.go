package cluster

import (
	"slices"
)

// placement is who holds each shard: its primary, its replica ("" none)
// and whether that replica has been filled (a copy of the primary's shard
// arrived and live writes reach it): only a filled replica may take over
// a planned move.
type placement struct {
	primary, replica []string
	synced           []bool
}

func (p placement) clone() placement {
	return placement{primary: slices.Clone(p.primary), replica: slices.Clone(p.replica), synced: slices.Clone(p.synced)}
}

// loads counts, per live node, the entries of owners it appears in.
func loadsOf(owners []string, live []string) map[string]int {
	load := make(map[string]int, len(live))
	for _, n := range live {
		load[n] = 0
	}
	for _, o := range owners {
		if _, ok := load[o]; ok {
			load[o]++
		}
	}
	return load
}

// extreme returns the live node with the least (or, with most, the
// greatest) load, skipping the node not; the first in id order on ties.
func extreme(live []string, load map[string]int, most bool, not string) string {
	best := ""
	for _, n := range live {
		if n == not {
			continue
		}
		if best == "" || (most && load[n] > load[best]) || (!most && load[n] < load[best]) {
			best = n
		}
	}
	return best
}

// plan works out the next placement of shards on the live nodes, in steps
// an operator can live with:
//   - a shard whose primary is gone goes to its replica, which holds its
//     copies already, or, with no live replica, to the least loaded node;
//   - with replicas on, every shard gets a replica on another node (the
//     node with the fewest replicas), filled by a copy before it counts;
//   - while primary loads differ by more than one, at most maxMoves
//     shards move from the most to the least loaded node: with replicas,
//     the least loaded node first becomes the shard's replica and, once
//     filled, swaps roles with the primary (copy before switch); then
//     replica loads are evened out the same way;
//   - nothing else moves (sticky), and no planned move starts while some
//     replica is still being filled.
//
// With no live node the placement stays as it is. It reports whether
// anything changed.
func plan(cur placement, live []string, replicas bool, maxMoves int) (placement, bool) {
	if len(live) == 0 {
		return cur, false
	}
	live = slices.Clone(live)
	slices.Sort(live)
	next := cur.clone()
	changed := failover(&next, live)
	changed = fixReplicas(&next, live, replicas) || changed
	for i, r := range next.replica {
		if r != "" && !next.synced[i] {
			return next, changed // a copy is under way: the next planned move waits for it
		}
	}
	moves, moved := balancePrimaries(&next, live, replicas, maxMoves)
	changed = changed || moved
	if replicas && moves < maxMoves && !moved {
		changed = balanceReplicas(&next, live, maxMoves-moves) || changed
	}
	return next, changed
}

// failover gives each shard whose primary is not live a new one: its
// live replica if it has one, else the least loaded node.
func failover(p *placement, live []string) bool {
	load := loadsOf(p.primary, live)
	changed := false
	for i, o := range p.primary {
		if _, ok := load[o]; ok {
			continue
		}
		to := p.replica[i]
		if _, ok := load[to]; ok {
			p.replica[i], p.synced[i] = "", false
		} else {
			to = extreme(live, load, false, "")
		}
		p.primary[i] = to
		load[to]++
		changed = true
	}
	return changed
}

// fixReplicas drops replicas that are gone, off or on the primary's own
// node, and gives every shard without one a replica elsewhere.
func fixReplicas(p *placement, live []string, replicas bool) bool {
	changed := false
	for i, r := range p.replica {
		if r != "" && (!replicas || !slices.Contains(live, r) || r == p.primary[i]) {
			p.replica[i], p.synced[i] = "", false
			changed = true
		}
	}
	if !replicas || len(live) < 2 {
		return changed
	}
	load := loadsOf(p.replica, live)
	for i, r := range p.replica {
		if r == "" {
			to := extreme(live, load, false, p.primary[i])
			p.replica[i], p.synced[i] = to, false
			load[to]++
			changed = true
		}
	}
	return changed
}

// balancePrimaries makes at most maxMoves planned primary moves; it
// returns how many it made and whether any.
func balancePrimaries(p *placement, live []string, replicas bool, maxMoves int) (int, bool) {
	moves := 0
	load := loadsOf(p.primary, live)
	for moves < maxMoves {
		hi, lo := extreme(live, load, true, ""), extreme(live, load, false, "")
		if load[hi]-load[lo] <= 1 {
			break
		}
		// The last shard of the busiest node: a deterministic choice, so
		// a leader that restarts mid-rebalance carries on the same way.
		i := slices.Index(p.primary, hi)
		for j := len(p.primary) - 1; j >= 0; j-- {
			if p.primary[j] == hi {
				i = j
				break
			}
		}
		for j := len(p.primary) - 1; j >= 0; j-- {
			if p.primary[j] == hi && p.replica[j] == lo {
				i = j // a filled replica there already: swap at no cost
				break
			}
		}
		switch {
		case !replicas || len(live) < 2:
			p.primary[i] = lo
		case p.replica[i] == lo:
			p.primary[i], p.replica[i], p.synced[i] = lo, hi, false
		default:
			// Copy first: lo becomes the replica; the swap is a later step.
			p.replica[i], p.synced[i] = lo, false
			return moves + 1, true
		}
		load[hi]--
		load[lo]++
		moves++
	}
	return moves, moves > 0
}

// balanceReplicas evens out how many replicas each node holds, at most
// maxMoves at a time.
func balanceReplicas(p *placement, live []string, maxMoves int) bool {
	load := loadsOf(p.replica, live)
	changed := false
	for moves := 0; moves < maxMoves; moves++ {
		hi, lo := extreme(live, load, true, ""), extreme(live, load, false, "")
		if load[hi]-load[lo] <= 1 {
			break
		}
		i := -1
		for j := len(p.replica) - 1; j >= 0; j-- {
			if p.replica[j] == hi && p.primary[j] != lo {
				i = j
				break
			}
		}
		if i < 0 {
			break
		}
		p.replica[i], p.synced[i] = lo, false
		load[hi]--
		load[lo]++
		changed = true
	}
	return changed
}
