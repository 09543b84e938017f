package tests

import (
	"context"
	"fmt"
	"testing"
	"time"

	"geoshard/shard"

	"github.com/redis/go-redis/v9"
)

// TestClusterTwoFirstWrites: two plain GEOADDs of a member no node holds,
// through two nodes at once, one to Amsterdam and one to Sydney. Each
// asks every node for a copy, finds none (the other's is not stored
// yet) and stores its own, so the member was in both cities: a search
// near the older copy found it there for good (no position TTL by
// default; its next pings update the newer copy in place): 2 of 300
// pairs in session 12. A first write now tells every node of its copy
// once stored, and the older copy goes (router/fresh.go); the member may
// be in both places for that moment, as in a handoff, so the check waits
// up to 2 s for one place.
func TestClusterTwoFirstWrites(t *testing.T) {
	tc := startCluster(t, 3, "--fanout-timeout", "5000")
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	a, b := tc.nodes["a"].c, tc.nodes["b"].c
	places := [][2]float64{{4.9, 52.37}, {151.2, -33.86}}
	const rounds = 600
	wrong := 0
	for i := range rounds {
		m := fmt.Sprint("first:", i)
		write := func(side int, cl *redis.Client) func() {
			return func() {
				if err := cl.GeoAdd(ctx, "k", &redis.GeoLocation{Name: m, Longitude: places[side][0], Latitude: places[side][1]}).Err(); err != nil {
					t.Error(err)
				}
			}
		}
		atOnceStep(i, 50*time.Microsecond, write(0, a), write(1, b)) // cluster_remove_race_test.go
		var found []string
		for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			found = found[:0]
			for _, id := range []string{"a", "b", "c"} {
				if in := timesFound(ctx, t, tc.nodes[id].c, m, places); in != 1 { // cluster_two_movers_test.go
					found = append(found, fmt.Sprintf("through %s %d times", id, in))
				}
			}
			if len(found) == 0 || time.Now().After(deadline) {
				break
			}
		}
		if len(found) > 0 {
			if wrong++; wrong <= 5 {
				t.Errorf("%s: searches near %v found it %v 2 s after both writes, want once", m, places, found)
			}
		}
		if err := tc.nodes["c"].c.ZRem(ctx, "k", m).Err(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d of %d pairs of first writes left the member in more or fewer places than one", wrong, rounds)
}

// TestClusterRepeatedFirstWrite: GEOADD k X m Y m of a member no node
// holds, X and Y in regions of two nodes, through a third that asked for
// m just before (GEOPOS), so the copy at X is a first write every node
// hears of (router/fresh.go). The second position is a handoff from X
// that must find the copy there; the notice, answered by Y's node with
// the newer copy, deleted X's first, and the GEOADD answered 2 where
// Redis answers 1: 11 of 300 here, and TestClusterGenerated in 3 of 3
// runs.
func TestClusterRepeatedFirstWrite(t *testing.T) {
	tc := startCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	ownerAt := regionOwner(t, tc)
	var x, y [2]float64
	via := ""
	for _, p := range cities {
		for _, q := range cities {
			for _, id := range []string{"a", "b", "c"} {
				if via == "" && ownerAt(p) != ownerAt(q) && id != ownerAt(p) {
					x, y, via = p, q, id
				}
			}
		}
	}
	if via == "" {
		t.Fatalf("no two of %v are owned by two nodes", cities)
	}
	c := tc.nodes[via].c
	const rounds = 300
	wrong := 0
	for i := range rounds {
		m := fmt.Sprint("again:", i)
		if err := c.GeoPos(ctx, "k", m).Err(); err != nil {
			t.Fatal(err)
		}
		n, err := c.GeoAdd(ctx, "k", &redis.GeoLocation{Name: m, Longitude: x[0], Latitude: x[1]},
			&redis.GeoLocation{Name: m, Longitude: y[0], Latitude: y[1]}).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			if wrong++; wrong <= 5 {
				t.Errorf("GEOADD k %v %s %v %s through %s answered %d, Redis 1", x, m, y, m, via, n)
			}
		}
	}
	t.Logf("%d of %d answered other than 1 (through %s, from %s's region to %s's)", wrong, rounds, via, ownerAt(x), ownerAt(y))
}

// TestClusterFirstWriteGivesWay: a member no node holds is asked for
// through one node (GEOPOS), written at x through the owner of x's
// region, then written at y, in another node's region, through a node
// that has not seen it. Redis answers the second GEOADD 0. The first
// write's notice (router/fresh.go) reached y's node after the second
// write had stored its copy there, was answered with that newer copy,
// and the first writer deleted its own copy at x; when that delete came
// before the second write's look-up at x, the second write found the
// member nowhere and answered 1: 17 and 26 of 400 (router/giveway.go).
func TestClusterFirstWriteGivesWay(t *testing.T) {
	tc := startCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	ownerAt := regionOwner(t, tc)
	var x, y [2]float64
	for _, p := range cities {
		for _, q := range cities {
			if ownerAt(p) != ownerAt(q) {
				x, y = p, q
			}
		}
	}
	if ownerAt(x) == ownerAt(y) {
		t.Fatalf("no two of %v are owned by two nodes", cities)
	}
	first := ownerAt(x)
	const rounds = 200
	for _, second := range []string{"a", "b", "c"} {
		if second == first {
			continue
		}
		ask := "abc"[3-int(first[0]-'a')-int(second[0]-'a')] // the third node
		wrong := 0
		for i := range rounds {
			m := fmt.Sprint("giveway:", second, i)
			if err := tc.nodes[string(ask)].c.GeoPos(ctx, "k", m).Err(); err != nil {
				t.Fatal(err)
			}
			if err := tc.nodes[first].c.GeoAdd(ctx, "k", &redis.GeoLocation{Name: m, Longitude: x[0], Latitude: x[1]}).Err(); err != nil {
				t.Fatal(err)
			}
			n, err := tc.nodes[second].c.GeoAdd(ctx, "k", &redis.GeoLocation{Name: m, Longitude: y[0], Latitude: y[1]}).Result()
			if err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				if wrong++; wrong <= 3 {
					t.Errorf("GEOADD k %v %s through %s after GEOADD k %v %s through %s answered %d, Redis 0",
						y, m, second, x, m, first, n)
				}
			}
		}
		t.Logf("asked through %s, written through %s then %s: %d of %d second writes answered other than 0",
			string(ask), first, second, wrong, rounds)
	}
}

// cities are points in regions of the default map; some two of them have
// different owners in a 3-node cluster.
var cities = [][2]float64{{4.9, 52.37}, {151.2, -33.86}, {139.7, 35.7}, {-74, 40.7}, {-46.6, -23.5}, {36.8, -1.3}}

// regionOwner returns which node owns a point's region of the default map.
func regionOwner(t *testing.T, tc *testCluster) func(p [2]float64) string {
	owners := assignmentOwners(t, tc)
	regions := shard.DefaultMap()
	return func(p [2]float64) string { return owners[regions.Name(regions.Locate(p[0], p[1]))] }
}
