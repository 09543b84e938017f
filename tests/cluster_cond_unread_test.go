package tests

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterFlaggedWriteUnreadCopy: GEOADD or ZADD with NX, XX, GT or LT
// judges the member's copy. When the only node that holds it does not
// answer (no replicas, node SIGSTOPped), such a write went on as if the
// member were absent: XX CH answered 0 for a member that exists (NX, GT
// and LT judged against nothing too). It must answer -TRYAGAIN and write
// nothing, as an increment already did (Router.lookUp).
func TestClusterFlaggedWriteUnreadCopy(t *testing.T) {
	tc := startCluster(t, 3, "--regions", clusterMap(t), "--cluster-lease-ttl", "40", "--cluster-replicas", "0")
	owners := assignmentOwners(t, tc)
	// The member starts in a cell c holds; the writes move it to one it
	// does not.
	var from, to [2]float64
	var onC, offC bool
	for i := range 3 {
		for j := range 3 {
			center := [2]float64{4.775 + 0.15*float64(i), 52.285 + 0.07*float64(j)}
			switch owner := owners[fmt.Sprintf("ams-%d-%d", i, j)]; {
			case owner == "c" && !onC:
				from, onC = center, true
			case owner != "c" && !offC:
				to, offC = center, true
			}
		}
	}
	if !onC || !offC {
		t.Fatalf("shard owners %v: want a cell on c and one elsewhere", owners)
	}
	a := tc.nodes["a"].c
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := a.GeoAdd(ctx, "k", &redis.GeoLocation{Name: "m", Longitude: from[0], Latitude: from[1]}).Err(); err != nil {
		t.Fatal(err)
	}
	// Through b, which has no cached copy of m: the writes read every node.
	b := tc.nodes["b"].c
	resume := hungPeer(t, tc.nodes["c"])
	for _, args := range [][]any{
		{"GEOADD", "k", "NX", to[0], to[1], "m"},
		{"GEOADD", "k", "XX", "CH", to[0], to[1], "m"},
		{"GEOADD", "k", "NX", to[0], to[1], "m"}, // once health checks found c hung
	} {
		v, err := b.Do(ctx, args...).Result()
		if err == nil || !strings.HasPrefix(err.Error(), "TRYAGAIN") {
			t.Errorf("%v through b while c, which holds m, is stopped = %v %v, want -TRYAGAIN", args, v, err)
		}
	}
	resume()
	n, err := a.ZCard(ctx, "k").Result()
	for deadline := time.Now().Add(20 * time.Second); err != nil && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		n, err = a.ZCard(ctx, "k").Result()
	}
	pos, perr := a.GeoPos(ctx, "k", "m").Result()
	if err != nil || n != 1 || perr != nil || len(pos) != 1 || pos[0] == nil ||
		math.Abs(pos[0].Longitude-from[0]) > 1e-4 || math.Abs(pos[0].Latitude-from[1]) > 1e-4 {
		t.Errorf("after c resumed: ZCARD k = %d (%v), GEOPOS k m = %v (%v); want 1 member, still at %v", n, err, posString(pos), perr, from)
	}
}

func posString(pos []*redis.GeoPos) string {
	var out []string
	for _, p := range pos {
		if p == nil {
			out = append(out, "nil")
			continue
		}
		out = append(out, fmt.Sprintf("(%.6f %.6f)", p.Longitude, p.Latitude))
	}
	return strings.Join(out, " ")
}
