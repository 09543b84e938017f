package router

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// Result is the answer to a search: hits in Redis's discovery order.
type Result struct {
	Hits     []shard.Hit
	Shards   int  // how many shards were asked
	Degraded bool // some shard missed its deadline and was left out
}

// Search finds the members of k that q matches, in Redis's discovery order
// (cell, then score, then member), each once at its newest position. With
// limit > 0 only the first limit hits are kept, as COUNT ... ANY does.
func (r *Router) Search(k shard.Key, q *geo.Search, limit int) Result {
	g := r.key(k, false)
	if g == nil && r.cl == nil {
		return Result{}
	}
	ids := r.touching(q)
	r.stats.countFanOut(len(ids))
	cut := r.minStamp(g, now())
	if len(ids) == 1 && r.local(ids[0]) {
		// The common case pays for no goroutine and no merge.
		id := ids[0]
		r.stats.Shards[id].Searches.Add(1)
		r.wait(id)
		return Result{Hits: r.shards[id].Search(k, q, cut, limit, nil), Shards: 1}
	}
	res := r.fanOut(k, ids, func(ctx context.Context, id shard.ID) ([]shard.Hit, error) {
		if r.cl == nil {
			return r.shards[id].Search(k, q, cut, limit, nil), nil
		}
		var hits []shard.Hit
		err := r.onShard(ctx, id, func(s *shard.Shard) error {
			hits = s.Search(k, q, cut, limit, nil)
			return nil
		}, func(ctx context.Context, p Peer) (err error) {
			hits, err = p.Search(ctx, id, k, q, cut, limit)
			return err
		})
		return hits, err
	})
	res.Hits = merge(res.Hits)
	if limit > 0 && len(res.Hits) > limit {
		res.Hits = res.Hits[:limit]
	}
	return res
}

// fanOut asks every shard in ids in parallel, each within the fan-out
// timeout, and gathers their hits; a shard that misses its deadline is
// left out and the result marked degraded.
func (r *Router) fanOut(k shard.Key, ids []shard.ID, ask func(context.Context, shard.ID) ([]shard.Hit, error)) Result {
	for i, a := range ids {
		r.stats.Shards[a].Searches.Add(1)
		for _, b := range ids[i+1:] {
			r.stats.Border(a, b).Searches.Add(1)
		}
	}
	type part struct {
		id   shard.ID
		hits []shard.Hit
		err  error
	}
	// The context ends remote calls that outlive the deadline; in-process
	// shards answer regardless and their goroutine just ends late.
	ctx := context.Background()
	if r.cl != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.FanoutTimeout())
		defer cancel()
	}
	parts := make(chan part, len(ids))
	for _, id := range ids {
		go func() {
			r.wait(id)
			hits, err := ask(ctx, id)
			parts <- part{id, hits, err}
		}()
	}
	res := Result{Shards: len(ids)}
	deadline := time.NewTimer(r.FanoutTimeout())
	defer deadline.Stop()
	answered := make(map[shard.ID]bool, len(ids))
	failed := false
	for got := 0; got < len(ids); got++ {
		select {
		case p := <-parts:
			if p.err != nil {
				// A shard whose node is down or unreachable: left out at
				// once, without waiting for the deadline.
				failed = true
				r.stats.Shards[p.id].Degraded.Add(1)
				r.remoteFailed("search", fmt.Errorf("shard %s: %w", r.regions.Name(p.id), p.err))
				continue
			}
			answered[p.id] = true
			res.Hits = append(res.Hits, p.hits...)
		case <-deadline.C:
			res.Degraded = true
			r.stats.Degraded.Add(1)
			for _, id := range ids {
				if !answered[id] {
					r.stats.Shards[id].Degraded.Add(1)
					r.log.Warn("search degraded: shard missed its deadline",
						"shard", r.regions.Name(id), "key", k.Name, "timeout", r.FanoutTimeout())
				}
			}
			got = len(ids)
		}
	}
	if failed && !res.Degraded {
		res.Degraded = true
		r.stats.Degraded.Add(1)
	}
	return res
}

// touching returns the shards that can hold a hit of q: those whose area,
// expanded by the hysteresis margin, meets the search's bounds.
func (r *Router) touching(q *geo.Search) []shard.ID {
	var rects [4]geo.Rect
	var buf [8]shard.ID
	ids := buf[:0]
	for _, rect := range q.Bounds(rects[:0]) {
		ids = r.regions.Touching(rect, ids)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func (r *Router) wait(id shard.ID) {
	if d := r.hooks.delay[id].Load(); d > 0 {
		time.Sleep(time.Duration(d))
	}
}

// merge puts hits from several shards in discovery order and keeps one
// copy of each member: the newest, which a handoff in flight or a lost
// delete can leave next to an older one.
func merge(hits []shard.Hit) []shard.Hit {
	hits = dedupe(hits)
	slices.SortFunc(hits, func(a, b shard.Hit) int {
		return cmp.Or(cmp.Compare(a.Cell, b.Cell), cmp.Compare(a.Score, b.Score), cmp.Compare(a.Member, b.Member))
	})
	return hits
}

// dedupe keeps, of each member, the copies with the newest timestamp.
func dedupe(hits []shard.Hit) []shard.Hit {
	newest := make(map[string]int64, len(hits))
	dup := false
	for _, h := range hits {
		if s, ok := newest[h.Member]; ok {
			dup = true
			if h.Stamp <= s {
				continue
			}
		}
		newest[h.Member] = h.Stamp
	}
	if dup {
		hits = slices.DeleteFunc(hits, func(h shard.Hit) bool { return h.Stamp != newest[h.Member] })
	}
	return hits
}
