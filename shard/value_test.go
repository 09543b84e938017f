package shard

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"geoshard/geo"
)

// PutHashSlot, ValueHash, EachValue and Scores agree with a map of values
// under puts and deletes, through slab slot reuse and name compaction.
func TestValuesAgainstModel(t *testing.T) {
	cases := []struct {
		name    string
		members int
		steps   int
		chunk   int // Scores' chunk
	}{
		{"few", 5, 3000, 1},
		{"many", 20000, 80000, 4096},
		{"odd-chunk", 3000, 20000, 7},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(4, uint64(c.members)))
			s := New()
			model := map[string]Value{}
			for i := range c.steps {
				name := fmt.Sprintf("driver:%d", rng.IntN(c.members))
				old, in := model[name]
				if rng.IntN(4) == 0 {
					s.Delete(drivers, name, math.MaxInt64)
					delete(model, name)
					continue
				}
				e := NewEntry(name, geo.Encode(4+rng.Float64(), 52+rng.Float64()), int64(i))
				prev, had, _ := s.PutHashSlot(drivers, e, Hash(name))
				if had != in || (in && prev != old) {
					t.Fatalf("step %d: PutHashSlot(%s) = %v %v, want %v %v", i, name, prev, had, old, in)
				}
				model[name] = Value{e.Score, e.Stamp}
				if v, ok := s.ValueHash(drivers, name, Hash(name)); !ok || v != model[name] {
					t.Fatalf("step %d: ValueHash(%s) = %v %v", i, name, v, ok)
				}
			}
			cut := int64(c.steps / 2)
			seen := map[string]Value{}
			s.EachValue(drivers, cut, func(m string, v Value) bool {
				if _, dup := seen[m]; dup {
					t.Fatalf("EachValue yields %s twice", m)
				}
				seen[m] = v
				return true
			})
			var want, got []float64
			for m, v := range model {
				if v.Stamp >= cut && seen[m] != v {
					t.Fatalf("EachValue: %s %v, want %v", m, seen[m], v)
				}
				want = append(want, v.Score)
			}
			for m, v := range seen {
				if model[m] != v || v.Stamp < cut {
					t.Fatalf("EachValue yields %s %v, model %v, cut %d", m, v, model[m], cut)
				}
			}
			buf := make([]float64, 0, c.chunk)
			for from := 0; from >= 0; {
				buf, from = s.Scores(drivers, from, buf[:0])
				got = append(got, buf...)
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("Scores yields %d scores, want %d", len(got), len(want))
			}
		})
	}
}
