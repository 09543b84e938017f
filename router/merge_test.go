package router

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"geoshard/shard"
)

// mergeRef is merge the obvious way: the newest copy of each member
// (the first of equal stamps), then sorted by cell, score and member.
func mergeRef(hits []shard.Hit) []shard.Hit {
	best := map[string]shard.Hit{}
	var order []string
	for _, h := range hits {
		b, ok := best[h.Member]
		if !ok {
			order = append(order, h.Member)
		}
		if !ok || h.Stamp > b.Stamp {
			best[h.Member] = h
		}
	}
	out := make([]shard.Hit, 0, len(order))
	for _, m := range order {
		out = append(out, best[m])
	}
	slices.SortFunc(out, func(a, b shard.Hit) int { return compareHits(&a, &b) })
	return out
}

// Merging runs of hits from many shards gives Redis's discovery order
// with one copy per member, the newest, whether the hits are few (compared)
// or many (radix-sorted keys), share scores, repeat members or carry
// scores that are not a cell's (issue 11).
func TestMerge(t *testing.T) {
	cases := []struct {
		name      string
		n, shards int
		cells     int
		scores    int     // distinct scores to draw from: few gives ties
		copies    float64 // share of hits that repeat a member
		odd       bool    // some non-integral scores: the compare path
	}{
		{"empty", 0, 1, 1, 10, 0, false},
		{"one", 1, 1, 1, 10, 0, false},
		{"few", 40, 5, 4, 1 << 40, 0, false},
		{"few-ties-copies", 200, 9, 9, 30, 0.2, false},
		{"many", 5000, 700, 9, 1 << 52, 0, false},
		{"many-ties", 3000, 300, 4, 100, 0, false},
		{"many-copies", 3000, 300, 6, 1 << 30, 0.1, false},
		{"many-odd-scores", 1000, 50, 3, 1 << 20, 0.05, true},
		{"one-run-sorted", 1000, 1, 9, 1 << 52, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.n), 9))
			runs := make([][]shard.Hit, tc.shards)
			for i := range tc.n {
				member := fmt.Sprintf("m%d", i)
				if i > 0 && rng.Float64() < tc.copies {
					member = fmt.Sprintf("m%d", rng.IntN(i))
				}
				score := float64(rng.Uint64N(uint64(tc.scores)))
				if tc.odd && i%10 == 0 {
					score += 0.5
				}
				h := shard.Hit{Entry: shard.Entry{Member: member, Score: score, Stamp: rng.Int64N(5)}, Cell: rng.IntN(tc.cells)}
				s := rng.IntN(tc.shards)
				runs[s] = append(runs[s], h)
			}
			var hits []shard.Hit
			for _, run := range runs { // each shard answers in discovery order
				slices.SortFunc(run, func(a, b shard.Hit) int { return compareHits(&a, &b) })
				hits = append(hits, run...)
			}
			want := mergeRef(slices.Clone(hits))
			got := merge(hits)
			if len(got) != len(want) {
				t.Fatalf("%d hits, want %d", len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("hit %d: %+v, want %+v", i, got[i], want[i])
				}
			}
		})
	}
}
