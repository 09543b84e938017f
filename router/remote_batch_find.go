package router

import (
	"context"
	"sync"

	"geoshard/shard"
)

// findMissing looks up the items idx of a batch (no live cached copy, or
// one that moves to another shard: the cache knows where a member was,
// not its score now), their newest copy over every shard of the cluster:
// one GetMany per node for all of them (findMember asks every node per
// member). As there, a node that could not be asked is counted and the
// write goes on, with the cached copy if there is one. With puts, each
// node also stores, after the look-up, the new copies of its shards
// (getPut).
func (r *Router) findMissing(k shard.Key, items []batchItem, idx []int, puts *putPlan) error {
	var (
		miss  []int
		names []string
		mine  []int64 // the stamps of the copies puts stores
		cut   int64
	)
	for _, i := range idx {
		it := &items[i]
		if len(miss) == 0 || it.cut < cut {
			cut = it.cut
		}
		miss = append(miss, i)
		names = append(names, it.member)
		if puts != nil {
			mine = append(mine, it.stamp)
		}
	}
	if len(miss) == 0 {
		return nil
	}
	best, found, err := r.findMany(k, names, cut, puts, mine)
	if err != nil {
		r.remoteFailed("get", err) // as findMember: the write goes on
	}
	for j, i := range miss {
		it := &items[i]
		if !found[j] {
			it.exists = it.exists && err != nil
			continue
		}
		it.cur, it.exists = best[j].slot(), true
		r.observe(best[j].Stamp)
		if best[j].Stamp >= it.stamp {
			it.stamp = r.stamp() // a newer stamp from another clock
		}
	}
	return err
}

// findMany is findMember for many members: their newest copies not older
// than cut over every shard of the cluster, one GetPut per node for all
// of them; with puts, each node also stores, after the look-up, the new
// copies of its shards. A copy deleted lately for a newer one counts
// only for the write whose new copy, stamped mine[j], it gave way to
// (giveway.go).
func (r *Router) findMany(k shard.Key, names []string, cut int64, puts *putPlan, mine []int64) (best []Copy, found []bool, err error) {
	best, found = make([]Copy, len(names)), make([]bool, len(names))
	var mu sync.Mutex
	keep := func(j int, c Copy) {
		if c.By != 0 && (mine == nil || c.By != mine[j]) {
			return
		}
		mu.Lock()
		if !found[j] || c.Stamp > best[j].Stamp {
			best[j], found[j] = c, true
		}
		mu.Unlock()
	}
	ctx, cancel := r.callCtx()
	defer cancel()
	err = r.onNodes(ctx, nil, func(ids []shard.ID) {
		cs, oks := r.GetLocalMany(ids, k, names, cut)
		r.GaveWayFor(ids, k, names, cs, oks)
		for j := range cs {
			if oks[j] {
				keep(j, cs[j])
			}
		}
		puts.here(r, k)
	}, func(ctx context.Context, p Peer, ids []shard.ID) error {
		pb, ok := p.(PeerBatcher)
		if !ok {
			return unread(ids, errNoBatch)
		}
		putIDs, es := puts.on(p)
		cs, oks, asked, err := pb.GetPut(ctx, ids, k, names, cut, putIDs, es)
		puts.result(p, err)
		puts.asked(p, asked)
		for j := range cs {
			if j < len(names) && oks[j] {
				keep(j, cs[j])
			}
		}
		return unread(ids, err)
	})
	return best, found, err
}

// GetLocalMany is GetLocal for many members: for each, its newest copy
// not older than cut in local shards ids, and whether there is one. Each
// member is hashed once for all the shards, not once in each.
func (r *Router) GetLocalMany(ids []shard.ID, k shard.Key, members []string, cut int64) ([]Copy, []bool) {
	best := make([]Copy, len(members))
	found := make([]bool, len(members))
	var hs []uint64
	for _, id := range ids {
		if r.shards[id].Len(k) == 0 {
			continue
		}
		if hs == nil {
			hs = make([]uint64, len(members))
			for i, m := range members {
				hs[i] = shard.Hash(m)
			}
		}
		r.shards[id].ValuesHash(k, members, hs, func(i int, v shard.Value, ok bool) {
			if ok && v.Stamp >= cut && (!found[i] || v.Stamp > best[i].Stamp) {
				best[i], found[i] = Copy{Shard: id, Score: v.Score, Stamp: v.Stamp}, true
			}
		})
	}
	return best, found
}
