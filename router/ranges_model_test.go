package router

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"geoshard/geo"
	"geoshard/shard"
)

// Range, Rank and TryCount agree with a sorted model of the key after
// members moved between shards, with narrow and wide owner tables and
// with old copies that dropped deletes left in shards: each member is
// seen once, at its current copy (currentIn).
func TestRangesAgainstModel(t *testing.T) {
	cases := []struct {
		name     string
		narrowAt int
		drop     bool // deletes of old copies are dropped (stale copies stay)
	}{
		{"narrow", 1, false},
		{"wide", 1 << 20, false},
		{"narrow-stale-copies", 1, true},
		{"wide-stale-copies", 1 << 20, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := shard.GridMap(4.5, 52.0, 5.5, 52.5, 4, 2, 200)
			r := New(Config{Regions: m})
			r.hooks.narrowAt = c.narrowAt
			r.hooks.dropDeletes.Store(c.drop)
			rng := rand.New(rand.NewPCG(9, 9))
			model := map[string]float64{}
			for range 20000 {
				name := fmt.Sprintf("d%d", rng.IntN(2000))
				score := geo.Encode(4.5+rng.Float64(), 52.0+rng.Float64()/2)
				r.Add(drivers, name, score, AddFlags{})
				model[name] = score
			}
			want := make([]Member, 0, len(model))
			for name, score := range model {
				want = append(want, Member{name, score})
			}
			slices.SortFunc(want, func(a, b Member) int {
				return cmp.Or(cmp.Compare(a.Score, b.Score), cmp.Compare(a.Name, b.Name))
			})
			checkRanges(t, r, want, rng)
		})
	}
}

// checkRanges compares Range, Rank and TryCount with want, the key's
// members in sorted-set order.
func checkRanges(t *testing.T, r *Router, want []Member, rng *rand.Rand) {
	t.Helper()
	inf := [2]Bound{{Score: math.Inf(-1)}, {Score: math.Inf(1)}}
	if got := r.Range(drivers, inf[0], inf[1], false, 0, -1); !slices.Equal(got, want) {
		t.Fatalf("Range all: %d members, want %d", len(got), len(want))
	}
	rev := slices.Clone(want)
	slices.Reverse(rev)
	if got := r.Range(drivers, inf[0], inf[1], true, 5, 50); !slices.Equal(got, rev[5:55]) {
		t.Fatalf("Range rev 5 50: %v, want %v", got, rev[5:55])
	}
	for range 50 {
		i := rng.IntN(len(want) - 100)
		lo, hi := Bound{Score: want[i].Score, Exclusive: rng.IntN(2) == 0}, Bound{Score: want[i+99].Score}
		var in []Member
		for _, m := range want {
			if lo.below(m.Score) && hi.above(m.Score) {
				in = append(in, m)
			}
		}
		if got := r.Range(drivers, lo, hi, false, 0, -1); !slices.Equal(got, in) {
			t.Fatalf("Range %v %v: %d members, want %d", lo, hi, len(got), len(in))
		}
		if n, err := r.TryCount(drivers, lo, hi); err != nil || n != len(in) {
			t.Fatalf("TryCount %v %v = %d %v, want %d", lo, hi, n, err, len(in))
		}
		j := rng.IntN(len(want))
		if rank, ok := r.Rank(drivers, want[j].Name, false); !ok || rank != j {
			t.Fatalf("Rank(%s) = %d %v, want %d", want[j].Name, rank, ok, j)
		}
		if rank, ok := r.Rank(drivers, want[j].Name, true); !ok || rank != len(want)-1-j {
			t.Fatalf("Rank rev(%s) = %d %v, want %d", want[j].Name, rank, ok, len(want)-1-j)
		}
	}
}
