package router

import (
	"cmp"
	"context"
	"slices"
	"sync/atomic"

	"geoshard/geo"
	"geoshard/shard"
)

// maxNearest bounds COUNT for the nearest-first walk: each shard keeps a
// heap of n+1 distances, and a COUNT near the int64 limit must neither
// overflow n+1 nor size that heap; the full search serves such counts.
const maxNearest = 1 << 16

// Nearest answers a circle search with COUNT n ASC (no ANY) by walking
// outwards from the centre instead of collecting every hit. exact is
// false when that walk cannot prove it matches Redis, whose answer then
// depends on how its partial sort orders tied distances; the caller falls
// back to Search and sorts as Redis does.
func (r *Router) Nearest(k shard.Key, q *geo.Search, n int) (res Result, exact bool) {
	return r.NearestInto(nil, k, q, n)
}

// NearestInto is Nearest that appends the hits to dst[:0], so that a
// caller lending pooled slices makes no garbage for them. When exact is
// false the hits are dst[:0] (whatever dst's storage now holds is
// scratch).
func (r *Router) NearestInto(dst []shard.Hit, k shard.Key, q *geo.Search, n int) (res Result, exact bool) {
	dst = dst[:0]
	g := r.key(k, false)
	if g == nil && r.cl == nil {
		return Result{Hits: dst}, true
	}
	if !q.NearestFirst() || n > maxNearest {
		return Result{Hits: dst}, false
	}
	// While a reload moves members the walk holds as it is: a member not
	// moved yet lies within its previous shard's area and margin, and
	// asked and touching name the previous map's shards too, so any shard
	// that can hold a nearer member is asked; a member caught between its
	// two copies shows up twice, which sends the caller to the full search.
	var idBuf [8]shard.ID
	asked, mark := r.askedIn(g, q, idBuf[:0])
	ids := asked
	cut := r.minStamp(g, now())
	res.Hits = dst
	seen, w := r.handoffsSeen(g, ids), r.watchMoves(len(ids))
	// The first shard's walk reads a shard of the new map before the old
	// ones, which a reload's move would race (oldFirst): not while it runs.
	if r.cl == nil && len(ids) > 1 && r.moving() == nil {
		var exact bool
		if ids, exact = r.nearFirst(k, q, ids, n, cut, &res); !exact {
			return Result{Hits: dst}, false
		}
		dst = res.Hits[:0] // the first shard's walk may have grown it
	}
	partial := false
	if len(ids) == 1 && r.local(ids[0]) {
		// Each shard gives its n+1 nearest: enough to see whether the
		// n-th and the next are tied.
		r.stats.Shards[ids[0]].Searches.Add(1)
		r.wait(ids[0])
		hits, complete := r.shards[ids[0]].Nearest(k, q, cut, n+1, dst)
		res, partial = Result{Hits: hits, Shards: 1}, !complete
	} else if len(ids) > 0 {
		var ok bool
		if res, partial, ok = r.nearestFan(dst, ids, k, q, cut, n, w); !ok {
			return Result{Hits: dst}, false
		}
	}
	r.stats.countFanOut(res.Shards)
	if handedOff(g, seen) || len(w.missing(len(res.Hits), res.member)) > 0 {
		// A member handed off between two shards meanwhile may be
		// missing: the full search reads them again.
		r.stats.SearchRetries.Add(1)
		return Result{Hits: dst}, false
	}
	if len(r.missed(mark, q, asked)) > 0 {
		// A member came meanwhile to a shard skipped as empty: the full
		// search asks it.
		return Result{Hits: dst}, false
	}
	top, exact := nearestTop(res, n, partial)
	if !exact {
		// The slice the walk may have grown goes back to the caller.
		return Result{Hits: res.Hits[:0]}, false
	}
	return top, true
}

// nearestFan asks every shard of ids, local or remote, for its n+1
// nearest hits. partial tells that some shard's walk stopped early; false
// when a stale copy may have taken the place of a hit the walk did not
// reach. Its own function because the shards' closure escapes to the
// fan-out: a search asking one local shard makes no garbage for it.
func (r *Router) nearestFan(dst []shard.Hit, ids []shard.ID, k shard.Key, q *geo.Search, cut int64, n int,
	w *moveWatch) (res Result, partial, ok bool) {
	var stopped atomic.Bool
	ask := func(ctx context.Context, id shard.ID, dst []shard.Hit) ([]shard.Hit, error) {
		complete := true
		local := func(s *shard.Shard) error {
			dst, complete = s.Nearest(k, q, cut, n+1, dst)
			w.local(r, []shard.ID{id}, k, cut, searchTakes(q))
			return nil
		}
		var err error
		if r.cl == nil {
			local(r.shards[id])
		} else {
			err = r.onShard(ctx, id, local, func(ctx context.Context, p Peer) (err error) {
				var hits []shard.Hit
				var departed []string
				hits, complete, departed, err = p.Nearest(ctx, id, k, q, cut, n+1, w.from())
				dst = append(dst, hits...)
				w.add(departed)
				return err
			})
		}
		if err == nil && !complete {
			stopped.Store(true)
		}
		return dst, err
	}
	res = r.fanOut(ids, dst, ask)
	before := len(res.Hits)
	if res.Hits = dedupe(res.Hits); len(res.Hits) < before && stopped.Load() {
		return Result{}, false, false
	}
	return res, stopped.Load(), true
}

// nearestTop sorts the walk's hits nearest first and keeps n of them;
// false when that cannot be Redis's answer: the n-th and the next tie, or
// fewer than n+1 hits came from a walk that stopped early somewhere.
func nearestTop(res Result, n int, partial bool) (Result, bool) {
	// Nearest first; equal distances in discovery order, as Redis's
	// stable full sort leaves them when it returns every hit. Each key is
	// compared only on a tie of the one before (cmp.Or would compare the
	// names of every pair: 3 % of a 2 km COUNT 10 search's CPU).
	slices.SortFunc(res.Hits, func(a, b shard.Hit) int {
		if c := cmp.Compare(a.Dist, b.Dist); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Cell, b.Cell); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Member, b.Member)
	})
	hits := res.Hits
	if len(hits) <= n {
		// Every hit is here only if no shard stopped early.
		return res, !partial
	}
	for i := 1; i <= n; i++ {
		if hits[i].Dist == hits[i-1].Dist {
			return Result{}, false
		}
	}
	// The hits past n stay in a slice a caller may pool: drop their names.
	clear(hits[n:])
	res.Hits = hits[:n]
	return res, true
}

// nearFirst walks the shard that owns the centre before any other: once it
// has n+1 hits, only shards that can hold a member nearer than its
// (n+1)-th need asking, which near a border is usually none. It returns
// the shards still to ask (none when it answered: the hits are in res),
// and false when a stale copy may hide a hit, as in Nearest.
func (r *Router) nearFirst(k shard.Key, q *geo.Search, ids []shard.ID, n int, cut int64, res *Result) ([]shard.ID, bool) {
	first := r.regions.Locate(q.Lon, q.Lat)
	if !slices.Contains(ids, first) {
		return ids, true
	}
	r.stats.Shards[first].Searches.Add(1)
	r.wait(first)
	hits, complete := r.shards[first].Nearest(k, q, cut, n+1, res.Hits[:0])
	if complete || len(hits) <= n {
		res.Hits = hits[:0] // keep the storage for the fan-out
		return ids, true    // the whole circle may matter
	}
	slices.SortFunc(hits, func(a, b shard.Hit) int { return cmp.Compare(a.Dist, b.Dist) })
	reach := geo.NewSearch(q.Lon, q.Lat, geo.Shape{Radius: hits[n].Dist, Unit: 1})
	var touchBuf, restBuf [8]shard.ID
	rest := restBuf[:0]
	for _, id := range r.touchingIn(reach, touchBuf[:0]) {
		if id != first && slices.Contains(ids, id) {
			rest = append(rest, id)
		}
	}
	*res = Result{Hits: hits, Shards: 1}
	if len(rest) == 0 {
		return nil, true
	}
	within := hits[n].Dist
	ask := func(_ context.Context, id shard.ID, dst []shard.Hit) ([]shard.Hit, error) {
		dst, _ = r.shards[id].NearestWithin(k, q, cut, n+1, within, dst)
		return dst, nil
	}
	// The first shard was counted above: count the borders it shares
	// with the rest as the fan-out does among those.
	for _, id := range rest {
		if b, ok := r.regions.Border(first, id); ok {
			r.stats.borders[b].Searches.Add(1)
		}
	}
	// The others append after the first shard's hits.
	others := r.fanOut(rest, hits, ask)
	all := others.Hits
	res.Hits = dedupe(all)
	res.Shards += others.Shards
	res.Degraded = others.Degraded
	return nil, len(res.Hits) == len(all)
}
