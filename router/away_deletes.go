package router

// Deletes while a holder is away. A shard whose replica's node is not
// live (its lease lapsed: a stall, a slow etcd), or whose primary is not,
// takes no write (replica_gone.go): the holder may come back with its
// copies and the same placement, count as filled again, and be promoted
// next. A delete is a write too. Sent to the live holder alone, it left
// the old copy on the away one, which showed the deleted member again
// once promoted (TestDeletesWhileReplicaAway: a ZREM'd member, a DEL'd
// and a RENAMEd key, a handed-off member at its old place). So a delete
// that would change such a shard answers -TRYAGAIN, as a write does,
// until the holder is back or replaced (one or two lease TTLs); a delete
// that touches no copy there goes ahead. Refilling the returning holder
// instead would keep deletes available, but not help when the live
// holder dies before the away one comes back: nobody would hold the
// delete then, and that double fault is the one to survive.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"geoshard/shard"
)

// errHolderAway is a delete refused because a shard that holds what it
// would delete has a holder that is not live.
var errHolderAway = errors.New("a holder of the shard is away (lease lapsed, or failing health checks); waiting for it or a new one")

// holderAway reports whether view v lets shard id take no write now: its
// primary is not live or fails health checks, or its replica is away.
func holderAway(v View, id shard.ID) bool {
	return !v.Local(id) && v.Peer(id) == nil || replicaGone(v, id)
}

// splitAway parts the shards into those that take writes and those with
// a holder away.
func (r *Router) splitAway(v View) (ok, away []shard.ID) {
	ok = make([]shard.ID, 0, len(r.shards))
	for i := range r.shards {
		if id := shard.ID(i); holderAway(v, id) {
			away = append(away, id)
		} else {
			ok = append(ok, id)
		}
	}
	return ok, away
}

// awayRefused is the error of a delete refused for shards ids; cause is
// the read that could not tell whether they hold anything, if any.
func (r *Router) awayRefused(op string, ids []shard.ID, cause error) error {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = r.regions.Name(id)
	}
	err := errHolderAway
	if cause != nil {
		err = fmt.Errorf("%w: %w", errHolderAway, cause)
	}
	r.remoteFailed(op, err)
	return fmt.Errorf("shard %s could not be written (%w); nothing deleted", strings.Join(names, ","), err)
}

// memberIn returns the shards of ids that hold a copy of a member not
// older than cut; a shard that cannot be read may hold one (the error).
func (r *Router) memberIn(ctx context.Context, ids []shard.ID, k shard.Key, member string, cut int64) ([]shard.ID, error) {
	var (
		mu   sync.Mutex
		held []shard.ID
	)
	err := r.onNodes(ctx, ids, func(ids []shard.ID) {
		for _, id := range ids {
			if e, ok := r.shards[id].Get(k, member); ok && e.Stamp >= cut {
				mu.Lock()
				held = append(held, id)
				mu.Unlock()
			}
		}
	}, func(ctx context.Context, p Peer, ids []shard.ID) error {
		c, ok, err := p.Get(ctx, ids, k, member, cut)
		if ok {
			mu.Lock()
			held = append(held, c.Shard)
			mu.Unlock()
		}
		return err
	})
	return held, err
}

// keyIn reports whether key k has a copy not older than cut in shards
// ids; a shard that cannot be read may hold one.
func (r *Router) keyIn(ctx context.Context, ids []shard.ID, k shard.Key, cut int64) (bool, error) {
	all := [2]Bound{{Score: math.Inf(-1)}, {Score: math.Inf(1)}}
	var mu sync.Mutex
	found := false
	err := r.onNodes(ctx, ids, func(ids []shard.ID) {
		es, _ := r.scanLocal(ids, k, all[0], all[1], false, cut, 1)
		mu.Lock()
		found = found || len(es) > 0
		mu.Unlock()
	}, func(ctx context.Context, p Peer, ids []shard.ID) error {
		es, _, _, err := p.Scan(ctx, ids, k, all[0], all[1], false, cut, 1, 0)
		mu.Lock()
		found = found || len(es) > 0
		mu.Unlock()
		return err
	})
	return found, err
}

// keysAway refuses a whole-key change of keys ks while a shard that
// holds some of them has a holder away: the away node would keep them.
func (r *Router) keysAway(op string, ks ...shard.Key) error {
	_, away := r.splitAway(r.cl.View())
	if len(away) == 0 {
		return nil
	}
	ctx, cancel := r.callCtx()
	defer cancel()
	for _, k := range ks {
		// Expired copies count too (cut 0): the away holder keeps them
		// until its own reclaim, and a position TTL lifted before that
		// would show them under a key deleted or renamed meanwhile
		// (TestDropExpiredWhileReplicaAway).
		held, err := r.keyIn(ctx, away, k, 0)
		if held || err != nil {
			return r.awayRefused(op, away, err)
		}
	}
	return nil
}

// flushAway refuses a FLUSHALL or FLUSHDB while any shard has a holder
// away: the away node would keep its keys (which keys a shard holds is
// not asked for; a flush is rare and the wait is one or two lease TTLs).
func (r *Router) flushAway() error {
	if _, away := r.splitAway(r.cl.View()); len(away) > 0 {
		return r.awayRefused("flush", away, nil)
	}
	return nil
}

// handoffAway refuses a write that would move a member's live copy out
// of a shard with a holder away: the delete of the old copy could not
// reach that holder (the write goes first, so nothing is stored).
func (r *Router) handoffAway(v View, from, to shard.ID, live bool) error {
	if !live || from == to || !holderAway(v, from) {
		return nil
	}
	return fmt.Errorf("the member's copy in shard %s cannot be deleted: %w", r.regions.Name(from), errHolderAway)
}

// TryRemove is Remove that fails, in cluster mode, when a copy of the
// member may be left behind: a shard holding one has a holder away, or a
// holder did not answer. Copies already deleted stay deleted.
func (r *Router) TryRemove(k shard.Key, member string) (bool, error) {
	if r.cl == nil {
		return r.Remove(k, member), nil
	}
	return r.removeCluster(k, member)
}

// TryFlush is Flush that fails, in cluster mode, when some node could
// not be reached or a shard has a holder away.
func (r *Router) TryFlush(db int) error {
	if r.cl == nil {
		r.FlushLocal(db)
		return nil
	}
	return r.flushCluster(db)
}

// anyAway reports whether some shard of view v has a holder away.
func (r *Router) anyAway(v View) bool {
	for i := range r.shards {
		if holderAway(v, shard.ID(i)) {
			return true
		}
	}
	return false
}

// refuseAwayHandoffs fails the decided batch items idx that would move a
// live copy out of a shard with a holder away, and returns the others.
func (r *Router) refuseAwayHandoffs(v View, items []batchItem, idx []int) []int {
	out := idx[:0:0]
	for _, i := range idx {
		it := &items[i]
		if err := r.handoffAway(v, it.cur.shard, it.to, it.live && !it.skip); err != nil {
			it.err = err
			continue
		}
		out = append(out, i)
	}
	return out
}
