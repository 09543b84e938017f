package router

// The serving side of a Peer: what this node does when another asks it
// about shards it serves. Package cluster decodes the request and calls
// these; the ids are shards the caller checked are served here.

import (
	"math"

	"geoshard/geo"
	"geoshard/shard"
)

// PutLocal stores a copy in a local shard and remembers where it is,
// unless the shard's copy is as new or newer: two nodes writing a member
// at once reach its primary and replica in either order, and both must
// keep the newest (TestConcurrentBatchesAgree).
func (r *Router) PutLocal(id shard.ID, k shard.Key, e shard.Entry) {
	r.stats.Shards[id].Writes.Add(1)
	if !r.shards[id].PutNewer(k, e) {
		return
	}
	r.cacheOwner(k, e.Member, slot{shard: id, score: e.Score, stamp: e.Stamp})
}

// DelLocal removes a member's copies written no later than notAfter from
// local shards. It returns the stamp of the newest copy held by those of
// them this node is the primary of (0: none): removed, or kept as written
// after notAfter, which tells a handoff that a newer write came after it.
func (r *Router) DelLocal(ids []shard.ID, k shard.Key, member string, notAfter int64) int64 {
	r.tombstone(ids, k, member, notAfter)
	var v View
	if r.cl != nil {
		v = r.cl.View()
	}
	var newest int64
	for _, id := range ids {
		e, ok := r.shards[id].Delete(k, member, notAfter)
		if !ok {
			e, ok = r.shards[id].Get(k, member)
		}
		if ok && (v == nil || v.Local(id)) {
			newest = max(newest, e.Stamp)
		}
	}
	r.uncacheOwner(k, member, notAfter)
	return newest
}

// GetLocal returns the newest copy of a member, not older than cut, in
// local shards.
func (r *Router) GetLocal(ids []shard.ID, k shard.Key, member string, cut int64) (Copy, bool) {
	var best Copy
	found := false
	for _, id := range ids {
		if e, ok := r.shards[id].Get(k, member); ok && e.Stamp >= cut && (!found || e.Stamp > best.Stamp) {
			best, found = Copy{Shard: id, Score: e.Score, Stamp: e.Stamp}, true
		}
	}
	return best, found
}

// SearchLocal answers one local shard's part of a search; with nearest,
// its n nearest hits and whether it stopped early (as shard.Nearest).
// With since > 0 it names too, after the read, the members whose copy q
// matched the shard lost to handoffs since then (departures.go).
func (r *Router) SearchLocal(id shard.ID, k shard.Key, q *geo.Search, cut int64, n int, nearest bool,
	since int64) (hits []shard.Hit, complete bool, departed []string) {
	r.stats.Shards[id].Searches.Add(1)
	r.wait(id)
	if nearest {
		hits, complete = r.shards[id].Nearest(k, q, cut, n, nil)
	} else {
		hits = r.shards[id].Search(k, q, cut, n, nil)
	}
	return hits, complete, r.departedNames(nil, id, k, cut, since, searchTakes(q))
}

// ScanLocal is one node's part of a range: up to want copies per local
// shard (all when want <= 0), and whether some shard had more. With
// since > 0 it names too, after the read, the members whose copy in the
// range the shards lost to handoffs since then (departures.go).
func (r *Router) ScanLocal(ids []shard.ID, k shard.Key, min, max Bound, rev bool, cut int64, want int,
	since int64) (es []shard.Entry, truncated bool, departed []string) {
	if want <= 0 {
		want = math.MaxInt
	}
	es, truncated = r.scanLocal(ids, k, min, max, rev, cut, want)
	if since > 0 {
		for _, id := range ids {
			departed = r.departedNames(departed, id, k, cut, since, rangeTakes(min, max))
		}
	}
	return es, truncated, departed
}

// CacheOwner records where another node placed a member's current copy,
// drops the older copies this node holds elsewhere and returns the stamp
// of a newer one (dropOlder).
func (r *Router) CacheOwner(k shard.Key, member string, c Copy) int64 {
	r.cacheOwner(k, member, c.slot())
	return r.dropOlder(k, member, c.slot())
}

// dropOlder deletes this node's copies of a member older than s in shards
// other than s's, on hearing that a handoff put the member there. Each
// handoff deletes the one old copy it read; two nodes moving a member at
// once each wrote a shard of their own and deleted that copy, leaving the
// older of their new copies in searches near it until the position TTL
// (TestClusterTwoMovers). Every node hears of every handoff, so the notice
// reaches every holder of such a copy. It returns the stamp of the newest
// copy newer than s in those other shards (0: none): the handoff that
// sent the notice then deletes its own, which came too late for that
// newer one's notice to drop it.
func (r *Router) dropOlder(k shard.Key, member string, s slot) (newer int64) {
	for i, sh := range r.shards {
		id := shard.ID(i)
		if id == s.shard {
			continue
		}
		switch e, ok := sh.Get(k, member); {
		case !ok:
		case e.Stamp < s.stamp:
			r.tombstone([]shard.ID{id}, k, member, s.stamp-1)
			sh.Delete(k, member, s.stamp-1)
		case e.Stamp > s.stamp:
			newer = max(newer, e.Stamp)
		}
	}
	return newer
}

// ShardCount is how many shards the region map has.
func (r *Router) ShardCount() int { return len(r.shards) }
