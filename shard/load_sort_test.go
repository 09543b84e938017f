package shard

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"geoshard/geo"
)

// TestSortRefs: the radix sort orders refs exactly as the comparison
// sort it replaces, ties on score broken by name, -0 equal to +0.
func TestSortRefs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	world := func(int) float64 { return geo.Encode(rng.Float64()*360-180, rng.Float64()*170-85) }
	tests := []struct {
		name  string
		n     int
		score func(i int) float64
	}{
		{"small", 100, world},
		{"world", 50_000, world},
		{"few scores, ties by name", 20_000, func(int) float64 { return float64(rng.IntN(7)) }},
		{"all one score", 5_000, func(int) float64 { return 42 }},
		{"signed and zeros", 10_000, func(i int) float64 {
			return []float64{math.Copysign(0, -1), 0, -1.5, 3, math.Inf(1), math.Inf(-1), -1e300}[i%7]
		}},
		{"a NaN", 3_000, func(i int) float64 {
			if i == 17 {
				return math.NaN()
			}
			return float64(rng.IntN(100))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSet()
			refs := make([]ref, tc.n)
			for i := range tc.n {
				score := tc.score(i)
				name := "m" + strconv.Itoa(rng.IntN(1<<30)) + "." + strconv.Itoa(i) // unique
				s.items.push(item{name: s.names.Add(name), score: score})
				refs[i] = mkref(score, uint32(i))
			}
			want := slices.Clone(refs)
			slices.SortFunc(want, s.compareRefs)
			s.sortRefs(refs)
			for i := range refs {
				if refs[i] != want[i] {
					t.Fatalf("at %d: %v (%q), want %v (%q)", i, refs[i], s.name(refs[i].at), want[i], s.name(want[i].at))
				}
			}
		})
	}
}
