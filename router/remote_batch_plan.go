package router

import (
	"context"
	"errors"
	"sync"

	"geoshard/shard"
)

// putPlan is which nodes store which new copies of a getPut batch: each
// copy goes to its shard's primary and, when it has one, its replica, in
// the GETPUT message every node gets anyway. A copy is stored when every
// one of its nodes said so.
type putPlan struct {
	v       View // the one the copies are routed by
	items   []batchItem
	planned []int // the items with a node to go to
	local   []int
	remote  map[string][]int // by node id
	peers   map[string]Peer
	need    []int // per item: nodes it goes to (slices, not maps: a cold
	// load's 500-member batches spent a tenth of getPut in map inserts)

	mu        sync.Mutex
	got       []int   // per item
	errs      []error // per item
	localDone bool
	state     map[string]int // per node: 0 not called, callFailed, callStored
}

const (
	callFailed = 1
	callStored = 2
)

func newPutPlan(v View, items []batchItem, idx []int) *putPlan {
	pp := &putPlan{v: v, items: items, remote: map[string][]int{}, peers: map[string]Peer{},
		need: make([]int, len(items)), got: make([]int, len(items)), errs: make([]error, len(items)),
		state: map[string]int{}}
	for _, i := range idx {
		it := &items[i]
		p := v.Peer(it.to)
		if !v.Local(it.to) && p == nil {
			it.err = errShardDown // no write without a primary (onShardWrite)
			continue
		}
		if replicaGone(v, it.to) {
			it.err = errReplicaGone // nor with its replica away (replica_gone.go)
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
		pp.planned = append(pp.planned, i)
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
	// Not stored (the view moved on): finish writes them one by one.
	_ = r.pinned(pp.v, func() error {
		for _, i := range pp.local {
			r.shards[pp.items[i].to].PutNewer(k, pp.items[i].e) // newest wins, as PutLocal
			pp.got[i]++
		}
		return nil
	})
}

// on is what node p stores: nothing when p comes from another view than
// the plan's (the table changed in between; finish writes those copies
// one by one, following the new table).
func (pp *putPlan) on(p Peer) ([]shard.ID, []shard.Entry) {
	if pp == nil || pp.peers[p.ID()] != p {
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
	case pp.peers[id] != p: // carried none of the plan's copies (on)
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

// asked marks the items node p stored that it was asked for lately by
// another node (StoredForPeer): first writes the batch tells every node
// of once done (fresh.go).
func (pp *putPlan) asked(p Peer, flags []bool) {
	if pp == nil || len(flags) == 0 || pp.peers[p.ID()] != p {
		return
	}
	pp.mu.Lock()
	defer pp.mu.Unlock()
	markAsked(pp.items, pp.remote[p.ID()], flags)
}

// markAsked marks items[idx[j]] asked where flags[j] (a node's answer
// for the puts it stored, in idx's order): a first write racing another
// node's (fresh.go).
func markAsked(items []batchItem, idx []int, flags []bool) {
	for j, i := range idx {
		if j < len(flags) && flags[j] {
			items[i].asked = true
		}
	}
}

// finish marks each item stored on every node it goes to, or failed
// with a node's error; copies that no call carried (the table changed
// while the batch was out: refused as stale, or not sent; or a node that
// keeps only replicas and was not asked to look anything up) are written
// one by one, to primary and replica, under the table in force.
func (pp *putPlan) finish(ctx context.Context, r *Router, k shard.Key) {
	pp.here(r, k)
	for _, i := range pp.planned {
		it := &pp.items[i]
		switch {
		case pp.got[i] >= pp.need[i]:
			it.replicated = true
		case pp.errs[i] != nil && !errors.Is(pp.errs[i], ErrStale):
			it.err = pp.errs[i]
		default:
			it.err = r.onShardWrite(ctx, it.to, func(s *shard.Shard) error {
				s.PutNewer(k, it.e)
				return nil
			}, func(ctx context.Context, p Peer) error {
				return p.Put(ctx, it.to, k, it.e)
			})
			it.replicated = it.err == nil
		}
	}
}
