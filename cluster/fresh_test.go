package cluster

import (
	"strings"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// TestInternalFresh: a peer's FRESH drops this node's older copies of the
// member in other shards and answers the stamp of a newer one; a
// malformed or unchecked one is refused and drops nothing.
func TestInternalFresh(t *testing.T) {
	r := router.New(router.Config{})
	tb := testTable(r.ShardCount())
	k := shard.Key{Name: "k"}
	s := geo.Encode(4.9, 52.37)
	now := time.Now().UnixNano()
	fresh := func(members []string, cs []router.Copy, found []bool, extra ...string) *wordReplier {
		args := [][]byte{[]byte("0"), []byte("k"), appendMembersWire(nil, members), appendCopiesWire(nil, cs, found)}
		for _, e := range extra {
			args = append(args, []byte(e))
		}
		w := &wordReplier{}
		serveInternal(r, "geoshard.fresh", tb, &parser{args: args}, w)
		return w
	}
	held := func(m string) (int64, bool) {
		c, ok := r.GetLocal([]shard.ID{1}, k, m, 0)
		return c.Stamp, ok
	}
	r.PutLocal(1, k, shard.NewEntry("older", s, now-10))
	r.PutLocal(1, k, shard.NewEntry("newer", s, now+10))
	r.PutLocal(1, k, shard.NewEntry("kept", s, now-10))
	if w := fresh([]string{"older"}, []router.Copy{{Shard: 0, Score: s, Stamp: now}}, []bool{true}); w.err != "" || w.n != 0 {
		t.Errorf("FRESH of a newer first write: %+v, want 0", w)
	}
	if _, ok := held("older"); ok {
		t.Error("the older copy in shard 1 is still there after FRESH of a newer one in shard 0")
	}
	if w := fresh([]string{"newer"}, []router.Copy{{Shard: 0, Score: s, Stamp: now}}, []bool{true}); w.err != "" || w.n != now+10 {
		t.Errorf("FRESH of an older first write: %+v, want the newer copy's stamp %d", w, now+10)
	}
	if stamp, ok := held("newer"); !ok || stamp != now+10 {
		t.Errorf("the newer copy in shard 1: stamp %d (held %v), want %d", stamp, ok, now+10)
	}
	two := []string{"kept", "kept"}
	for _, c := range []struct {
		name  string
		cs    []router.Copy
		found []bool
		extra []string
		want  string
	}{
		{"a shard the map does not have", []router.Copy{{Shard: 0, Stamp: now}, {Shard: shard.ID(r.ShardCount()), Stamp: now}}, []bool{true, true}, nil, "bad shard"},
		{"a stamp two days ahead", []router.Copy{{Shard: 0, Stamp: now}, {Shard: 0, Stamp: now + int64(48*time.Hour)}}, []bool{true, true}, nil, "ahead"},
		{"one copy for two members", []router.Copy{{Shard: 0, Stamp: now}}, []bool{true}, nil, "malformed"},
		{"a member without its copy", []router.Copy{{Shard: 0, Stamp: now}, {}}, []bool{true, false}, nil, "without its copy"},
		{"a word after the copies", []router.Copy{{Shard: 0, Stamp: now}, {Shard: 0, Stamp: now}}, []bool{true, true}, []string{"x"}, "after the copies"},
	} {
		if w := fresh(two, c.cs, c.found, c.extra...); !strings.Contains(w.err, c.want) {
			t.Errorf("FRESH with %s answered %+v, want an error saying %q", c.name, w, c.want)
		}
		if _, ok := held("kept"); !ok {
			t.Fatalf("FRESH with %s dropped the copy in shard 1", c.name)
		}
	}
}
