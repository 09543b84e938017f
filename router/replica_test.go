package router

import (
	"testing"

	"geoshard/shard"
)

// TestFillLocal: a replica's fill keeps live writes and deletes that
// reached the replica before the copy did.
func TestFillLocal(t *testing.T) {
	r := New(Config{Regions: shard.GridMap(0, 0, 10, 10, 2, 2, 0)})
	k := shard.Key{Name: "drivers"}
	id := shard.ID(0)
	at := func(member string, stamp int64) shard.Entry { return shard.NewEntry(member, 1e15, stamp) }
	r.BeginFill(id)
	r.PutLocal(id, k, at("newer-here", 200))      // a live write, newer than the copy
	r.PutLocal(id, k, at("older-here", 100))      // a live write the copy supersedes
	r.DelLocal([]shard.ID{id}, k, "deleted", 150) // a delete the copy predates
	copied := []shard.Entry{at("newer-here", 150), at("older-here", 180), at("deleted", 120),
		at("deleted-later", 170), at("plain", 50)}
	r.DelLocal([]shard.ID{id}, k, "deleted-later", 160) // older than the copy's: the copy stays
	stored := r.FillLocal(id, k, copied)
	r.EndFill(id)
	tests := []struct {
		member string
		stamp  int64 // 0: absent
	}{
		{"newer-here", 200}, {"older-here", 180}, {"deleted", 0}, {"deleted-later", 170}, {"plain", 50},
	}
	for _, tt := range tests {
		e, ok := r.shards[id].Get(k, tt.member)
		if (tt.stamp == 0) == ok || ok && e.Stamp != tt.stamp {
			t.Errorf("%s: %v, %v; want stamp %d", tt.member, e.Stamp, ok, tt.stamp)
		}
	}
	if stored != 3 {
		t.Errorf("stored %d copies, want 3", stored)
	}
	// After the fill, deletes are no longer remembered.
	r.DelLocal([]shard.ID{id}, k, "late", 500)
	if n := r.FillLocal(id, k, []shard.Entry{at("late", 400)}); n != 1 {
		t.Errorf("after EndFill: stored %d, want 1", n)
	}
	if got := r.DumpLocal(id); len(got) != 1 || len(got[0].Entries) != 5 {
		t.Errorf("DumpLocal: %+v", got)
	}
}
