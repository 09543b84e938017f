package shard

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"geoshard/geo"
)

// A set under random puts, moves and deletes agrees with a plain map, in
// lookups, in score order and in nearest-first order.
func TestSetAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := newSet()
	model := map[string]float64{}
	for i := range 20000 {
		name := fmt.Sprintf("m%d", rng.IntN(3000))
		switch rng.IntN(4) {
		case 0:
			if _, ok := s.delete(name); ok != (model[name] != 0) {
				t.Fatalf("step %d: delete %s = %v", i, name, ok)
			}
			delete(model, name)
		default:
			score := geo.Encode(4+rng.Float64(), 52+rng.Float64())
			_, existed := s.put(Entry{Member: name, Score: score, Stamp: int64(i)})
			if existed != (model[name] != 0) {
				t.Fatalf("step %d: put %s existed=%v", i, name, existed)
			}
			model[name] = score
		}
	}
	if s.len() != len(model) {
		t.Fatalf("len %d, want %d", s.len(), len(model))
	}
	for name, score := range model {
		if it, ok := s.get(name); !ok || it.score != score {
			t.Fatalf("get %s: %v %v", name, it, ok)
		}
	}
	var got []string
	s.ascend(0, func(it *item) bool { got = append(got, s.member(it)); return true })
	want := make([]string, 0, len(model))
	for name := range model {
		want = append(want, name)
	}
	slices.SortFunc(want, func(a, b string) int {
		if model[a] != model[b] {
			if model[a] < model[b] {
				return -1
			}
			return 1
		}
		if a < b {
			return -1
		}
		return 1
	})
	if !slices.Equal(got, want) {
		t.Fatal("score order differs from the model")
	}
	last := -1.0
	n := 0
	s.nearby(4.5, 52.5, func(it *item, bound float64) bool {
		lon, lat := geo.Decode(it.score)
		if exact := geo.Distance(4.5, 52.5, lon, lat); bound > exact || bound < last {
			t.Fatalf("nearby bound %v after %v (exact %v)", bound, last, exact)
		}
		last = bound
		n++
		return true
	})
	if n != len(model) {
		t.Fatalf("nearby visited %d of %d", n, len(model))
	}
}
