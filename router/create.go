package router

// A conditional write of a member found nowhere (NX, GT or LT of a new
// member, an increment that starts it) creates it. Two nodes creating one
// member at once, at positions in two shards, each stored it in its own
// shard: both NX writes answered 1, and of two increments only the newer
// stayed (TestClusterCreateThroughTwoNodes). One shard now decides every
// creation of a member, whichever node sends it: its home shard, chosen by
// the member's name alone. A creation first claims the member there, on
// condition that the home shard holds no live copy (a move's claim,
// cond.go), then looks for a copy in every other shard, and only then
// stores its copy in its own shard and deletes the claim. Of two
// creations, the second is refused at home while the first's claim
// stands; one whose claim comes after the first creation ended finds the
// first one's copy. Either way the second gives its claim up and reads
// again, and judges the copy it finds (NX: 0; an increment adds to it).
//
// A claim is a copy as good as any: once it stands, another node's
// conditional write may read it as the member's and replace it (its own
// move's claim), before this creation has looked in the other shards and
// found that write's new copy there. Taking that for another creation,
// the increment read again and added itself to a sum that held it
// already: 1 and 3.25e15 at once through two nodes left 3.25e15 + 2 in
// 1-2 of 100 pairs in 4 of 10 runs (TestClusterCreateThroughTwoNodes).
// So a creation gives up only a claim that is still its own on the home
// shard's primary (takeBack); one replaced or removed there took effect.

import (
	"context"
	"hash/fnv"

	"geoshard/shard"
)

// homeShard is where creations of a member are decided: the same shard on
// every node (shard.Hash is seeded per process).
func (r *Router) homeShard(member string) shard.ID {
	h := fnv.New32a()
	h.Write([]byte(member))
	return shard.ID(h.Sum32() % uint32(len(r.shards)))
}

// create stores e, a member no node holds a live copy of (stamped cut or
// later), in shard to, as decided at the member's home shard.
// ErrStaleCopy says another creation came first: nothing of this one is
// left, and the caller reads again.
func (r *Router) create(ctx context.Context, k shard.Key, e shard.Entry, to shard.ID, cut int64) error {
	home := r.homeShard(e.Member)
	r.mayMove(k, home != to, e.Member) // two copies for a while: counts name it (arrivals.go)
	if err := r.putDecided(ctx, home, k, e, -max(cut, 1)); err != nil {
		return err
	}
	others := make([]shard.ID, 0, len(r.shards)-1)
	for i := range r.shards {
		if id := shard.ID(i); id != home {
			others = append(others, id)
		}
	}
	held, err := r.memberIn(ctx, others, k, e.Member, cut)
	switch {
	case len(held) > 0:
		err = ErrStaleCopy // another creation ended before this claim
	case err != nil: // that cannot be told
	case home == to:
		return nil
	default:
		if err := r.putNewerBoth(ctx, to, k, e); err != nil {
			r.failedMove(k, true, e.Member, e.Stamp) // arrivals.go
			return err
		}
		now := slot{shard: to, score: e.Score, stamp: e.Stamp}
		r.leaveBy(ctx, home, k, e.Member, &now, false, func() (bool, error) {
			return r.dropClaim(ctx, home, k, e.Member, now)
		})
		return nil
	}
	// The claim goes, by its stamp exactly.
	switch ours, derr := r.takeBack(ctx, home, k, e.Member, e.Stamp); {
	case derr != nil:
		return derr
	case !ours:
		return nil // a write read the claim as the member's copy: this creation came first
	}
	return err
}

// dropClaim deletes a write's claim in shard from once its copy to is
// stored. A claim no longer the primary's was read as the member's copy
// by another write, or removed (ZREM through another node), after which
// the copy just stored would bring back a member that write or removal
// had gone on from: it goes too (TestClusterCreateWhileRemoved,
// TestClusterMoveWhileRemoved). It reports whether it did.
func (r *Router) dropClaim(ctx context.Context, from shard.ID, k shard.Key, member string, to slot) (bool, error) {
	ours, err := r.takeBack(ctx, from, k, member, to.stamp)
	if err != nil || ours {
		return false, err
	}
	return r.dropNew(ctx, k, member, to)
}

// takeBack deletes a write's claim in shard home (a creation's home
// shard, or the shard a conditional write moved the member from), by its
// stamp exactly, on both holders, and reports whether the primary, which
// decides every conditional write of the shard, still held it: a newer
// copy there is kept and answered (DelLocal), a removed one is not.
func (r *Router) takeBack(ctx context.Context, home shard.ID, k shard.Key, member string, stamp int64) (ours bool, err error) {
	held, err := r.deleteCopy(ctx, home, k, member, stamp)
	return err == nil && held == stamp, err
}
