package tests

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestClusterCreateWhileRemoved: a GEOADD of a new member through one node
// (plain or NX) and a ZREM of it through another, sent at once, end as in
// one Redis, and every node reads the same. A ZREM that answered 1 came
// after the GEOADD, so the member is gone; one that answered 0 came
// before it, so the member stays. An NX write first claims the member at
// its home shard, then stores its copy in its own (create.go). A ZREM
// that removed the claim answered 1, and the copy stored after it stayed:
// 46 of 300 members. So did one whose delete reached the claim on the
// home shard's replica only.
func TestClusterCreateWhileRemoved(t *testing.T) {
	tc := startCluster(t, 3, "--fanout-timeout", "5000")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	a, b, c := tc.nodes["a"].c, tc.nodes["b"].c, tc.nodes["c"].c
	const members = 300
	wrong, removed := 0, 0
	for i := range members {
		m := fmt.Sprint("m:", i)
		var added, gone int64
		var addErr, remErr error
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			if i%2 == 0 {
				added, addErr = a.Do(ctx, "GEOADD", "k", 4.9, 52.37, m).Int64()
			} else {
				added, addErr = a.Do(ctx, "GEOADD", "k", "NX", 4.9, 52.37, m).Int64()
			}
		}()
		go func() {
			defer wg.Done()
			<-start
			time.Sleep(time.Duration(i%8) * 150 * time.Microsecond)
			gone, remErr = b.ZRem(ctx, "k", m).Result()
		}()
		close(start)
		wg.Wait()
		if addErr != nil || remErr != nil {
			t.Logf("member %s: GEOADD %v, ZREM %v", m, addErr, remErr)
			continue
		}
		removed += int(gone)
		_, err := c.ZScore(ctx, "k", m).Result()
		present := err == nil
		_, ea := a.ZScore(ctx, "k", m).Result()
		_, eb := b.ZScore(ctx, "k", m).Result()
		if added != 1 || present == (gone == 1) || (ea == nil) != present || (eb == nil) != present {
			if wrong++; wrong <= 5 {
				t.Errorf("GEOADD k NX %s through a answered %d, ZREM through b %d at once; then ZSCORE through c found it: %v (a %v, b %v)",
					m, added, gone, present, ea == nil, eb == nil)
			}
		}
	}
	t.Logf("ZREM answered 1 for %d of %d members", removed, members)
	if wrong > 0 {
		t.Errorf("%d of %d members ended unlike any order of the two commands", wrong, members)
	}
}
