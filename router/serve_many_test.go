package router

import (
	"testing"

	"geoshard/geo"
	"geoshard/shard"
)

// cached returns a member's slot in the owner cache.
func cached(r *Router, k shard.Key, member string) (slot, bool) {
	g, st := r.lockMember(k, member, false)
	if g == nil {
		return slot{}, false
	}
	defer st.mu.Unlock()
	return st.owner.get(member)
}

// TestPutLocalMany: a batch leaves the shards, the owner cache, the write
// counts and the clock as PutLocal one copy at a time does: copies
// overwrite, and the cache keeps the newest stamp it has seen.
func TestPutLocalMany(t *testing.T) {
	k := shard.Key{Name: "drivers"}
	score := geo.Encode(4.9, 52.37)
	before := []struct {
		id shard.ID
		e  shard.Entry
	}{
		{1, shard.NewEntry("newer", score, 900)}, // cached newer than the batch's copy
		{2, shard.NewEntry("older", score, 10)},  // cached older
	}
	ids := []shard.ID{0, 1, 2, 0, 2}
	es := []shard.Entry{
		shard.NewEntry("new1", score, 100),
		shard.NewEntry("newer", score+1, 200),
		shard.NewEntry("older", score+2, 300),
		shard.NewEntry("new2", score+3, 400),
		shard.NewEntry("new3", score+4, 500),
	}
	one, many := New(Config{}), New(Config{})
	for _, r := range []*Router{one, many} {
		for _, b := range before {
			r.PutLocal(b.id, k, b.e)
		}
	}
	for i, e := range es {
		one.PutLocal(ids[i], k, e)
	}
	many.PutLocalMany(ids, k, es)
	for _, m := range []string{"new1", "newer", "older", "new2", "new3"} {
		s1, ok1 := cached(one, k, m)
		s2, ok2 := cached(many, k, m)
		if s1 != s2 || ok1 != ok2 || !ok1 {
			t.Errorf("%s cached as %+v (%v) by PutLocalMany, %+v (%v) by PutLocal", m, s2, ok2, s1, ok1)
		}
		for id := range shard.ID(3) {
			e1, ok1 := one.shards[id].Get(k, m)
			e2, ok2 := many.shards[id].Get(k, m)
			if e1 != e2 || ok1 != ok2 {
				t.Errorf("%s in shard %d: %+v (%v) by PutLocalMany, %+v (%v) by PutLocal", m, id, e2, ok2, e1, ok1)
			}
		}
	}
	if s, _ := cached(many, k, "newer"); s.stamp != 900 {
		t.Errorf("the cache took an older stamp: %+v", s)
	}
	for id := range shard.ID(3) {
		if w1, w2 := one.stats.Shards[id].Writes.Load(), many.stats.Shards[id].Writes.Load(); w1 != w2 {
			t.Errorf("shard %d counts %d writes by PutLocalMany, %d by PutLocal", id, w2, w1)
		}
	}
	if l1, l2 := one.lastStamp.Load(), many.lastStamp.Load(); l1 != l2 || l2 < 900 {
		t.Errorf("clock after PutLocalMany %d, after PutLocal %d", l2, l1)
	}
	many.PutLocalMany(nil, k, nil) // nothing to store
}

// TestCacheOwnerDroppedKey: a batch whose key is dropped while it is
// stored (DEL, FLUSHALL, the reclaim of an empty key) caches the rest of
// its copies under the key's new view, not the dropped one.
func TestCacheOwnerDroppedKey(t *testing.T) {
	r := New(Config{})
	k := shard.Key{Name: "drivers"}
	g := r.key(k, true)
	r.mu.Lock()
	r.forget(k, g)
	r.mu.Unlock()
	s := slot{shard: 1, score: 5, stamp: 7}
	now := r.cacheOwnerHash(g, k, "m", shard.Hash("m"), s)
	if now == g || now != r.key(k, false) {
		t.Fatalf("cached under %p, want the key's view in force %p (dropped: %p)", now, r.key(k, false), g)
	}
	if got, ok := cached(r, k, "m"); !ok || got != s {
		t.Errorf("m cached as %+v (%v), want %+v", got, ok, s)
	}
	if n := now.entries.Load(); n != 1 {
		t.Errorf("the new view counts %d entries, want 1", n)
	}
}
