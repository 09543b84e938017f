package router

import (
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
	return r.SearchInto(nil, k, q, limit)
}

// SearchInto is Search with the hits written into dst's storage (its
// contents are overwritten), so that a caller can lend one slice to search
// after search instead of growing a new one each time.
func (r *Router) SearchInto(dst []shard.Hit, k shard.Key, q *geo.Search, limit int) Result {
	dst = dst[:0]
	g := r.key(k, false)
	if g == nil && r.cl == nil {
		return Result{Hits: dst}
	}
	var idBuf [8]shard.ID
	ids, mark := r.askedIn(g, q, idBuf[:0])
	cut := r.minStamp(g, now())
	if r.fromOwners(g, len(ids)) {
		r.stats.countFanOut(0) // no shard asked
		res := Result{Hits: merge(r.scanOwners(g, q, cut, dst))}
		if limit > 0 && len(res.Hits) > limit {
			res.Hits = res.Hits[:limit]
		}
		return res
	}
	r.stats.countFanOut(len(ids))
	plan := r.planCells(q)
	var res Result
	r.readShards(g, len(ids), func(_ bool, w *moveWatch) {
		res = r.askShards(ids, dst, k, q, &plan, cut, limit, w)
		r.findDeparted(&res, w, k, q, cut)
	})
	merged := len(ids) > 1 // one shard (a remote one) answers in discovery order already
	if late := r.missed(mark, q, ids); len(late) > 0 {
		// Members came meanwhile to shards the search skipped as empty.
		more := r.askShards(late, res.Hits, k, q, &plan, cut, limit, nil)
		res = Result{Hits: more.Hits, Shards: res.Shards + more.Shards, Degraded: res.Degraded || more.Degraded}
		merged = true
	}
	if merged {
		res.Hits = merge(res.Hits)
	}
	if limit > 0 && len(res.Hits) > limit {
		res.Hits = res.Hits[:limit]
	}
	return res
}

// member is the name of hit i, for moveWatch.missing.
func (res *Result) member(i int) string { return res.Hits[i].Member }

// askShards asks the shards ids (sorted, distinct) for q's hits, appended
// to dst: one local shard on the fast path that counts no border, more
// through fanOut; w, when set, hears which members handoffs took from
// them since the search began (departures.go).
func (r *Router) askShards(ids []shard.ID, dst []shard.Hit, k shard.Key, q *geo.Search, plan *cellPlan, cut int64, limit int,
	w *moveWatch) Result {
	if len(ids) == 1 && r.local(ids[0]) {
		// The common case pays for no merge.
		id := ids[0]
		r.stats.Shards[id].Searches.Add(1)
		r.wait(id)
		return Result{Hits: r.shards[id].SearchCells(k, q, plan.mask(r.regions, id), cut, limit, dst), Shards: 1}
	}
	return r.askFan(ids, dst, k, q, *plan, cut, limit, w)
}

// askFan is askShards through fanOut. The plan is a copy: the closure the
// fan-out keeps goes to the heap with what it captures, and the caller's
// plan stays on its stack (issue 10: a search's garbage).
func (r *Router) askFan(ids []shard.ID, dst []shard.Hit, k shard.Key, q *geo.Search, plan cellPlan, cut int64, limit int,
	w *moveWatch) Result {
	return r.fanOut(ids, dst, func(ctx context.Context, id shard.ID, dst []shard.Hit) ([]shard.Hit, error) {
		if r.cl == nil {
			return r.shards[id].SearchCells(k, q, plan.mask(r.regions, id), cut, limit, dst), nil
		}
		err := r.onShard(ctx, id, func(s *shard.Shard) error {
			dst = s.Search(k, q, cut, limit, dst)
			w.local(r, []shard.ID{id}, k, cut, searchTakes(q))
			return nil
		}, func(ctx context.Context, p Peer) error {
			hits, departed, err := p.Search(ctx, id, k, q, cut, limit, w.from())
			dst = append(dst, hits...)
			w.add(departed)
			return err
		})
		return dst, err
	})
}

// cellPlan is a search's cells as rectangles, to ask each shard only for
// the cells its members can be in: on a fine map, one or two of the nine.
type cellPlan struct {
	rects [9]geo.Rect
	n     int
	ok    bool // false: ask every shard for every cell
}

// planCells returns q's cell plan. While a reload moves members, a shard
// may still hold members the new map places elsewhere, so every cell is
// asked for.
func (r *Router) planCells(q *geo.Search) cellPlan {
	var p cellPlan
	if r.cl != nil || r.moving() != nil || len(q.Cells) > len(p.rects) {
		return p
	}
	for i, c := range q.Cells {
		rect, ok := c.Rect()
		if !ok {
			return cellPlan{}
		}
		p.rects[i] = rect
	}
	p.n, p.ok = len(q.Cells), true
	return p
}

// mask names the cells of the plan that meet the reach of shard id: the
// only ones where the router can have left its members.
func (p *cellPlan) mask(m *shard.Map, id shard.ID) shard.CellMask {
	if !p.ok {
		return shard.AllCells
	}
	reach, ok := m.Reach(id)
	if !ok {
		return shard.AllCells
	}
	var mask shard.CellMask
	for i, rect := range p.rects[:p.n] {
		if rect.Intersects(reach) {
			mask |= 1 << i
		}
	}
	return mask
}

// askFunc asks one shard and appends its hits to dst.
type askFunc func(ctx context.Context, id shard.ID, dst []shard.Hit) ([]shard.Hit, error)

// fanOut asks every shard in ids (sorted, distinct) and gathers their hits.
// Shards in this process are asked one after another on the caller's
// goroutine and always answer: a busy CPU slows them down but cannot make
// them fail, so no deadline applies. Shards on other nodes are asked in
// parallel meanwhile, each within the fan-out timeout; one that fails or
// misses its deadline is left out and the result marked degraded.
func (r *Router) fanOut(ids []shard.ID, dst []shard.Hit, ask askFunc) Result {
	r.stats.countSearch(ids)
	res := Result{Hits: dst, Shards: len(ids)}
	var remote []shard.ID
	if r.cl != nil {
		for _, id := range ids {
			if !r.local(id) {
				remote = append(remote, id)
			}
		}
	}
	wait := r.askRemote(remote, ask)
	order := ids
	if prev := r.moving(); prev != nil && r.cl == nil {
		order = oldFirst(prev, ids)
	}
	next := 0 // remote[next] is the next remote shard in ids (cluster mode: order is ids)
	for _, id := range order {
		if next < len(remote) && remote[next] == id {
			next++
			continue
		}
		r.wait(id)
		hits, err := ask(context.Background(), id, res.Hits)
		if err != nil {
			// The shard moved to another node since the check, and that
			// node failed to answer.
			r.failed(&res, id, err)
			continue
		}
		res.Hits = hits
	}
	wait(&res)
	return res
}

// oldFirst lists ids with the shards of prev, the map a reload is moving
// members from, first. A member moves by a copy in its new shard, then the
// old copy's delete (moveOne): a search that reads the old shards first
// finds one copy or the other, where one that read the new shard before
// the copy came and the old one after the delete missed the member
// (TestNearestDuringMove, once in a CI run).
func oldFirst(prev *shard.Map, ids []shard.ID) []shard.ID {
	out := make([]shard.ID, 0, len(ids))
	for _, id := range ids {
		if prev.Owns(id) {
			out = append(out, id)
		}
	}
	for _, id := range ids {
		if !prev.Owns(id) {
			out = append(out, id)
		}
	}
	return out
}

// failed leaves a shard that could not answer out of res.
func (r *Router) failed(res *Result, id shard.ID, err error) {
	if !res.Degraded {
		res.Degraded = true
		r.stats.Degraded.Add(1)
	}
	r.stats.Shards[id].Degraded.Add(1)
	err = fmt.Errorf("shard %s: %w", r.regions.Name(id), err)
	if r.cl == nil {
		r.log.Warn("search degraded", "err", err)
		return
	}
	r.remoteFailed("search", err)
}

// askRemote starts asking the shards ids of other nodes, each on its own
// goroutine, and returns the function that waits, until the fan-out
// timeout at most, for their hits and adds them to a result.
func (r *Router) askRemote(ids []shard.ID, ask askFunc) func(*Result) {
	if len(ids) == 0 {
		return func(*Result) {}
	}
	type part struct {
		id   shard.ID
		hits []shard.Hit
		err  error
	}
	timeout := r.FanoutTimeout()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	deadline := time.NewTimer(timeout)
	parts := make(chan part, len(ids))
	for _, id := range ids {
		go func() {
			r.wait(id)
			hits, err := ask(ctx, id, nil)
			parts <- part{id, hits, err}
		}()
	}
	return func(res *Result) {
		defer cancel()
		defer deadline.Stop()
		answered := make(map[shard.ID]bool, len(ids))
		for range ids {
			select {
			case p := <-parts:
				answered[p.id] = true
				if p.err != nil {
					// A shard whose node is down or unreachable: left out
					// at once, without waiting for the deadline.
					r.failed(res, p.id, p.err)
					continue
				}
				res.Hits = append(res.Hits, p.hits...)
			case <-deadline.C:
				for _, id := range ids {
					if !answered[id] {
						r.failed(res, id, fmt.Errorf("no answer within %v", timeout))
					}
				}
				return
			}
		}
	}
}

// smallKey is how many members a key may have for its searches to ask
// the shards that hold them rather than those the search area touches;
// reading that many owners costs about what asking a few dozen empty
// shards does. heldShards bounds how many shards that may name.
// Only on a fine map (more than fineMap shards) is that worth what it
// changes: which shards a search asks, hence the fan-out and per-border
// counters, then follow where a small key's members are rather than the
// search's area, which the border planner judges maps by.
const (
	smallKey   = 1024
	heldShards = 64
	fineMap    = 256
)

// asked returns the shards a search of g must ask (sorted, distinct). On
// a fine map a wide search touches thousands of areas; a small key lives
// in a few of them, and the owner table names those at a cost that grows
// with the key, not the map. A shard holding none of q's area finds
// nothing, so asking it is only wasted work; one not asked holds no
// member of the key. A bigger key asks the shards q touches less those
// its per-shard counts (holders.go) show empty: a third of them for
// 10,000 members on 10,000 areas.
func (r *Router) asked(g *geoKey, q *geo.Search) ([]shard.ID, heldMark) {
	return r.askedIn(g, q, nil)
}

// askedIn is asked appending the shards q touches to buf[:0], which the
// caller may keep on its stack: a nearest search then makes no garbage
// for them.
func (r *Router) askedIn(g *geoKey, q *geo.Search, buf []shard.ID) ([]shard.ID, heldMark) {
	if r.cl != nil || g == nil || r.regions.Len() <= fineMap {
		return r.touchingIn(q, buf), heldMark{}
	}
	if g.entries.Load() <= smallKey {
		if ids, ok, mark := r.holding(g); ok {
			return ids, mark
		}
	}
	// A bigger key: of the shards q touches, those that hold some of it.
	return r.heldOnly(g, r.touchingIn(q, buf))
}

// holding lists the shards that hold g's members (read only), false once
// they pass heldShards. The list is kept until a member comes to or
// leaves a shard: reading it again then costs two atomic loads, not a
// lock of each of the key's 64 stripes.
func (r *Router) holding(g *geoKey) (ids []shard.ID, ok bool, mark heldMark) {
	mark = heldMark{g: g, moves: g.held.moves.Load(), small: true}
	if l := g.held.list.Load(); l != nil && l.moves == mark.moves {
		return l.ids, l.ok, mark
	}
	ids, ok = r.holdingNow(g)
	g.held.list.Store(&heldList{mark.moves, ids, ok})
	return ids, ok, mark
}

// holdingNow is holding from the owner table, a stripe at a time.
func (r *Router) holdingNow(g *geoKey) ([]shard.ID, bool) {
	var buf [8]shard.ID
	ids := buf[:0]
	for i := range g.stripes {
		st := &g.stripes[i]
		st.mu.Lock()
		for _, id := range st.owner.shards() {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		st.mu.Unlock()
		if len(ids) > heldShards {
			return nil, false
		}
	}
	slices.Sort(ids)
	return ids, true
}

// touching returns the shards that can hold a hit of q: those whose area,
// expanded by the hysteresis margin, meets the search's bounds.
func (r *Router) touching(q *geo.Search) []shard.ID {
	var buf [8]shard.ID
	return r.touchingIn(q, buf[:0])
}

// touchingIn is touching appending to buf[:0].
func (r *Router) touchingIn(q *geo.Search, buf []shard.ID) []shard.ID {
	var rects [4]geo.Rect
	ids := buf[:0]
	bounds := q.Bounds(rects[:0])
	for _, rect := range bounds {
		ids = r.regions.Touching(rect, ids)
	}
	if prev := r.moving(); prev != nil {
		// A reload is moving members: those not moved yet are where the
		// previous map put them.
		for _, rect := range bounds {
			ids = prev.Touching(rect, ids)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func (r *Router) wait(id shard.ID) {
	if d := r.hooks.delay[id].Load(); d > 0 {
		time.Sleep(time.Duration(d))
	}
}
