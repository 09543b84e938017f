package router

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// Bulk writes from many goroutines, each moving its own drivers across a
// grid of shards in batches (bulk queues) and one at a time (no queue),
// end as a model of each goroutine's writes in order says, and answer
// the model's counts of added and changed members.
func TestBulkWritesConcurrent(t *testing.T) {
	m := shard.GridMap(4.8, 52.3, 5.0, 52.4, 4, 2, 200)
	r := New(Config{Regions: m, FanoutTimeout: time.Minute})
	const writers, names, rounds = 6, 150, 12
	type tally struct{ added, changed int }
	got, model := make([]tally, writers), make([]tally, writers)
	want := make([]map[string]float64, writers)
	var wg sync.WaitGroup
	for w := range writers {
		want[w] = map[string]float64{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 3))
			for round := range rounds {
				// Batches of 1 to 3*bulkMin: below and above the queue's threshold.
				n := 1 + rng.IntN(3*bulkMin)
				members := make([]string, n)
				scores := make([]float64, n)
				for i := range n {
					members[i] = fmt.Sprintf("w%d:%d", w, rng.IntN(names))
					scores[i] = geo.Encode(4.8+rng.Float64()*0.2, 52.3+rng.Float64()*0.1)
					if old, ok := want[w][members[i]]; ok && round%3 == 2 {
						scores[i] = old // unchanged, where it was
					}
				}
				a, c, err := r.TryAddMany(drivers, members, scores, AddFlags{})
				if err != nil {
					t.Error(err)
					return
				}
				got[w].added += a
				got[w].changed += c
				for i, name := range members {
					old, ok := want[w][name]
					switch {
					case !ok:
						model[w].added++
					case old != scores[i]:
						model[w].changed++
					}
					want[w][name] = scores[i]
				}
			}
		}()
	}
	wg.Wait()
	total := 0
	for w := range writers {
		total += len(want[w])
		if got[w] != model[w] {
			t.Errorf("writer %d: added, changed %v, want %v", w, got[w], model[w])
		}
		for name, score := range want[w] {
			if s, ok := r.Score(drivers, name); !ok || s != score {
				t.Errorf("%s: score %v %v, want %v", name, s, ok, score)
			}
		}
	}
	if n := r.Card(drivers); n != total {
		t.Fatalf("card %d, want %d", n, total)
	}
	whole := geo.NewSearch(4.9, 52.35, geo.Shape{Box: true, Width: 40, Height: 40, Unit: 1000})
	if hits := r.Search(drivers, whole, 0).Hits; len(hits) != total {
		t.Fatalf("a search of the whole grid found %d members, want %d (no copy left behind)", len(hits), total)
	}
}

// A bug that panics inside a queued write reaches the command that sent
// it, whose guard answers an error, and the queue goes on with the next.
func TestBulkPanicReachesCaller(t *testing.T) {
	var q bulkQueue
	func() {
		defer func() {
			if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "boom") {
				t.Errorf("recovered %v, want the write's panic", p)
			}
		}()
		q.run(1, func() { panic("boom") })
	}()
	ran := false
	q.run(1, func() { ran = true })
	if !ran {
		t.Fatal("the queue did not run the write after a panic")
	}
}

// Writes run one at a time, whoever writes them, and every one is written
// once, also when each is big enough to hand the queue on (the race
// detector sees two at once as a race on count).
func TestBulkOneAtATime(t *testing.T) {
	var q bulkQueue
	count := 0
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				n := 1
				if (g+i)%2 == 0 {
					n = leadMembers // its leader hands the queue on after it
				}
				q.run(n, func() { count++ })
			}
		}()
	}
	wg.Wait()
	if count != 400 || q.running || len(q.waiting) != 0 {
		t.Fatalf("%d writes, running %v, %d waiting; want 400, false, 0", count, q.running, len(q.waiting))
	}
}
