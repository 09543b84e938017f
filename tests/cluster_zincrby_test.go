package tests

import (
	"context"
	"sync"
	"testing"
)

// TestClusterZincrbyThroughTwoNodes: ZINCRBY of one member through two
// nodes at once adds every increment, as one Redis does.
func TestClusterZincrbyThroughTwoNodes(t *testing.T) {
	tc := startCluster(t, 3, "--fanout-timeout", "5000")
	ctx := context.Background()
	const per = 200
	var wg sync.WaitGroup
	errs := make(chan error, 2*per)
	for _, id := range []string{"a", "b"} {
		c := tc.nodes[id].c
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				for {
					err := c.ZIncrBy(ctx, "z", 1, "m").Err()
					if err == nil {
						break
					}
					if len(err.Error()) < 8 || err.Error()[:8] != "TRYAGAIN" {
						errs <- err
						return
					}
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
		got, err := tc.nodes[id].c.ZScore(ctx, "z", "m").Result()
		if err != nil || got != 2*per {
			t.Errorf("ZSCORE z m through %s = %v (%v), want %d", id, got, err, 2*per)
		}
	}
}
