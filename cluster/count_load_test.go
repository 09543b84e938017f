package cluster

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"geoshard/cluster/etcdtest"
	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// TestClusterCountsDuringLoad counts while a load adds new members in
// batches all over the world through one node: every insert is a change
// each node records and a count may name (router/changes.go). A count is
// right when it is at least the members whose batch had returned before
// it began and at most those whose batch had been sent before it ended;
// counts during it gather the members (each round names a new batch),
// and one that cannot name them all answers the gathered count.
func TestClusterCountsDuringLoad(t *testing.T) {
	etcd := etcdtest.Start(t)
	nodes := startReplicated(t, etcd.Endpoint, "a", "b", "c")
	replicated(t, nodes)
	rs := []*router.Router{nodes["a"].r, nodes["b"].r, nodes["c"].r}
	key := shard.Key{Name: "fleet"}
	const batches, per = 40, 500
	var sent, done atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	loadErr := make(chan error, 1)
	var loading atomic.Bool
	loading.Store(true)
	go func() {
		defer wg.Done()
		defer loading.Store(false)
		rng := rand.New(rand.NewPCG(1, 2))
		for b := range batches {
			members, scores := make([]string, per), make([]float64, per)
			for i := range members {
				members[i] = fmt.Sprintf("v%d", b*per+i)
				scores[i] = geo.Encode(-179+rng.Float64()*358, -80+rng.Float64()*160)
			}
			sent.Add(per)
			// A batch refused (a call timed out on a loaded machine) is
			// sent again, as a client would: its members are the same.
			var err error
			for try := 0; try < 5; try++ {
				if _, _, err = rs[0].TryAddMany(key, members, scores, router.AddFlags{}); err == nil {
					break
				}
				t.Logf("batch %d, try %d: %v", b, try, err)
			}
			if err != nil {
				loadErr <- fmt.Errorf("batch %d: %w", b, err)
				return
			}
			done.Add(per)
		}
	}()
	counts, failed := 0, 0
	var wrong []string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) && loading.Load(); {
		low := done.Load()
		c, err := rs[1+counts%2].TryCard(key)
		high := sent.Load()
		switch {
		case err != nil:
			failed++
		case int64(c) < low || int64(c) > high:
			wrong = append(wrong, fmt.Sprintf("%d not in [%d, %d]", c, low, high))
			counts++
		default:
			counts++
		}
	}
	wg.Wait()
	select {
	case err := <-loadErr:
		t.Fatal(err)
	default:
	}
	t.Logf("%d counts (%d failed) during a load of %d members; rounds (1 to 5, members gathered) through b, c: %v %v",
		counts, failed, batches*per, rs[1].CountRounds(), rs[2].CountRounds())
	if counts < 1 || failed > counts { // the first count begins before the load is done
		t.Fatalf("only %d counts (%d failed)", counts, failed)
	}
	if len(wrong) > 0 {
		t.Errorf("%d of %d counts wrong: %v", len(wrong), counts, wrong)
	}
	for _, r := range rs {
		if c, err := r.TryCard(key); err != nil || c != batches*per {
			t.Errorf("after the load: %d (%v), want %d", c, err, batches*per)
		}
	}
}
