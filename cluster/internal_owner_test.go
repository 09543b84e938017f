package cluster

import (
	"fmt"
	"math"
	"testing"
	"time"

	"geoshard/cluster/etcdtest"
	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// TestInternalOwnerBadCopy: a peer's OWNER notice of a NaN score is
// refused. Cached, it stood for the member's copy here: ZADD GT of a
// higher score through this node answered unchanged and stored nothing
// (a score is never above NaN).
func TestInternalOwnerBadCopy(t *testing.T) {
	etcd := etcdtest.Start(t)
	nodes := startNodes(t, etcd.Endpoint, "a", "b")
	tb := settled(t, nodes, "a", "b")
	a := nodes["a"]
	k := shard.Key{Name: "k"}
	s := geo.Encode(4.9, 52.37)
	if _, _, err := a.r.TryAdd(k, "m", s, router.AddFlags{}); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixNano()
	for _, c := range []struct {
		score string
		stamp int64
	}{{"nan", now}, {"nan", math.MaxInt64}} {
		w := &wordReplier{}
		a.ServeInternal(busWords(fmt.Sprintf("GEOSHARD OWNER pw %d 0 k m 0 %s %d", tb.Version, c.score, c.stamp)), w)
		if w.err == "" {
			t.Errorf("OWNER of score %s stamp %d accepted", c.score, c.stamp)
		}
		s++
		added, changed, err := a.r.TryAdd(k, "m", s, router.AddFlags{GT: true})
		if err != nil || added || !changed {
			t.Errorf("after OWNER %s %d: ZADD GT of a higher score: added %v changed %v (%v), want changed", c.score, c.stamp, added, changed, err)
		}
		for _, n := range []string{"a", "b"} {
			if got, ok := nodes[n].r.Score(k, "m"); !ok || got != s {
				t.Errorf("after OWNER %s %d: ZSCORE m through %s = %v (found %v), want %v", c.score, c.stamp, n, got, ok, s)
			}
		}
	}
}
