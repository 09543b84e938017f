package router

// Counts in cluster mode: every node counts its own copies and answers
// one number, so ZCARD, ZCOUNT, EXISTS and TYPE cost one small message per
// node instead of carrying every member across the bus.

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"geoshard/shard"
)

// PeerCounter is a Peer that counts a key's members in its shards. It is
// an interface of its own so the Peer interface, which other work extends
// too, stays as it is.
type PeerCounter interface {
	// Count returns how many copies of k the node's shards ids hold with
	// a score within [min, max] and a stamp not older than cut, members
	// asked aside, with the newest copy of each of those (as CountLocal),
	// and the members that may have two copies (CountNamesLocal).
	Count(ctx context.Context, ids []shard.ID, k shard.Key, min, max Bound, cut, since int64, asked []string) (CountReply, error)
}

// CountReply is one node's part of a count.
type CountReply struct {
	N     int64
	Asked []Newest // per member asked, its newest copy on the node
	Names []string // members with a write in flight or a lost delete's mark
	Whole bool     // false: the node cannot name them all (too many)
}

// Newest is a member's newest copy not older than a count's cut, and
// whether its score is within the count's range.
type Newest struct {
	Found, In bool
	Stamp     int64
}

func (n *Newest) keep(o Newest) {
	if o.Found && (!n.Found || o.Stamp > n.Stamp || o.Stamp == n.Stamp && o.In) {
		*n = o
	}
}

// askedMissed reports whether a member asked was found on no node and
// named again: a handoff of it may have fallen between the reads of its
// new shard and its old one, which then both missed it.
func askedMissed(asked []string, c CountReply) bool {
	var named map[string]struct{}
	for i, nw := range c.Asked {
		if nw.Found || i >= len(asked) {
			continue
		}
		if named == nil {
			named = c.named()
		}
		if _, ok := named[asked[i]]; ok {
			return true
		}
	}
	return false
}

// named is the set of the members a round named.
func (c CountReply) named() map[string]struct{} {
	set := make(map[string]struct{}, len(c.Names))
	for _, m := range c.Names {
		set[m] = struct{}{}
	}
	return set
}

// errNoCount is a peer that cannot count (not one of cluster's peers).
var errNoCount = errors.New("peer cannot count")

// countRounds bounds the rounds of a count while writes keep naming new
// members; past them it gathers the members (gatherCount).
const countRounds = 5

// TryCount returns how many members of k have a score within [min, max]
// (ZCOUNT). In cluster mode it fails when some shard could not be counted;
// the count then is the others' sum, which ZCOUNT does not answer.
func (r *Router) TryCount(k shard.Key, min, max Bound) (int, error) {
	if r.cl != nil {
		return r.countCluster(k, min, max)
	}
	ms, err := r.TryRange(k, min, max, false, 0, -1)
	return len(ms), err
}

// countCluster adds up every node's count of k's members within [min,
// max]. Each shard is asked of the one node the view names for it, so a
// copy is counted once per shard. A member has copies in two shards only
// while a handoff is out (the new copy goes first, then the old one is
// deleted: the writing node holds the member meanwhile, hold) or after its
// delete failed (a mark, arrivals.go). Each node names such members; when
// some were named, the count is taken again with their names: each node
// counts the others and answers the newest copy of each named member it
// holds, and a named member counts when its newest copy of all is in
// range. The node holding an old copy may also know from its owner cache
// of the newer one and leave it out, and name it (CountLocal). A node
// names too the members that gained or lost a copy in a shard it counted
// since the count began (changes.go): a handoff that fell between two
// nodes' reads left such a member counted twice or nowhere. A member
// asked that no node found and some node named again is asked again.
func (r *Router) countCluster(k shard.Key, min, max Bound) (int, error) {
	cut := r.minStamp(r.key(k, false), now())
	ctx, cancel := r.callCtx()
	defer cancel()
	var asked []string
	seen := map[string]struct{}{}
	for round := range countRounds {
		c, err := r.countRound(ctx, k, min, max, cut, now()-clockSlack, asked)
		if err != nil {
			// The others' sum goes with the error: a key some live node
			// holds exists (EXISTS, TYPE) even when another did not answer.
			return int(c.N), r.readFailed("count", err)
		}
		if !c.Whole {
			break
		}
		n := c.N
		for _, nw := range c.Asked {
			if nw.In {
				n++
			}
		}
		grown := false
		for _, m := range c.Names { // deduped by countRound
			if _, ok := seen[m]; !ok {
				seen[m] = struct{}{}
				asked, grown = append(asked, m), true
			}
		}
		if !grown && askedMissed(asked, c) {
			grown = true // ask again: its copy may have moved past the reads
		}
		if !grown {
			r.remote.arrivals.rounds[round].Add(1)
			return int(n), nil
		}
	}
	// Too many members named, or new ones every round: gather the
	// members and dedupe by name.
	r.remote.arrivals.rounds[countRounds].Add(1)
	return r.gatherCount(k, min, max, cut) // count_gather.go
}

// countRound asks every node for its count, its copies of the members
// asked and the members it names, and sums them up.
func (r *Router) countRound(ctx context.Context, k shard.Key, min, max Bound, cut, since int64, asked []string) (CountReply, error) {
	var (
		total atomic.Int64
		mu    sync.Mutex
		sum   = CountReply{Asked: make([]Newest, len(asked)), Whole: true}
		names = map[string]struct{}{}
	)
	keep := func(per []Newest, ns []string, whole bool) {
		mu.Lock()
		defer mu.Unlock()
		sum.Whole = sum.Whole && whole
		for i := 0; i < len(per) && i < len(sum.Asked); i++ {
			sum.Asked[i].keep(per[i])
		}
		for _, m := range ns {
			names[m] = struct{}{}
		}
	}
	var here []shard.ID
	err := r.onNodes(ctx, nil, func(ids []shard.ID) {
		n, per, left := r.CountLocal(ids, k, min, max, cut, asked)
		total.Add(n)
		keep(per, left, true)
		mu.Lock()
		here = append(here, ids...)
		mu.Unlock()
	}, func(ctx context.Context, p Peer, ids []shard.ID) error {
		pc, ok := p.(PeerCounter)
		if !ok {
			return unread(ids, errNoCount)
		}
		c, err := pc.Count(ctx, ids, k, min, max, cut, since, asked)
		total.Add(c.N)
		keep(c.Asked, c.Names, c.Whole || err != nil)
		return unread(ids, err)
	})
	// This node's names last, after the others counted: a write through
	// it that began before is named (hold outlasts the write).
	ns, whole := r.CountNamesLocal(here, k, cut, since)
	keep(nil, ns, whole)
	sum.N = total.Load()
	for m := range names {
		sum.Names = append(sum.Names, m)
	}
	return sum, err
}

// MaxCountNames bounds the members a node names in a count (a few hundred
// KB at most); past it the count gathers the members instead.
const MaxCountNames = 4096

// clockSlack is how far apart node clocks may be, for the handoffs a
// count asks each node to name (those done since it began).
const clockSlack = int64(50e6)

// CountNamesLocal returns the members of k that may have two copies, or
// none, as far as this node knows: a write of theirs that may move it is
// out through it (mayMove), a handoff of theirs was done since since (a
// count that began before may have met both copies), a handoff's delete
// did not land (arrivals.go), or, since since, they gained or lost their
// copy in one of the shards ids, which this node has just counted
// (changes.go). The bool is false when it cannot name them all. It is
// called after the count of ids, so a change the count saw is named.
func (r *Router) CountNamesLocal(ids []shard.ID, k shard.Key, cut, since int64) ([]string, bool) {
	marks, whole := r.ArrivalsLocal(k, cut)
	names := make([]string, 0, len(marks))
	for _, m := range marks {
		names = append(names, m.Member)
	}
	var refs []memberRef
	var held []chan struct{}
	r.remote.inflightMu.Lock()
	for ref, ch := range r.remote.inflight {
		if ref.k == k {
			refs, held = append(refs, ref), append(held, ch)
		}
	}
	r.remote.inflightMu.Unlock()
	names = append(names, r.remote.arrivals.movingOf(refs, held)...)
	names = r.remote.arrivals.doneSince(names, k, since)
	names, all := r.remote.arrivals.changes.since(names, ids, k, since)
	if len(names) > MaxCountNames || !all {
		return nil, false
	}
	return names, whole
}

// CountLocal counts the copies of k in local shards ids with a score
// within [min, max] and a stamp not older than cut, leaving out a copy
// when this node knows a newer one of the same member in another shard:
// that copy is the member's current one and is counted where it is. The
// members asked are left out too: for each it returns its newest copy
// here instead, whatever its score (a member's old copy in range does not
// count when its newest copy is out of it). It returns the members whose
// copy it left out for a newer one, for the count to name: the cache
// learns of the newer copy when it is stored, also as a replica here,
// and the newer copy's node may have counted before it was.
func (r *Router) CountLocal(ids []shard.ID, k shard.Key, min, max Bound, cut int64, asked []string) (int64, []Newest, []string) {
	g := r.key(k, false)
	var n int64
	var left []string
	var skip map[string]struct{}
	if len(asked) > 0 {
		skip = make(map[string]struct{}, len(asked))
		for _, m := range asked {
			skip[m] = struct{}{}
		}
	}
	per := make([]Newest, len(asked))
	for _, id := range ids {
		if int(id) >= len(r.shards) {
			continue
		}
		r.shards[id].Ascend(k, min.Score, cut, func(e shard.Entry) bool {
			if !max.above(e.Score) {
				return false
			}
			if _, ok := skip[e.Member]; !ok && min.below(e.Score) {
				if r.supersededHere(g, id, e) {
					left = append(left, e.Member)
				} else {
					n++
				}
			}
			return true
		})
		for i, m := range asked {
			if e, ok := r.shards[id].Get(k, m); ok && e.Stamp >= cut {
				per[i].keep(Newest{Found: true, In: min.below(e.Score) && max.above(e.Score), Stamp: e.Stamp})
			}
		}
	}
	return n, per, left
}

// supersededHere reports whether the owner cache names a newer copy of
// e's member in a shard other than id.
func (r *Router) supersededHere(g *geoKey, id shard.ID, e shard.Entry) bool {
	if g == nil {
		return false
	}
	st := r.stripe(g, e.Member)
	st.mu.Lock()
	cur, ok := st.owner.get(e.Member)
	st.mu.Unlock()
	return ok && cur.shard != id && cur.stamp > e.Stamp
}
