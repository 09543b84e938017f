package router

// Whole-key reads in cluster mode: every node is asked, and each member
// counted once, at its newest copy.

import (
	"context"
	"math"
	"sync"

	"geoshard/shard"
)

// scanCluster gathers up to want copies per shard within [min, max] from
// every node; truncated says some shard had more.
func (r *Router) scanCluster(k shard.Key, min, max Bound, rev bool, cut int64, want int) ([]shard.Entry, bool) {
	ctx, cancel := r.callCtx()
	defer cancel()
	var (
		mu        sync.Mutex
		all       []shard.Entry
		truncated bool
	)
	err := r.onNodes(ctx, nil, func(ids []shard.ID) {
		es, tr := r.scanLocal(ids, k, min, max, rev, cut, want)
		mu.Lock()
		all, truncated = append(all, es...), truncated || tr
		mu.Unlock()
	}, func(ctx context.Context, p Peer, ids []shard.ID) error {
		es, tr, err := p.Scan(ctx, ids, k, min, max, rev, cut, want)
		mu.Lock()
		all, truncated = append(all, es...), truncated || tr
		mu.Unlock()
		return err
	})
	if err != nil {
		r.remoteFailed("range", err)
	}
	return newestEntries(all), truncated
}

// newestEntries keeps, of each member, its newest copy.
func newestEntries(es []shard.Entry) []shard.Entry {
	newest := make(map[string]int, len(es))
	out := es[:0]
	for _, e := range es {
		if i, ok := newest[e.Member]; ok {
			if e.Stamp > out[i].Stamp {
				out[i] = e
			}
			continue
		}
		newest[e.Member] = len(out)
		out = append(out, e)
	}
	return out
}

// scanLocal is one node's part of a range: up to want copies per shard.
func (r *Router) scanLocal(ids []shard.ID, k shard.Key, min, max Bound, rev bool, cut int64, want int) ([]shard.Entry, bool) {
	var all []shard.Entry
	truncated := false
	for _, id := range ids {
		s := r.shards[id]
		n := 0
		visit := func(e shard.Entry) bool {
			if n == want {
				truncated = true
				return false
			}
			if rev {
				if !min.below(e.Score) {
					return false
				}
				if !max.above(e.Score) {
					return true
				}
			} else {
				if !max.above(e.Score) {
					return false
				}
				if !min.below(e.Score) {
					return true
				}
			}
			all = append(all, e)
			n++
			return true
		}
		if rev {
			s.Descend(k, max.Score, cut, visit)
		} else {
			s.Ascend(k, min.Score, cut, visit)
		}
	}
	return all, truncated
}

var everything = [2]Bound{{Score: math.Inf(-1)}, {Score: math.Inf(1)}}

// cardCluster counts a key's members over every node, each once.
func (r *Router) cardCluster(k shard.Key) int {
	g := r.key(k, false)
	es, _ := r.scanCluster(k, everything[0], everything[1], false, r.minStamp(g, now()), math.MaxInt)
	return len(es)
}

// scoreCluster reads a member's newest score over every node.
func (r *Router) scoreCluster(k shard.Key, member string) (float64, bool) {
	g := r.key(k, false)
	s, ok := r.findMember(k, member, r.minStamp(g, now()))
	return s.score, ok
}
