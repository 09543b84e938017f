package router

// A replica's fill: the node that becomes a shard's replica copies the
// primary's shard while live writes already reach it. A copy never
// replaces a newer live write (PutNewer), and a delete that arrives
// during the fill is remembered, so the copy does not bring back a
// member the delete removed (a handoff's delete of the old copy, ZREM).

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
	mu   sync.Mutex
	dels map[memberRef]int64 // newest notAfter per member
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
	r.remote.fills.Store(id, &fill{dels: map[memberRef]int64{}})
}

// EndFill stops remembering deletes for shard id.
func (r *Router) EndFill(id shard.ID) { r.remote.fills.Delete(id) }

// FillLocal merges a primary's copies into local shard id: each is kept
// unless a newer copy or a delete covering it arrived meanwhile. It
// returns how many were stored.
func (r *Router) FillLocal(id shard.ID, k shard.Key, es []shard.Entry) int {
	f, _ := r.remote.fills.Load(id)
	fl, _ := f.(*fill)
	n := 0
	for _, e := range es {
		if fl != nil {
			fl.mu.Lock()
			gone, ok := fl.dels[memberRef{k, e.Member}]
			fl.mu.Unlock()
			if ok && gone >= e.Stamp {
				continue
			}
		}
		if r.shards[id].PutNewer(k, e) {
			n++
		}
	}
	return n
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
