package tests

import (
	"context"
	"fmt"
	"testing"
	"time"

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
