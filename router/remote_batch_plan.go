package router

import (
	"context"
	"sync"

	"geoshard/shard"
)

// putPlan is which nodes store which new copies of a getPut batch: each
// copy goes to its shard's primary and, when it has one, its replica, in
// the GETPUT message every node gets anyway. A copy is stored when every
// one of its nodes said so.
type putPlan struct {
	items  []batchItem
	local  []int
	remote map[string][]int // by node id
	peers  map[string]Peer
	need   map[int]int // nodes each item goes to

	mu        sync.Mutex
	got       map[int]int
	errs      map[int]error
	localDone bool
	state     map[string]int // per node: 0 not called, callFailed, callStored
}

const (
	callFailed = 1
	callStored = 2
)

func newPutPlan(v View, items []batchItem, idx []int) *putPlan {
	pp := &putPlan{items: items, remote: map[string][]int{}, peers: map[string]Peer{},
		need: map[int]int{}, got: map[int]int{}, errs: map[int]error{}, state: map[string]int{}}
	for _, i := range idx {
		it := &items[i]
		p := v.Peer(it.to)
		if !v.Local(it.to) && p == nil {
			it.err = errShardDown // no write without a primary (onShardWrite)
			continue
		}
		rl, rp, _ := v.ReplicaOf(it.to)
		if v.Local(it.to) || rl {
			pp.local = append(pp.local, i)
			pp.need[i]++
		}
		for _, q := range []Peer{p, rp} {
			if q != nil {
				pp.remote[q.ID()] = append(pp.remote[q.ID()], i)
				pp.peers[q.ID()] = q
				pp.need[i]++
			}
		}
	}
	return pp
}

// here stores the new copies this node keeps, once.
func (pp *putPlan) here(r *Router, k shard.Key) {
	if pp == nil {
		return
	}
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if pp.localDone {
		return
	}
	pp.localDone = true
	for _, i := range pp.local {
		r.shards[pp.items[i].to].Put(k, pp.items[i].e)
		pp.got[i]++
	}
}

// on is what node p stores.
func (pp *putPlan) on(p Peer) ([]shard.ID, []shard.Entry) {
	if pp == nil {
		return nil, nil
	}
	idx := pp.remote[p.ID()]
	ids := make([]shard.ID, len(idx))
	es := make([]shard.Entry, len(idx))
	for j, i := range idx {
		ids[j], es[j] = pp.items[i].to, pp.items[i].e
	}
	return ids, es
}

// result records how node p's call went; a retry after a stale view
// calls it again, and the first success counts.
func (pp *putPlan) result(p Peer, err error) {
	if pp == nil {
		return
	}
	pp.mu.Lock()
	defer pp.mu.Unlock()
	id := p.ID()
	switch {
	case pp.state[id] == callStored:
	case err != nil:
		pp.state[id] = callFailed
		for _, i := range pp.remote[id] {
			pp.errs[i] = err
		}
	default:
		pp.state[id] = callStored
		for _, i := range pp.remote[id] {
			pp.got[i]++
		}
	}
}

// finish stores the copies of nodes the look-up did not call (a node that
// keeps only replicas), then marks each item stored everywhere, or failed.
func (pp *putPlan) finish(ctx context.Context, r *Router, k shard.Key) {
	pp.here(r, k)
	for id := range pp.remote {
		pp.mu.Lock()
		called := pp.state[id] != 0
		pp.mu.Unlock()
		if called {
			continue
		}
		p := pp.peers[id]
		ids, es := pp.on(p)
		err := errNoBatch
		if pb, ok := p.(PeerBatcher); ok {
			err = pb.PutMany(ctx, k, ids, es)
		}
		pp.result(p, err)
	}
	for i, n := range pp.need {
		it := &pp.items[i]
		switch {
		case pp.got[i] >= n:
			it.replicated = true
		case pp.errs[i] != nil:
			it.err = pp.errs[i]
		default:
			it.err = errShardDown
		}
	}
}
