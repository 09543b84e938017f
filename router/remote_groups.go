package router

// Calls to several nodes at once: which node to ask for which shards
// (the primary, else its replica; for a delete, every node that keeps a
// copy), in parallel, with a failed node's shards asked of their replicas.

import (
	"context"
	"errors"
	"sync"

	"geoshard/shard"
)

// byNode groups shard ids by the node to read them from: the local ones,
// one group per remote node, and those that are down. A shard whose
// primary is down is read from its replica.
func byNode(v View, ids []shard.ID) (local []shard.ID, remote map[Peer][]shard.ID, down []shard.ID) {
	remote = make(map[Peer][]shard.ID)
	for _, id := range ids {
		p := v.Peer(id)
		switch rl, rp, filled := v.ReplicaOf(id); {
		case v.Local(id):
			local = append(local, id)
		case p != nil:
			remote[p] = append(remote[p], id)
		case rl && filled:
			local = append(local, id)
		case rp != nil && filled:
			remote[rp] = append(remote[rp], id)
		default:
			down = append(down, id)
		}
	}
	return local, remote, down
}

// byHolder groups shard ids by every node that keeps their copies,
// primaries and replicas: where a delete must reach.
func byHolder(v View, ids []shard.ID) (local []shard.ID, remote map[Peer][]shard.ID, down []shard.ID) {
	remote = make(map[Peer][]shard.ID)
	for _, id := range ids {
		p := v.Peer(id)
		rl, rp, _ := v.ReplicaOf(id)
		if v.Local(id) || rl {
			local = append(local, id)
		}
		if p != nil {
			remote[p] = append(remote[p], id)
		}
		if rp != nil {
			remote[rp] = append(remote[rp], id)
		}
		if !v.Local(id) && p == nil {
			down = append(down, id)
		}
	}
	return local, remote, down
}

// replicaRead is byNode's grouping for shards whose first node failed:
// each shard's replica, when it has one elsewhere than failed.
func replicaRead(v View, ids []shard.ID, failed Peer) (local []shard.ID, remote map[Peer][]shard.ID, ok bool) {
	remote = make(map[Peer][]shard.ID)
	for _, id := range ids {
		rl, rp, filled := v.ReplicaOf(id)
		switch {
		case !filled:
			return nil, nil, false
		case rl:
			local = append(local, id)
		case rp != nil && rp.ID() != failed.ID():
			remote[rp] = append(remote[rp], id)
		default:
			return nil, nil, false
		}
	}
	return local, remote, true
}

// onNodes runs a read on every node holding some of the shards ids (all
// shards when ids is nil), in parallel; here runs for the local ones.
// A node whose call fails is replaced by the replicas of its shards. It
// returns the first error; down shards count as one.
func (r *Router) onNodes(ctx context.Context, ids []shard.ID, here func(ids []shard.ID),
	there func(ctx context.Context, p Peer, ids []shard.ID) error) error {
	return r.onGroups(ctx, ids, byNode, true, here, there)
}

// onHolders runs a write (a delete) on every node that keeps some of the
// shards ids, primaries and replicas alike.
func (r *Router) onHolders(ctx context.Context, ids []shard.ID, here func(ids []shard.ID),
	there func(ctx context.Context, p Peer, ids []shard.ID) error) error {
	return r.onGroups(ctx, ids, byHolder, false, here, there)
}

func (r *Router) onGroups(ctx context.Context, ids []shard.ID,
	group func(View, []shard.ID) ([]shard.ID, map[Peer][]shard.ID, []shard.ID), fallback bool,
	here func(ids []shard.ID), there func(ctx context.Context, p Peer, ids []shard.ID) error) error {
	if ids == nil {
		ids = make([]shard.ID, len(r.shards))
		for i := range ids {
			ids[i] = shard.ID(i)
		}
	}
	v := r.cl.View()
	local, remote, down := group(v, ids)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		herMu sync.Mutex // here may run for the replicas of a failed node too
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	if len(down) > 0 {
		fail(errShardDown)
	}
	for p, pids := range remote {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := r.thereOnce(ctx, p, pids, there)
			if err == nil || !fallback {
				if err != nil {
					fail(err)
				}
				return
			}
			rl, rr, ok := replicaRead(v, pids, p)
			if !ok || errors.Is(ctx.Err(), context.Canceled) {
				fail(err)
				return
			}
			// The replicas get a call timeout of their own: a hung node's
			// call fails only as the caller's deadline runs out, which left
			// the replicas nothing (SET of a new name -TRYAGAIN while a
			// node was SIGSTOPped, TestClusterKindLookupHungNode at load 2).
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cl.CallTimeout())
			defer cancel()
			if len(rl) > 0 {
				herMu.Lock()
				here(rl)
				herMu.Unlock()
			}
			for q, qids := range rr {
				if qerr := r.thereOnce(rctx, q, qids, there); qerr != nil {
					fail(err)
				}
			}
		}()
	}
	if len(local) > 0 {
		herMu.Lock()
		here(local)
		herMu.Unlock()
	}
	wg.Wait()
	return first
}

// thereOnce runs a call on node p, and once more under a refreshed view
// if p said ours is stale.
func (r *Router) thereOnce(ctx context.Context, p Peer, ids []shard.ID,
	there func(ctx context.Context, p Peer, ids []shard.ID) error) error {
	err := there(ctx, p, ids)
	if errors.Is(err, ErrStale) {
		r.cl.Refresh(ctx)
		// Retried on the same node under the new view: the shards it was
		// asked for are likely still there; a moved one answers nothing.
		if q := r.samePeer(p); q != nil {
			err = there(ctx, q, ids)
		}
	}
	return err
}
