package router

// A replica's fill: the node that becomes a shard's replica copies the
// primary's shard while live writes already reach it. A copy never
// replaces a newer live write (PutNewer), and a delete that arrives
// during the fill is remembered, so the copy does not bring back a
// member the delete removed (a handoff's delete of the old copy, ZREM);
// whole-key changes are logged for the same reason (replica_keys.go).

import (
	"math"
	"sync"

	"geoshard/shard"
)

// KeyEntries is one key's copies in one shard.
type KeyEntries struct {
	Key     shard.Key
	Entries []shard.Entry
}

// fill is a shard being filled here: the deletes seen meanwhile.
type fill struct {
	begun int64 // stamp when the fill began
	mu    sync.Mutex
	dels  map[memberRef]int64 // newest notAfter per member
}

// DumpLocal returns every copy a local shard holds, key by key: what a
// new replica of the shard fills itself from.
func (r *Router) DumpLocal(id shard.ID) []KeyEntries {
	s := r.shards[id]
	var out []KeyEntries
	for _, k := range s.Keys() {
		ke := KeyEntries{Key: k}
		s.Ascend(k, math.Inf(-1), 0, func(e shard.Entry) bool {
			ke.Entries = append(ke.Entries, e)
			return true
		})
		if len(ke.Entries) > 0 {
			out = append(out, ke)
		}
	}
	return out
}

// BeginFill starts remembering the deletes that reach shard id; call it
// before the first live write of the shard can arrive.
func (r *Router) BeginFill(id shard.ID) {
	r.remote.fills.Store(id, &fill{begun: r.stamp(), dels: map[memberRef]int64{}})
}

// EndFill stops remembering deletes for shard id.
func (r *Router) EndFill(id shard.ID) { r.remote.fills.Delete(id) }

// FillLocal merges a primary's copies into local shard id: each is kept
// unless a newer copy or a delete covering it arrived meanwhile; one a
// RENAME since moved goes under the new name. It returns how many were
// stored. Each copy is checked and stored under the fill's lock, so a
// delete is either seen by the check or comes after the store and
// removes the copy; stored copies enter the owner cache, as live writes
// do, so KEYS and FLUSHALL on this node see their keys.
func (r *Router) FillLocal(id shard.ID, k shard.Key, es []shard.Entry) int {
	f, _ := r.remote.fills.Load(id)
	fl, _ := f.(*fill)
	log := &r.remote.keyLog
	n := 0
	for _, e := range es {
		log.mu.RLock()
		if r.fillOne(fl, id, k, e) {
			n++
		}
		log.mu.RUnlock()
	}
	return n
}

// fillOne stores one copied entry unless it is gone; the caller holds the
// key log's read lock. The owner cache is told after the fill's lock is
// released: a stripe lock is never taken under it.
func (r *Router) fillOne(fl *fill, id shard.ID, k shard.Key, e shard.Entry) bool {
	now, ok := r.keyAfter(k, e.Stamp)
	if !ok || !r.putFilled(fl, id, k, now, e) {
		return false
	}
	r.cacheOwner(now, e.Member, slot{shard: id, score: e.Score, stamp: e.Stamp})
	return true
}

// putFilled stores e under key now unless a delete of the member of key
// k, the key it was copied under, covers it.
func (r *Router) putFilled(fl *fill, id shard.ID, k, now shard.Key, e shard.Entry) bool {
	if fl != nil {
		fl.mu.Lock()
		defer fl.mu.Unlock()
		if gone, ok := fl.dels[memberRef{k, e.Member}]; ok && gone >= e.Stamp {
			return false
		}
	}
	return r.shards[id].PutNewer(now, e)
}

// tombstone notes a delete of a member's copies up to notAfter in the
// shards ids, for those of them being filled.
func (r *Router) tombstone(ids []shard.ID, k shard.Key, member string, notAfter int64) {
	for _, id := range ids {
		f, ok := r.remote.fills.Load(id)
		if !ok {
			continue
		}
		fl := f.(*fill)
		fl.mu.Lock()
		ref := memberRef{k, member}
		fl.dels[ref] = max(fl.dels[ref], notAfter)
		fl.mu.Unlock()
	}
}

// DropOwnerNotices makes this node lose every owner notice it would send
// after a handoff, as a node unreachable at that moment does. For tests.
func (r *Router) DropOwnerNotices(drop bool) { r.remote.dropNotices.Store(drop) }
