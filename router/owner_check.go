package router

// A node's owner cache in cluster mode can be stale: another node may have
// moved the member (and its notice to this node been lost), rewritten it in
// place, or removed it. A write that acted on such a cache would leave the
// newer copy behind in another shard (a search asking only that shard shows
// the member where it no longer is) and judge NX/XX/GT/LT and the reply's
// counts on an old score. So a write that trusts its cache has the shard's
// primary confirm it: a put in the cached shard carries the cached stamp
// and is refused when the primary's copy differs; a handoff first reads the
// cached shard's copy. A refused write looks the member up on every node
// and is done again from what it finds.

import (
	"context"
	"errors"
	"fmt"

	"geoshard/shard"
)

// ErrStaleCopy is a conditional put refused: the member's copy in the shard
// is not the one the writer expected.
var ErrStaleCopy = errors.New("member's copy changed since this node cached it")

// PutLocalIf is PutLocal for a writer that expects the member's copy in
// shard id to have stamp expect (0: no expectation; below 0: no live copy,
// shard.Shard.PutIf). A position's primary and replica both judge, so a
// refused write is stored nowhere; a replica still being filled may refuse
// what its primary took, and the writer then writes again
// unconditionally. An increment's primary judges alone (putDecided).
func (r *Router) PutLocalIf(id shard.ID, k shard.Key, e shard.Entry, expect int64) error {
	if expect != 0 {
		if !r.shards[id].PutIf(k, e, expect) {
			return ErrStaleCopy
		}
		r.stats.Shards[id].Writes.Add(1)
		r.cacheOwner(k, e.Member, slot{shard: id, score: e.Score, stamp: e.Stamp})
		return nil
	}
	r.PutLocal(id, k, e)
	return nil
}

// cachedCurrent reports whether the member's copy in the cached shard is
// still the cached one, asking the shard's primary (or filled replica).
func (r *Router) cachedCurrent(ctx context.Context, k shard.Key, member string, cur slot) (bool, error) {
	var got Copy
	var found bool
	err := r.onShard(ctx, cur.shard, func(s *shard.Shard) error {
		if e, ok := s.Get(k, member); ok {
			got, found = Copy{Shard: cur.shard, Score: e.Score, Stamp: e.Stamp}, true
		}
		return nil
	}, func(ctx context.Context, p Peer) error {
		var err error
		got, found, err = p.Get(ctx, []shard.ID{cur.shard}, k, member, 0)
		return err
	})
	return err == nil && found && got.Stamp == cur.stamp, err
}

// putIf stores e in a local shard as a peer's PUT with expect does:
// newest wins when expect is 0 (no condition: PutIf would ask for a copy
// stamped 0 and refuse it), else only over the copy expected
// (shard.Shard.PutIf).
func putIf(s *shard.Shard, k shard.Key, e shard.Entry, expect int64) error {
	if expect == 0 {
		s.PutNewer(k, e) // as PutLocal
	} else if !s.PutIf(k, e, expect) {
		return ErrStaleCopy
	}
	return nil
}

// putChecked writes e to shard to, on its primary and replica, with the
// primary confirming the cached copy when expect != 0.
func (r *Router) putChecked(ctx context.Context, to shard.ID, k shard.Key, e shard.Entry, expect int64) error {
	return r.onShardWrite(ctx, to, func(s *shard.Shard) error {
		return putIf(s, k, e, expect)
	}, func(ctx context.Context, p Peer) error {
		return p.PutIf(ctx, to, k, e, expect)
	})
}

// lookUp finds a member's newest copy on every node, for a write whose
// cache had none or was refused; a conditional write (cond) looks again
// for a member found nowhere (findLive). mine is the stamp of this write's
// refused attempt (0: none): the primary took that one and only the
// replica refused it (it was still filling), so the cached copy cur was
// right and stays the one the write replaces. A plain write that could
// not read every shard goes on: its copy is the newest wherever an old
// one was. A conditional one that found no copy fails, as an increment
// does (increment.read): NX would add a member a node that did not answer
// holds, XX refuse it, GT or LT judge against nothing.
func (r *Router) lookUp(k shard.Key, member string, cut int64, cur slot, exists bool, mine int64, cond bool) (slot, bool, error) {
	find := r.findMember
	if cond {
		find = r.findLive
	}
	found, ok, err := find(k, member, cut)
	if err != nil {
		r.remoteFailed("get", err)
		if cond && !ok {
			return cur, exists, fmt.Errorf("member %q could not be read (%w); nothing written", member, err)
		}
	}
	if mine != 0 && ok && found.stamp == mine {
		return cur, exists, nil
	}
	return found, ok, nil
}

// flagsRefuse reports whether NX, XX, GT or LT refuse a write of score
// given the member's current copy.
func flagsRefuse(f AddFlags, live bool, score float64, cur slot) bool {
	switch {
	case f.NX && live, f.XX && !live:
		return true
	case live && f.GT && !(score > cur.score), live && f.LT && !(score < cur.score):
		return true
	}
	return false
}
