package tests

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestClusterZincrbyThroughTwoNodes: ZINCRBY (and ZADD INCR) of the same
// members through two nodes at once adds every increment, as one Redis
// does: to one member 200 times from each side, and once from each side
// to 100 members neither has seen (both sums start from nothing).
func TestClusterZincrbyThroughTwoNodes(t *testing.T) {
	tc := startCluster(t, 3, "--fanout-timeout", "5000")
	ctx := context.Background()
	cases := []struct {
		key    string
		rounds int
		member func(i int) string
		want   float64
		incr   func(c *redis.Client, key, member string) error
	}{
		{"z", 200, func(int) string { return "m" }, 400,
			func(c *redis.Client, key, member string) error { return c.ZIncrBy(ctx, key, 1, member).Err() }},
		{"fresh", 100, func(i int) string { return fmt.Sprint("f", i) }, 2,
			func(c *redis.Client, key, member string) error {
				return c.ZAddArgsIncr(ctx, key, redis.ZAddArgs{Members: []redis.Z{{Score: 1, Member: member}}}).Err()
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
					err := tt.incr(c, tt.key, tt.member(i))
					for try := 0; err != nil && strings.HasPrefix(err.Error(), "TRYAGAIN") && try < 50; try++ {
						err = tt.incr(c, tt.key, tt.member(i))
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
				got, err := tc.nodes[id].c.ZScore(ctx, tt.key, m).Result()
				if err != nil || got != tt.want {
					t.Errorf("ZSCORE %s %s through %s = %v (%v), want %v", tt.key, m, id, got, err, tt.want)
				}
			}
		}
	}
}
