package router

// Batched writes in cluster mode: a GEOADD or ZADD of many members looks
// up the members it has no cached copy of with one message per node and
// stores its copies with one message per node, instead of a lookup on
// every node and a store per member. A cold load of 50,000 drivers through
// a node took 8.5 s that way; one GEOADD of 500 now costs a few messages.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"geoshard/shard"
)

// PeerBatcher is a Peer that looks up and stores many members of a key in
// one call each. It is an interface of its own so the Peer interface,
// which other work extends too, stays as it is.
type PeerBatcher interface {
	// GetPut returns, for each member, its newest copy not older than cut
	// in the node's shards ids, and whether there is one; then (after the
	// look-up) it stores puts[i] in the node's shard putIDs[i], and says
	// which of them another node asked it for lately (asked; nil: none,
	// StoredForPeer).
	GetPut(ctx context.Context, ids []shard.ID, k shard.Key, members []string, cut int64,
		putIDs []shard.ID, puts []shard.Entry) (cs []Copy, found []bool, asked []bool, err error)
	// PutMany stores es[i] in the node's shard ids[i], and says which of
	// them another node asked it for lately, as GetPut.
	PutMany(ctx context.Context, k shard.Key, ids []shard.ID, es []shard.Entry) (asked []bool, err error)
	// PutIfMany is PutIfLocal for each es[i] in the node's shard ids[i].
	PutIfMany(ctx context.Context, k shard.Key, ids []shard.ID, es []shard.Entry, f AddFlags, cut int64) ([]PutIfResult, error)
	// Fresh is FreshLocal on the node: first writes of members whose
	// copies[i] another node stored (fresh.go).
	Fresh(ctx context.Context, k shard.Key, members []string, copies []Copy) ([]int64, error)
	// GiveWay is GiveWayLocal on the node: a first write's copy deleted
	// for the newer copy stamped by (giveway.go).
	GiveWay(ctx context.Context, ids []shard.ID, k shard.Key, member string, notAfter, by int64) (int64, error)
}

// errNoBatch is a peer that cannot take batches (not one of cluster's).
var errNoBatch = errors.New("peer cannot take batched calls")

// batchItem is one member of a batched write, as addCluster's locals.
type batchItem struct {
	member       string
	h            uint64 // member's shard.Hash
	score        float64
	stamp, cut   int64
	cur          slot
	exists, live bool
	skip         bool // NX, XX, GT or LT left it as it is, or it is written later (addBatch)
	done         bool // settled by a conditional put (remote_batch_fast.go)
	fastMiss     bool // the conditional put found no live copy
	replicated   bool // stored on the shard's replica too (putPlan)
	asked        bool // a node storing it was asked for it lately by another (fresh.go)
	to           shard.ID
	e            shard.Entry
	err          error
}

// TryAddMany writes members with their scores, in order, as that many
// TryAdd calls would, and returns how many were added and how many
// existing ones changed score. In cluster mode the members are looked up
// and stored in batches; on an error, members before the failing batch
// and those of it that were stored stay written. With replicas too: the
// partial answers TestClusterReplicaKill gave with batches (2 of 20 runs)
// came with a surviving node's lease lapsing, as they did with one-member
// writes at the same load (cluster/TestReplicaLeaseLapse, TestHolderAway).
func (r *Router) TryAddMany(k shard.Key, members []string, scores []float64, f AddFlags) (added, changed int, err error) {
	if r.cl == nil {
		added, changed = r.addLocal(k, members, scores, f) // bulk.go
		return added, changed, nil
	}
	for start := 0; start < len(members); {
		end := distinctRun(members, start)
		a, c, later, err := r.addBatch(k, members[start:end], scores[start:end], f)
		added, changed = added+a, changed+c
		for _, i := range later {
			if err != nil {
				break
			}
			var ad, ch bool
			ad, ch, err = r.addCluster(k, members[start+i], scores[start+i], f, nil)
			added, changed = added+b2i(ad), changed+b2i(ch)
		}
		if err != nil {
			return added, changed, err
		}
		start = end
	}
	return added, changed, nil
}

// replicated reports whether some shard has a replica in the view in
// force (counts then dedupe by name, remote_count.go).
func (r *Router) replicated() bool {
	v := r.cl.View()
	for i := range r.shards {
		if local, p, _ := v.ReplicaOf(shard.ID(i)); local || p != nil {
			return true
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// distinctRun returns the end of the longest run from start with no
// member twice: a later write of a member must see the earlier one, so a
// repeated member starts the next batch.
func distinctRun(members []string, start int) int {
	seen := make(map[string]struct{}, len(members)-start)
	for i := start; i < len(members); i++ {
		if _, dup := seen[members[i]]; dup {
			return i
		}
		seen[members[i]] = struct{}{}
	}
	return len(members)
}

// addBatch is addCluster for distinct members at once: members that stay
// in their cached shard are written there in one conditional put per node;
// the others are looked up on every node (one GetMany per node) and stored
// with one PutMany per node. With NX, XX, GT or LT those others are left
// to the caller (later), who writes each under the condition that the
// copy it judged is still the member's (cond.go), once this batch has let
// its members go.
func (r *Router) addBatch(k shard.Key, members []string, scores []float64, f AddFlags) (added, changed int,
	later []int, err error) {
	defer r.holdAll(k, members)()
	items := r.batchItems(k, members, scores)
	ctx, cancel := r.callCtx()
	defer cancel()
	// One view for primaries and replicas, as onShardWrite: a copy stored
	// on a primary under it and on the replica of a later view could be
	// on neither the promoted replica nor in a new replica's fill.
	v := r.cl.View()
	slow := r.putIfFast(ctx, v, k, items, f)
	r.mayMoveItems(k, items, slow) // counts name them (arrivals.go)
	switch {
	case len(slow) == 0:
	case f != AddFlags{}:
		for _, i := range slow {
			items[i].skip = true
		}
		later = slow
	case !r.anyAway(v):
		r.getPut(ctx, v, k, items, slow)
	default: // a handoff out of a shard with a holder away is known before the write
		r.findMissing(k, items, slow, nil)
		for _, i := range slow {
			r.decide(&items[i])
		}
		r.putBatch(ctx, v, k, items, r.refuseAwayHandoffs(v, items, slow))
	}
	r.putReplicas(ctx, v, k, items)
	var g *geoKey // the key's view, looked up by the first member stored
	var told []freshCopy
	for i := range items {
		it := &items[i]
		switch {
		case it.skip:
			continue
		case it.err != nil:
			r.failedMove(k, true, it.member, it.stamp) // arrivals.go
			if err == nil {
				r.remoteFailed("put", it.err)
				err = fmt.Errorf("shard %s could not be written (%w); position not stored", r.regions.Name(it.to), it.err)
			}
			continue
		}
		g = r.stored(ctx, g, k, it)
		if !it.live {
			added++
		} else if it.cur.score != it.e.Score {
			changed++
		}
		if firstWrite(it.exists, it.live, it.cur.shard, it.to) && (it.asked || v.Local(it.to) && r.storedHere(it.member)) {
			// A first write another node may be racing (fresh.go).
			told = append(told, freshCopy{member: it.member, s: slot{shard: it.to, score: it.e.Score, stamp: it.stamp}})
		}
	}
	r.fresh(k, told)
	return added, changed, later, err
}

// holdAll holds every member (hold), in name order so two batches never
// wait for each other's members crosswise, and returns the release. The
// members share one channel and are taken under one lock until one is
// busy: a mark of its own per member cost a cold load of 50,000 a map
// insert, a channel and two lock round trips each (a tenth of the writing
// node's CPU, perf of the node processes).
func (r *Router) holdAll(k shard.Key, members []string) (release func()) {
	if len(members) == 1 {
		return r.hold(k, members[0])
	}
	sorted := slices.Clone(members)
	slices.Sort(sorted)
	done := make(chan struct{})
	for held := 0; held < len(sorted); {
		var busy chan struct{}
		r.remote.inflightMu.Lock()
		if r.remote.inflight == nil {
			r.remote.inflight = make(map[memberRef]chan struct{})
		}
		for ; held < len(sorted); held++ {
			ref := memberRef{k, sorted[held]}
			if b, ok := r.remote.inflight[ref]; ok && b != done { // done: a name twice
				busy = b
				break
			}
			r.remote.inflight[ref] = done
		}
		r.remote.inflightMu.Unlock()
		if busy != nil {
			<-busy // then try that member again, keeping those held
		}
	}
	return func() {
		r.remote.inflightMu.Lock()
		for _, m := range sorted {
			delete(r.remote.inflight, memberRef{k, m})
		}
		r.remote.inflightMu.Unlock()
		close(done)
	}
}

// batchItems stamps each member and reads its cached copy.
func (r *Router) batchItems(k shard.Key, members []string, scores []float64) []batchItem {
	items := make([]batchItem, len(members))
	var g *geoKey
	for i, m := range members {
		h := shard.Hash(m) // once, for the stripe and the record
		var st *stripe
		g, st = r.lockIn(g, k, m, h)
		it := &items[i]
		it.h = h
		it.member, it.score, it.stamp = m, scores[i], r.stamp()
		it.cut = r.minStamp(g, it.stamp)
		_, it.cur, it.exists = st.owner.lookup(m, h)
		if it.score == 0 && !g.big.Load() {
			it.score = 0 // a listpack stores -0 as 0
		}
		st.mu.Unlock()
	}
	return items
}

// decide picks the shard of a write's new copy, for a write with no NX,
// XX, GT or LT (those are judged in cond.go).
func (r *Router) decide(it *batchItem) {
	it.live = it.exists && it.cur.stamp >= it.cut
	it.e = shard.NewEntry(it.member, it.score, it.stamp)
	it.to = r.place(it.cur.shard, it.live, it.e.Lon, it.e.Lat)
}

// stored finishes one member's write once its new copy is in place: as
// addCluster, the old copy (after a handoff) goes, every node hears where
// the member now is, and the cache remembers it. It returns the key's view
// for the batch's next member (rememberIn).
func (r *Router) stored(ctx context.Context, g *geoKey, k shard.Key, it *batchItem) *geoKey {
	r.stats.Shards[it.to].Writes.Add(1)
	now := slot{shard: it.to, score: it.e.Score, stamp: it.stamp}
	if it.exists && it.cur.shard != it.to {
		r.stats.Shards[it.cur.shard].HandoffsOut.Add(1)
		r.stats.Shards[it.to].HandoffsIn.Add(1)
		r.stats.Border(it.cur.shard, it.to).Handoffs.Add(1)
		now = r.leaveOld(ctx, it.cur.shard, k, it.member, it.stamp-1, now, true) // arrivals.go
	}
	return r.rememberIn(g, k, it.member, it.h, now)
}

// putBatch stores the new copies of items idx: those of local shards
// here, the others with one PutMany per node, in parallel. A node that
// says our view is stale gets its members one by one through
// onShardWrite, which refreshes the view and follows a shard that moved.
func (r *Router) putBatch(ctx context.Context, v View, k shard.Key, items []batchItem, idx []int) {
	groups := map[Peer][]int{}
	for _, i := range idx {
		it := &items[i]
		switch p := v.Peer(it.to); {
		case it.skip:
		case replicaGone(v, it.to):
			it.err = errReplicaGone // no write on the primary alone (replica_gone.go)
		case v.Local(it.to):
			if r.pinned(v, func() error { r.shards[it.to].PutNewer(k, it.e); return nil }) != nil {
				it.err = r.putBoth(ctx, k, it) // the view moved on: as a write of its own
				it.replicated = it.err == nil
			}
		case p == nil:
			it.err = errShardDown
		default:
			groups[p] = append(groups[p], i)
		}
	}
	r.putGroups(ctx, k, items, groups, false)
}

// putGroups stores each node's share of a batch, the nodes in parallel.
func (r *Router) putGroups(ctx context.Context, k shard.Key, items []batchItem, groups map[Peer][]int, replica bool) {
	var wg sync.WaitGroup
	for p, idx := range groups {
		wg.Go(func() { r.putGroup(ctx, p, k, items, idx, replica) })
	}
	wg.Wait()
}

// putGroup stores one node's share of a batch; replica says the node
// keeps the shards' replicas, which a stale view cannot follow one member
// at a time (onShardWrite starts from the primary): the members then fail.
func (r *Router) putGroup(ctx context.Context, p Peer, k shard.Key, items []batchItem, idx []int, replica bool) {
	ids := make([]shard.ID, len(idx))
	es := make([]shard.Entry, len(idx))
	for j, i := range idx {
		ids[j], es[j] = items[i].to, items[i].e
	}
	err := errNoBatch
	if pb, ok := p.(PeerBatcher); ok {
		var asked []bool
		asked, err = pb.PutMany(ctx, k, ids, es)
		markAsked(items, idx, asked)
	}
	if replica || !errors.Is(err, ErrStale) {
		for _, i := range idx {
			items[i].err = err
		}
		return
	}
	for _, i := range idx {
		it := &items[i]
		it.err = r.putBoth(ctx, k, it)
		it.replicated = it.err == nil
	}
}
