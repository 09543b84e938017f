package cluster

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"geoshard/cluster/etcdtest"
	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// TestInternalPutFarStamp: a peer's PUT or PUTMANY of a copy stamped far
// ahead of this node's clock (a peer's broken clock or a bug) is refused.
// Stored at math.MaxInt64, the member could never be written again: the
// next stamp wrapped, every later write of it was dropped, and the
// writer still answered it stored.
func TestInternalPutFarStamp(t *testing.T) {
	etcd := etcdtest.Start(t)
	nodes := startNodes(t, etcd.Endpoint, "a", "b")
	tb := settled(t, nodes, "a", "b")
	a := nodes["a"]
	var id shard.ID
	for i := range tb.Owner {
		if tb.Owner[i] == "a" {
			id = shard.ID(i)
		}
	}
	soon := time.Now().Add(time.Minute).UnixNano() // a skewed but working clock
	for _, c := range []struct {
		member string
		stamp  int64
		ok     bool
	}{{"far", math.MaxInt64, false}, {"far", time.Now().Add(48 * time.Hour).UnixNano(), false}, {"near", soon, true}} {
		w := &wordReplier{}
		a.ServeInternal(busWords(fmt.Sprintf("GEOSHARD PUT pw %d %d 0 k %s 1 %d", tb.Version, id, c.member, c.stamp)), w)
		if got := w.err == ""; got != c.ok {
			t.Errorf("PUT of %s stamped %d answered %q, want accepted %v", c.member, c.stamp, w.err, c.ok)
		}
		word := appendPutsWire(nil, []shard.ID{id}, []shard.Entry{shard.NewEntry(c.member, 1, c.stamp)})
		w = &wordReplier{}
		a.ServeInternal([][]byte{[]byte("GEOSHARD"), []byte("PUTMANY"), []byte("pw"), []byte(itoa(tb.Version)),
			[]byte("0"), []byte("k"), word}, w)
		if got := w.err == ""; got != c.ok || !c.ok && !strings.Contains(w.err, "ahead") {
			t.Errorf("PUTMANY of %s stamped %d answered %q, want accepted %v", c.member, c.stamp, w.err, c.ok)
		}
	}
	k := shard.Key{Name: "k"}
	for i := range 2 {
		s := geo.Encode(4.9, 52.37) + float64(i)
		if _, _, err := a.r.TryAdd(k, "far", s, router.AddFlags{}); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		for _, n := range []string{"a", "b"} {
			if got, ok := nodes[n].r.Score(k, "far"); !ok || got != s {
				t.Errorf("write %d: ZSCORE far through %s = %v (found %v), want %v", i, n, got, ok, s)
			}
		}
	}
}
