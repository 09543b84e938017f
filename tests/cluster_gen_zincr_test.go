package tests

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"geoshard/geo"
)

// TestClusterZincrbyAcrossShards increments a member's score so that its
// position moves into each shard of clusterMap, through each node, and
// compares every reply with Redis's. TestClusterGenerated found it (seed
// 500): one client's ZINCRBY geo:b 115215833234 m145 through node b
// answered "-TRYAGAIN shard catchall could not be written (member's copy
// changed since this node cached it); position not stored", Redis the
// sum. The sum's conditional write to a shard of this node asked for a
// copy stamped 0 when the member came from another shard (a condition
// meant as none), so no such increment through the node holding the
// destination ever succeeded; through other nodes it went out as a
// plain put.
func TestClusterZincrbyAcrossShards(t *testing.T) {
	ref := dialRaw(t, startRedis(t))
	tc := startCluster(t, 3, "--regions", clusterMap(t))
	tableStill(t, tc, 2*time.Second, 60*time.Second) // a write during a move may be refused
	// The centre of cell (0, 0), of every cell and of a point outside the
	// grid (the catch-all).
	from := geo.Encode(4.775, 52.285)
	var to []float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			to = append(to, geo.Encode(4.775+0.15*float64(i), 52.285+0.07*float64(j)))
		}
	}
	to = append(to, geo.Encode(13.4, 52.5))
	n := 0
	for _, id := range []string{"a", "b", "c"} {
		node := dialRaw(t, tc.nodes[id].proc)
		for _, target := range to {
			m := fmt.Sprintf("m%d", n)
			n++
			by := strconv.FormatFloat(target-from, 'f', -1, 64)
			for _, args := range [][]string{
				{"ZADD", "k", strconv.FormatFloat(from, 'f', -1, 64), m},
				{"ZINCRBY", "k", by, m},
				{"ZSCORE", "k", m},
				{"GEOPOS", "k", m},
			} {
				want, got := ref.mustDo(t, args...), node.mustDo(t, args...)
				if string(want) != string(got) {
					t.Errorf("%s through %s: %s, redis %s", quoteCommand(args), id, quoteReply(got, 300), quoteReply(want, 300))
				}
			}
		}
	}
	for _, args := range [][]string{{"ZRANGE", "k", "0", "-1", "WITHSCORES"}, {"ZCARD", "k"}} {
		want := ref.mustDo(t, args...)
		for _, id := range []string{"a", "b", "c"} {
			if got := dialRaw(t, tc.nodes[id].proc).mustDo(t, args...); string(got) != string(want) {
				t.Errorf("%s through %s: %s, redis %s", quoteCommand(args), id, quoteReply(got, 300), quoteReply(want, 300))
			}
		}
	}
}
