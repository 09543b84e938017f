package router

// What a node names in a count besides its marks (remote_count.go): its
// writes out that may move their member, and the handoffs it finished
// lately; and the marks a failed write leaves.

import "geoshard/shard"

// mayMove flags this node's write of member, out now, as one that may
// leave a second copy while it is out when move says so (a handoff):
// counts name its members. A write that stays in its shard is not named:
// it replaces the copy where it is.
func (r *Router) mayMove(k shard.Key, move bool, member string) {
	if !move {
		return
	}
	r.remote.inflightMu.Lock()
	held := r.remote.inflight[memberRef{k, member}]
	r.remote.inflightMu.Unlock()
	if held == nil {
		return
	}
	a := &r.remote.arrivals
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.moving == nil {
		a.moving = make(map[chan struct{}]struct{})
	}
	a.moving[held] = struct{}{}
	if len(a.moving) > max(1024, 2*a.swept) {
		a.sweepMoving()
	}
}

// mayMoveItems flags a batch whose items idx are written apart from those
// that stay in their cached shard: each may be a handoff, or a member
// whose copy this node does not know of. The batch's members share one
// hold (holdAll), so the flag names them all, those written in place too:
// a count that meets such a batch takes a second round. A flag per member
// cost a cold load of 50,000 about a tenth more CPU.
func (r *Router) mayMoveItems(k shard.Key, items []batchItem, idx []int) {
	if len(idx) > 0 {
		r.mayMove(k, true, items[idx[0]].member)
	}
}

// sweepMoving forgets the flags of writes done; a.mu is held.
func (a *arrivals) sweepMoving() {
	for ch := range a.moving {
		select {
		case <-ch: // the write is done
			delete(a.moving, ch)
		default:
		}
	}
	a.swept = len(a.moving)
}

// movingOf keeps of refs, this node's writes out with their holds, those
// whose hold mayMove flagged.
func (a *arrivals) movingOf(refs []memberRef, held []chan struct{}) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sweepMoving()
	var names []string
	for i, ref := range refs {
		if _, ok := a.moving[held[i]]; ok {
			names = append(names, ref.member)
		}
	}
	return names
}

// failedMove marks a member whose write that may have moved it failed
// (when move): its new copy may be stored on some holder of the new shard
// (the write may or may not have happened, as with a timeout) while the
// old one stays, two copies no delete will remove before the TTL.
func (r *Router) failedMove(k shard.Key, move bool, member string, stamp int64) {
	if move {
		r.NoteArrival(k, Arrival{Member: member, Stamp: stamp})
	}
}

type handoffDone struct {
	k      shard.Key
	member string
	at     int64 // ns
}

// keepRecent is how long a handoff done is named by counts: more than a
// count's round takes (a call), less than memory would mind.
const keepRecent = int64(2e9)

// done records a handoff finished at t.
func (a *arrivals) done(k shard.Key, member string, t int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := 0
	for i < len(a.recent) && a.recent[i].at < t-keepRecent {
		i++
	}
	a.recent = append(a.recent[i:], handoffDone{k, member, t})
}

// doneSince appends to names the members of k handed off since t.
func (a *arrivals) doneSince(names []string, k shard.Key, t int64) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	for j := len(a.recent) - 1; j >= 0 && a.recent[j].at >= t; j-- {
		if a.recent[j].k == k {
			names = append(names, a.recent[j].member)
		}
	}
	return names
}
