package router

import (
	"cmp"
	"math"
	"slices"

	"geoshard/shard"
)

// Member is a member and its score, as sorted-set reads return them.
type Member struct {
	Name  string
	Score float64
}

// Bound is one end of a score range.
type Bound struct {
	Score     float64
	Exclusive bool
}

func (b Bound) below(score float64) bool { // score is past a lower bound
	return score > b.Score || (!b.Exclusive && score == b.Score)
}

func (b Bound) above(score float64) bool { // score is within an upper bound
	return score < b.Score || (!b.Exclusive && score == b.Score)
}

// Range returns members with min <= score <= max in sorted-set order
// (reversed with rev), skipping offset of them and returning at most count
// (all when count < 0). Each member appears once, at its current copy.
func (r *Router) Range(k shard.Key, min, max Bound, rev bool, offset, count int) []Member {
	out, _ := r.ranged(k, min, max, rev, offset, count)
	return out
}

// TryRange is Range that fails, in cluster mode, when some shard could
// not be read, rather than answer with the members of the others.
func (r *Router) TryRange(k shard.Key, min, max Bound, rev bool, offset, count int) ([]Member, error) {
	out, err := r.ranged(k, min, max, rev, offset, count)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ranged is Range; with an error, what the shards that answered hold.
func (r *Router) ranged(k shard.Key, min, max Bound, rev bool, offset, count int) ([]Member, error) {
	g := r.key(k, false)
	if (g == nil && r.cl == nil) || offset < 0 {
		return nil, nil
	}
	need := math.MaxInt
	if count >= 0 {
		need = offset + count
	}
	for want := need; ; want = 2 * want {
		out, short, err := r.collect(k, g, min, max, rev, want)
		if len(out) > need {
			out = out[:need]
		}
		if !short || err != nil {
			if offset >= len(out) {
				return nil, err
			}
			return out[offset:], err
		}
	}
}

// collect gathers up to want copies per shard and merges them. short says
// some shard had more to give and dedupe left fewer than want.
func (r *Router) collect(k shard.Key, g *geoKey, min, max Bound, rev bool, want int) (out []Member, short bool, err error) {
	cut := r.minStamp(g, now())
	if r.cl != nil {
		// Only whole copies from every node, the newest of each member:
		// the owner table here is a cache and cannot pick the current one.
		// The nodes read at their own moments: a member handed off between
		// two shards meanwhile is named by the shard it left (departures.go).
		w := r.watchMoves(len(r.shards))
		all, truncated, err := r.scanCluster(k, min, max, rev, cut, want, w)
		short := truncated && len(all) < want
		return sortMembers(r.findDepartedIn(all, w, k, min, max, cut), rev), short, err
	}
	// A shard cut short gives its first want copies; once old copies (a
	// lost delete, a move half seen) are dropped from them, members past
	// the cut could sort before the others' and must be read.
	var all []shard.Entry
	var byName, truncated bool
	r.readShards(g, len(r.shards), func(alone bool, _ *moveWatch) {
		// Alone, with no copy a dropped delete left, the newest copy of
		// each name is the current one, and currentIn's stripe locks
		// would wait for a handoff waiting for this read.
		byName = r.dedupeByName(g) || alone && !r.hooks.dropped.Load()
		all, truncated, short = all[:0], false, false
		for i := range r.shards {
			es, tr := r.scanLocal([]shard.ID{shard.ID(i)}, k, min, max, rev, cut, want)
			if !byName {
				// A shard at a time: currentIn checks each copy against the
				// shard it came from.
				es = r.currentIn(g, shard.ID(i), es)
				short = short || (tr && len(es) < want)
			}
			truncated = truncated || tr
			all = append(all, es...)
		}
	})
	if byName {
		var dropped bool
		all, dropped = newestCopies(all)
		short = truncated && dropped
	}
	return sortMembers(all, rev), short, nil
}

// sortMembers puts copies in sorted-set order (reversed with rev).
func sortMembers(all []shard.Entry, rev bool) []Member {
	slices.SortFunc(all, func(a, b shard.Entry) int {
		c := cmp.Compare(a.Score, b.Score)
		if c == 0 { // names only on a tie: cmp.Or would compare every pair's
			c = cmp.Compare(a.Member, b.Member)
		}
		if rev {
			return -c
		}
		return c
	})
	out := make([]Member, len(all))
	for i, e := range all {
		out[i] = Member{e.Member, e.Score}
	}
	return out
}

// Rank returns how many members sort before the member (after it, with
// rev), and whether the member is there.
func (r *Router) Rank(k shard.Key, member string, rev bool) (int, bool) {
	rank, ok, _ := r.TryRank(k, member, rev)
	return rank, ok
}

// TryRank is Rank that fails, in cluster mode, when some shard could not
// be read.
func (r *Router) TryRank(k shard.Key, member string, rev bool) (int, bool, error) {
	if r.cl != nil {
		ms, err := r.TryRange(k, everything[0], everything[1], rev, 0, -1)
		for i, m := range ms {
			if m.Name == member {
				return i, true, nil
			}
		}
		return 0, false, err
	}
	score, ok := r.Score(k, member)
	if !ok {
		return 0, false, nil
	}
	g := r.key(k, false)
	cut := r.minStamp(g, now())
	var n int
	var all []shard.Entry
	var byName bool
	r.readShards(g, len(r.shards), func(alone bool, _ *moveWatch) {
		byName = r.dedupeByName(g) || alone && !r.hooks.dropped.Load() // as collect
		n, all = 0, all[:0]
		for i, s := range r.shards {
			if rev {
				s.Descend(k, math.Inf(1), cut, func(e shard.Entry) bool {
					if e.Score < score || (e.Score == score && e.Member <= member) {
						return false
					}
					all = append(all, e)
					return true
				})
			} else {
				s.Ascend(k, math.Inf(-1), cut, func(e shard.Entry) bool {
					if e.Score > score || (e.Score == score && e.Member >= member) {
						return false
					}
					all = append(all, e)
					return true
				})
			}
			if byName {
				continue
			}
			n += len(r.currentIn(g, shard.ID(i), all))
			all = all[:0]
		}
	})
	if byName {
		all, _ = newestCopies(all)
		n = len(all)
	}
	return n, true, nil
}
