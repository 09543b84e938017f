package router

// First writes in cluster mode. A plain write of a member found nowhere
// asks every node for a copy, then stores its own. Two such writes
// through two nodes at once, to two shards, could each find nothing (the
// other's copy not stored yet) and both store: the member stayed in both
// places, the older copy for good without a position TTL, since the
// member's next pings update the newer one in place and no handoff's
// notice comes to drop it: 7 of 600 pairs (TestClusterTwoFirstWrites).
//
// Each node remembers for a few seconds the members other nodes asked it
// for and it did not hold (absentAsks). A write that stores a copy of
// such a member on it, whichever comes first:
//   - the ask was remembered before the store looked: the store is
//     flagged in its answer (GETPUT, PUTMANY), and the writer, once its write is
//     done, tells every node of its copy, as a handoff does (announceOwner):
//     a node drops its older copies of the member in other shards and
//     answers the stamp of a newer one, upon which the writer deletes its
//     own. The notice goes after the write's own look-ups, which it would
//     otherwise race: told by the node that stored it, a copy's notice
//     dropped the member's old copy before the writer's look-up reached
//     it, and the move answered "added" (cluster TestClusterAddMany);
//   - or the ask was remembered after: then its look-up saw the count of
//     stores move, looks again, and answers the copy it finds now, so the
//     asker's write sees the other's copy and goes on from it.
// The notices go in the background, a message per node for all the
// copies since the last one.
//
// Telling every node of every first write instead cost a cold load of
// 50,000 drivers through a node half as much time again (258-293 ms ->
// 396-421 ms) and twice the CPU: every node looked every member up in
// every shard. Remembering the asks costs a map entry per member a node
// was asked for and did not hold, for a few seconds.

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	"geoshard/shard"
)

// maxFresh bounds the first writes waiting to be told; past it (nodes
// not answering for long) the others are not told.
const maxFresh = 1 << 16

// freshChunk is how many first writes one message carries at most.
const freshChunk = 1024

// freshCopy is a first write's copy, to be told to every node.
type freshCopy struct {
	k      shard.Key
	member string
	s      slot
}

// freshQueue is the first writes not told yet; sending says a goroutine
// is telling them.
type freshQueue struct {
	mu      sync.Mutex
	pending []freshCopy
	sending bool
}

// fresh queues first writes of k's members for every node to hear of.
func (r *Router) fresh(k shard.Key, copies []freshCopy) {
	if len(copies) == 0 || r.remote.dropNotices.Load() {
		return
	}
	// The names may slice a request's buffer; the queue outlives it.
	k.Name = strings.Clone(k.Name)
	q := &r.remote.fresh
	q.mu.Lock()
	for _, c := range copies {
		if len(q.pending) == maxFresh {
			break
		}
		q.pending = append(q.pending, freshCopy{k, strings.Clone(c.member), c.s})
	}
	start := !q.sending
	q.sending = true
	q.mu.Unlock()
	if start {
		go r.tellFresh()
	}
}

// tellFresh tells every node of the queued first writes until none is
// left; those queued while it tells go in the next round.
func (r *Router) tellFresh() {
	q := &r.remote.fresh
	for {
		q.mu.Lock()
		batch := q.pending
		q.pending = nil
		if len(batch) == 0 {
			q.sending = false
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
		for len(batch) > 0 {
			n := 1
			for n < len(batch) && n < freshChunk && batch[n].k == batch[0].k {
				n++
			}
			r.tellFreshOf(batch[0].k, batch[:n])
			batch = batch[n:]
		}
	}
}

// tellFreshOf tells every node of first writes of key k and deletes the
// copies of those a node answered a newer copy for.
func (r *Router) tellFreshOf(k shard.Key, batch []freshCopy) {
	ctx, cancel := r.callCtx()
	defer cancel()
	newer := make([]newestStamp, len(batch))
	members := make([]string, len(batch))
	copies := make([]Copy, len(batch))
	for i, c := range batch {
		members[i], copies[i] = c.member, c.s.copy()
	}
	err := r.onAllNodes(ctx, func() {
		for i, n := range r.FreshLocal(k, members, copies) {
			newer[i].keep(n)
		}
	}, func(ctx context.Context, p Peer) error {
		pb, ok := p.(PeerBatcher)
		if !ok {
			return errNoBatch
		}
		ns, err := pb.Fresh(ctx, k, members, copies)
		for i := range min(len(ns), len(batch)) {
			newer[i].keep(ns[i])
		}
		return err
	})
	if err != nil {
		r.remoteFailed("announce first write", err)
	}
	for i, c := range batch {
		if newer[i].Load() > c.s.stamp {
			// A newer first write (or a later one) is elsewhere: this
			// copy, exactly, goes; one written over it since stays. The
			// newer copy may be this node's own next write of the member,
			// still looking for this copy to hand off from: deleting it
			// first made that write count the member as added
			// (GEOADD k p1 m p2 m answered 2, TestClusterGenerated), so
			// the delete waits for the member's writes here to end.
			// A later write handing the member off from this copy may
			// look for it only after the delete (giveway.go).
			release := r.hold(k, c.member)
			r.giveWay(ctx, c.s.shard, k, c.member, c.s.stamp, newer[i].Load())
			release()
		}
	}
}

// FreshLocal drops this node's copies of members older than copies[i]
// in other shards, on hearing of another node's first writes, and
// answers for each the stamp of a newer copy here (0: none; dropOlder).
func (r *Router) FreshLocal(k shard.Key, members []string, copies []Copy) []int64 {
	out := make([]int64, len(members))
	for i, m := range members {
		out[i] = r.dropOlder(k, m, copies[i].slot())
	}
	return out
}

// askWindow is how long an absent ask is kept, at least: longer than a
// first write's look-up and store take (one call timeout each, at most).
const askWindow = keepRecent

// absentAsks is the members (by shard.Hash) other nodes asked this node
// for lately that its shards did not hold.
type absentAsks struct {
	mu   sync.Mutex
	seen recent[uint64, struct{}]
	// any says cur or prev may hold asks: a store checks nothing while
	// none was made (updates from the cache ask nothing).
	any atomic.Bool
	// stores counts the stores that check asks (StoredForPeer,
	// storedHere). A look-up racing one may record its ask only after the
	// store checked: it sees the count moved, and looks again.
	stores atomic.Uint64
}

// rotate starts a new window when cur's has ended; called under mu.
func (a *absentAsks) rotate(t int64) {
	if a.seen.rotate(t) {
		a.any.Store(len(a.seen.prev) > 0)
	}
}

// LookUpForPeer is GetLocalMany for a peer's look-up (GET, GETPUT): it
// remembers the members not found, but those the same call stores here
// (puts: that call's own writes), and looks again for them if a store
// came meanwhile: one that looked for asks before this one was
// remembered, and whose copy this look-up must then answer.
func (r *Router) LookUpForPeer(ids []shard.ID, k shard.Key, names []string, cut int64,
	puts []shard.Entry) ([]Copy, []bool) {
	a := &r.remote.asks
	seen := a.stores.Load()
	cs, found := r.GetLocalMany(ids, k, names, cut)
	var own map[string]bool
	if len(puts) > 0 {
		own = make(map[string]bool, len(puts))
		for _, e := range puts {
			own[e.Member] = true
		}
	}
	var absent []int
	t := now()
	a.mu.Lock()
	a.rotate(t)
	for i, m := range names {
		if found[i] || own[m] {
			continue
		}
		a.seen.put(shard.Hash(m), struct{}{})
		a.any.Store(true)
		absent = append(absent, i)
	}
	a.mu.Unlock()
	if len(absent) == 0 || a.stores.Load() == seen {
		return cs, found
	}
	again := make([]string, len(absent))
	for j, i := range absent {
		again[j] = names[i]
	}
	cs2, found2 := r.GetLocalMany(ids, k, again, cut)
	for j, i := range absent {
		cs[i], found[i] = cs2[j], found2[j]
	}
	return cs, found
}

// asked reports, for each of n members (member(i)), whether another node
// asked for it lately and this node did not hold it (nil: none was),
// under one hold of the lock for all of them.
func (a *absentAsks) asked(n int, member func(i int) string) (out []bool) {
	if !a.any.Load() {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rotate(now())
	for i := range n {
		if _, ok := a.seen.get(shard.Hash(member(i))); ok {
			if out == nil {
				out = make([]bool, n)
			}
			out[i] = true
		}
	}
	return out
}

// StoredForPeer is told the copies a peer's call stored here (PUTMANY,
// GETPUT), once stored. It reports those of members another
// node asked for lately (nil: none): the writer tells every node of them
// once its write is done (fresh).
func (r *Router) StoredForPeer(es []shard.Entry) (asked []bool) {
	if len(es) == 0 {
		return nil
	}
	r.remote.asks.stores.Add(1) // before looking: LookUpForPeer
	return r.remote.asks.asked(len(es), func(i int) string { return es[i].Member })
}

// NoteStore counts a store of a peer's that reports no asks (PUT): a
// look-up racing it looks again (LookUpForPeer).
func (r *Router) NoteStore() { r.remote.asks.stores.Add(1) }

// storedHere is StoredForPeer for this node's own first write of member,
// stored in a local shard.
func (r *Router) storedHere(member string) bool {
	r.remote.asks.stores.Add(1)
	return r.remote.asks.asked(1, func(int) string { return member }) != nil
}

// firstWrite reports whether a write stored its member anew: no copy was
// found, or only an expired one in the shard the write went to.
func firstWrite(exists, live bool, cur, to shard.ID) bool {
	return !exists || !live && cur == to
}
