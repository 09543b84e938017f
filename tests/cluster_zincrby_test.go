package tests

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"geoshard/geo"
)

// TestClusterZincrbyThroughTwoNodes: ZINCRBY (and ZADD INCR) of the same
// members through two nodes at once adds every increment, as one Redis
// does: to one member 200 times from each side, once from each side to
// 100 members neither has seen (both sums start from nothing), and to a
// geo member whose every increment moves it to another region's shard:
// Amsterdam (europe) plus d is the Sahara (africa), plus 2d is Australia
// (oceania); each side adds d and -d in turn, so the member ends where it
// began. Before conditional cross-shard writes
// (router/cond.go) the last case lost increments: two sums made from the
// same copy were both stored, the newest stamp winning.
func TestClusterZincrbyThroughTwoNodes(t *testing.T) {
	tc := startCluster(t, 3, "--fanout-timeout", "5000")
	ctx := context.Background()
	ams, d := geo.Encode(4.9, 52.37), geo.Encode(4.9, 30)-geo.Encode(4.9, 52.37)
	if far := ams + 2*d; far < 0 || far >= 1<<52 {
		t.Fatalf("Amsterdam plus twice d is %v, not a position", far)
	}
	if _, err := tc.nodes["a"].c.GeoAdd(ctx, "geo", &redis.GeoLocation{Name: "w", Longitude: 4.9, Latitude: 52.37}).Result(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		key    string
		rounds int
		member func(i int) string
		want   float64
		incr   func(c *redis.Client, key, member string, i int) error
	}{
		{"z", 200, func(int) string { return "m" }, 400,
			func(c *redis.Client, key, member string, _ int) error { return c.ZIncrBy(ctx, key, 1, member).Err() }},
		{"fresh", 100, func(i int) string { return fmt.Sprint("f", i) }, 2,
			func(c *redis.Client, key, member string, _ int) error {
				return c.ZAddArgsIncr(ctx, key, redis.ZAddArgs{Members: []redis.Z{{Score: 1, Member: member}}}).Err()
			}},
		{"geo", 100, func(int) string { return "w" }, ams,
			func(c *redis.Client, key, member string, i int) error {
				return c.ZIncrBy(ctx, key, []float64{d, -d}[i%2], member).Err()
			}},
	}
	for _, tt := range cases {
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		for _, id := range []string{"a", "b"} {
			c := tc.nodes[id].c
			wg.Add(1)
			go func() {
				defer wg.Done()
				// A -TRYAGAIN changed nothing: send the increment again (at
				// most 50 times, so a livelock fails the test).
				for i := range tt.rounds {
					err := tt.incr(c, tt.key, tt.member(i), i)
					for try := 0; err != nil && strings.HasPrefix(err.Error(), "TRYAGAIN") && try < 50; try++ {
						err = tt.incr(c, tt.key, tt.member(i), i)
					}
					if err != nil {
						errs <- fmt.Errorf("through %s, %s %s: %w", id, tt.key, tt.member(i), err)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for _, id := range []string{"a", "b", "c"} {
			for i := range tt.rounds {
				m := tt.member(i)
				if i > 0 && m == tt.member(i-1) {
					continue // one member incremented every round: checked once
				}
				got, err := tc.nodes[id].c.ZScore(ctx, tt.key, m).Result()
				if err != nil || got != tt.want {
					t.Errorf("ZSCORE %s %s through %s = %v (%v), want %v", tt.key, m, id, got, err, tt.want)
				}
			}
		}
	}
}
