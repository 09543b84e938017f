package router

// Conditional writes in cluster mode: ZADD NX, XX, GT, LT and increments
// judge the member's copy they read, and two nodes may write one member at
// once. Each stores its write only while the copy it judged is still the
// member's, as decided by the primary of the shard holding that copy; a
// write refused so reads again and judges anew. Without the condition two
// GT writes that both read the old copy were both stored, the newest stamp
// winning instead of the higher score (TestClusterZaddGTThroughThreeNodes).
//
// A write that moves the member to another shard is decided where the old
// copy is: it is first stored over the old copy (the claim), then in its
// new shard under the same stamp, and the claim is deleted as any
// handoff's old copy, by its stamp exactly, so that a later write another
// node made over the claim stays. Between the claim and the new copy, one
// round trip, a search near the new position misses the member: its only
// copy sits in a shard not asked there. Storing the new copy first and
// undoing it when the old shard refuses would show readers a score no
// writer decided. A conditional write that reads a claim (a copy in a
// shard that would not keep it there) waits for the move to land and
// reads again: judged where the claim is, its write could be made over a
// copy that is already on its way elsewhere and leave two.

import (
	"context"
	"errors"
	"time"

	"geoshard/shard"
)

// condAttempts bounds how often a conditional write through this node
// starts again because another node changed the member between its read
// and its write; past it the client hears -TRYAGAIN, nothing written.
const condAttempts = 16

// absentReads is how often a conditional write reads a member it finds
// nowhere before it takes the member for absent (findLive).
const absentReads = 3

// findLive is findMember for a conditional write, which looks again
// for a member it found nowhere (as scoresCluster does). One read asks
// the nodes at once, each at its own moment, and can miss a member whose
// handoff by another node (new copy stored, then the old one deleted)
// fell between its asking the new shard and its asking the old one; a
// write that took that for absence would start the member anew, in a
// shard beside its copy, and the newest stamp would win: two clients
// incrementing one member that each sum moved across regions left it at
// the last increment alone in 2 of 3 runs with -race
// (TestClusterZincrbyThroughTwoNodes). A second miss needs a whole
// further handoff of the member inside the next read, which starts after
// the first one ended.
func (r *Router) findLive(k shard.Key, member string, cut int64) (slot, bool, error) {
	for try := 1; ; try++ {
		cur, ok, err := r.findMember(k, member, cut)
		if ok || err != nil || try == absentReads {
			return cur, ok, err
		}
	}
}

// putCond stores e in shard to if the member's copy is still cur (live),
// or, when there was none, if no creation of the member came first
// (create.go). A write that moves the member claims its old copy first
// (claimed: leaveOld then deletes the claim, stamped e.Stamp).
// ErrStaleCopy says the copy changed; nothing was stored.
func (r *Router) putCond(ctx context.Context, k shard.Key, e shard.Entry, live bool, cur slot, to shard.ID,
	cut int64) (claimed bool, err error) {
	switch {
	case !live:
		return false, r.create(ctx, k, e, to, cut) // create.go
	case to == cur.shard:
		return false, r.putDecided(ctx, to, k, e, cur.stamp)
	}
	if err := r.putDecided(ctx, cur.shard, k, e, cur.stamp); err != nil {
		return false, err
	}
	return true, r.putNewerBoth(ctx, to, k, e)
}

// claimWait is how long a conditional write waits before it reads again a
// member it found claimed by another node's move (one round trip, about).
const claimWait = time.Millisecond

// claimed reports whether a copy is in a shard that would not keep it at
// its position: another node's conditional write claimed it on its way to
// another shard (or that write failed after the claim, and the copy stays
// until the member's next write).
func (r *Router) claimed(s slot) bool {
	e := shard.NewEntry("", s.score, s.stamp)
	owner, kept := r.keeps(s.shard, e.Lon, e.Lat)
	return owner != s.shard && !kept
}

// putDecided stores e in shard to under condition expect, decided by the
// shard's primary alone; the replica then takes the decided copy, newest
// wins, as batched writes do (remote_batch_replica.go). Primary and
// replica judging in parallel (putChecked) could each take a different
// node's increment, after which their stamps differ and every later
// expectation is refused by one of them.
func (r *Router) putDecided(ctx context.Context, to shard.ID, k shard.Key, e shard.Entry, expect int64) error {
	v := r.cl.View()
	p := v.Peer(to)
	local, rp, _ := v.ReplicaOf(to)
	switch {
	case !v.Local(to) && p == nil:
		return errShardDown
	case !local && rp == nil && replicaGone(v, to):
		return errReplicaGone
	}
	err := r.onPrimary(ctx, v, to, p, func(s *shard.Shard) error {
		return r.pinned(v, func() error { return putIf(s, k, e, expect) })
	}, func(ctx context.Context, p Peer) error {
		return p.PutIf(ctx, to, k, e, expect)
	})
	if errors.Is(err, ErrStale) {
		r.cl.Refresh(ctx)
		return ErrStaleCopy // read again under the view in force
	}
	if err != nil {
		return err
	}
	switch {
	case local:
		err = r.pinned(v, func() error { r.shards[to].PutNewer(k, e); return nil })
	case rp != nil:
		err = rp.Put(ctx, to, k, e)
	}
	if errors.Is(err, ErrStale) {
		// The view changed since the primary took it: the decided copy
		// goes to primary and replica of the view in force.
		err = r.putNewerBoth(ctx, to, k, e)
	}
	return err
}
