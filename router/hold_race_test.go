package router

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"geoshard/shard"
)

// TestHoldAllExclusive: batches of overlapping members, some named twice,
// and one-member writes hold members at once from many goroutines; no
// member is ever held by two of them, and none waits forever (a batch
// taking members out of order, or one mark left behind, would deadlock).
func TestHoldAllExclusive(t *testing.T) {
	r := New(Config{})
	k := shard.Key{Name: "drivers"}
	const members, workers, rounds = 24, 6, 300
	var owner [members]atomic.Int32 // the worker holding each member, +1
	var wg sync.WaitGroup
	done := make(chan struct{})
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for range rounds {
				n := 1 + rng.IntN(8)
				idx := make([]int, n)
				names := make([]string, n)
				for i := range idx {
					idx[i] = rng.IntN(members)
					names[i] = fmt.Sprintf("m%02d", idx[i])
				}
				var release func()
				if n == 1 && rng.IntN(2) == 0 {
					release = r.hold(k, names[0])
				} else {
					release = r.holdAll(k, names)
				}
				for _, i := range idx {
					if prev := owner[i].Swap(int32(w + 1)); prev != 0 && prev != int32(w+1) {
						t.Errorf("m%02d held by workers %d and %d at once", i, prev-1, w)
					}
				}
				for _, i := range idx {
					owner[i].Store(0)
				}
				release()
			}
		})
	}
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("batches still waiting for their members after 2 minutes")
	}
	if in, _ := held(r, k, func() []string {
		all := make([]string, members)
		for i := range all {
			all[i] = fmt.Sprintf("m%02d", i)
		}
		return all
	}()...); len(in) != 0 {
		t.Errorf("%v still held after every release", in)
	}
}
