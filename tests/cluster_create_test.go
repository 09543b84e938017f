package tests

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"geoshard/geo"
)

// TestClusterCreateThroughTwoNodes: a conditional write of a member no
// node holds creates it, and two of them sent at once through two nodes,
// at positions in two shards, end as in one Redis: of two GEOADD NX, one
// answers 1 and its position stays, the other answers 0; of two ZINCRBY,
// the member holds their sum. Before create.go each node found the member
// absent and stored it in its own shard: both NX answered 1, and only the
// newer increment stayed.
func TestClusterCreateThroughTwoNodes(t *testing.T) {
	tc := startCluster(t, 3, "--fanout-timeout", "5000")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	a, b, c := tc.nodes["a"].c, tc.nodes["b"].c, tc.nodes["c"].c
	const members = 100
	// Amsterdam (europe) through a, Sydney (oceania) through b.
	places := [2][2]float64{{4.9, 52.37}, {151.2, -33.86}}
	sydney := geo.Encode(places[1][0], places[1][1])
	tryAgain := func(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "TRYAGAIN") }
	both := func(i int, f func(side int, cl *redis.Client) error) {
		var wg sync.WaitGroup
		start := make(chan struct{})
		for side, cl := range []*redis.Client{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if err := f(side, cl); err != nil {
					t.Errorf("member %d, through %s: %v", i, "ab"[side:side+1], err)
				}
			}()
		}
		close(start)
		wg.Wait()
	}

	nxWins, refused := 0, 0
	for i := range members {
		m := fmt.Sprint("n:", i)
		var got [2]int64
		var errs [2]error
		both(i, func(side int, cl *redis.Client) error {
			got[side], errs[side] = cl.Do(ctx, "GEOADD", "nx", "NX", places[side][0], places[side][1], m).Int64()
			if errs[side] != nil && !tryAgain(errs[side]) {
				return errs[side]
			}
			return nil
		})
		if tryAgain(errs[0]) || tryAgain(errs[1]) {
			refused++
			continue // either may have been stored
		}
		if got[0]+got[1] != 1 {
			if nxWins++; nxWins <= 5 {
				t.Errorf("GEOADD nx NX %s through a and b at once answered %d and %d, want one 1 and one 0", m, got[0], got[1])
			}
			continue
		}
		want := places[0]
		if got[1] == 1 {
			want = places[1]
		}
		pos, err := c.GeoPos(ctx, "nx", m).Result()
		if err != nil || len(pos) != 1 || pos[0] == nil ||
			math.Abs(pos[0].Longitude-want[0]) > 1e-4 || math.Abs(pos[0].Latitude-want[1]) > 1e-4 {
			t.Errorf("GEOPOS nx %s through c = %v (%v), want the winner's %v", m, posString(pos), err, want)
		}
	}
	if nxWins > 0 {
		t.Errorf("%d of %d GEOADD NX pairs were both (or neither) stored", nxWins, members)
	}

	lost := 0
	for i := range members {
		m := fmt.Sprint("i:", i)
		var errs [2]error
		both(i, func(side int, cl *redis.Client) error {
			by := []float64{1, sydney}[side]
			errs[side] = cl.ZIncrBy(ctx, "inc", by, m).Err()
			if errs[side] != nil && !tryAgain(errs[side]) {
				return errs[side]
			}
			return nil
		})
		if tryAgain(errs[0]) || tryAgain(errs[1]) {
			refused++
			continue
		}
		if got, err := c.ZScore(ctx, "inc", m).Result(); err != nil || got != sydney+1 {
			if lost++; lost <= 5 {
				t.Errorf("ZSCORE inc %s through c after ZINCRBY 1 through a and %v through b at once = %v (%v), want %v",
					m, sydney, got, err, sydney+1)
			}
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d ZINCRBY pairs lost an increment", lost, members)
	}
	t.Logf("%d pairs of %d had a -TRYAGAIN", refused, 2*members)
	if refused > members/2 {
		t.Errorf("%d pairs of %d had a -TRYAGAIN", refused, 2*members)
	}
}
