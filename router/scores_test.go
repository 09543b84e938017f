package router

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// Scores of many members at once, narrow and wide tables, agree with a
// map of scores after moves between shards and removes, and with Score;
// under a position TTL expired members read as missing.
func TestScoresAgainstModel(t *testing.T) {
	cases := []struct {
		name     string
		narrowAt int
		ttl      time.Duration
	}{
		{"narrow", 1, 0},
		{"wide", 1 << 20, 0},
		{"narrow-ttl-expired", 1, 30 * time.Millisecond},
		{"wide-ttl-expired", 1 << 20, 30 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := shard.GridMap(4.5, 52.0, 5.5, 52.5, 4, 2, 200)
			r := New(Config{Regions: m})
			r.hooks.narrowAt = c.narrowAt
			rng := rand.New(rand.NewPCG(11, 11))
			model := map[string]float64{}
			for range 8000 {
				name := fmt.Sprintf("d%d", rng.IntN(1500))
				if rng.IntN(6) == 0 {
					r.Remove(drivers, name)
					delete(model, name)
					continue
				}
				score := geo.Encode(4.5+rng.Float64(), 52.0+rng.Float64()/2)
				r.Add(drivers, name, score, AddFlags{})
				model[name] = score
			}
			if c.ttl > 0 {
				r.SetKeyTTL(drivers, c.ttl)
				time.Sleep(2 * c.ttl)
				clear(model)
			}
			names := make([]string, 2000) // some never added
			for i := range names {
				names[i] = fmt.Sprintf("d%d", rng.IntN(2000))
			}
			scores, oks := r.Scores(drivers, names)
			for i, n := range names {
				want, in := model[n]
				if oks[i] != in || scores[i] != want && in {
					t.Fatalf("Scores %s = %v %v, want %v %v", n, scores[i], oks[i], want, in)
				}
				if s, ok := r.Score(drivers, n); ok != oks[i] || ok && s != scores[i] {
					t.Fatalf("Score %s = %v %v, Scores %v %v", n, s, ok, scores[i], oks[i])
				}
			}
			if s, ok := r.Scores(shard.Key{Name: "none"}, names[:3]); ok[0] || ok[2] || len(s) != 3 {
				t.Fatalf("Scores of a missing key: %v %v", s, ok)
			}
		})
	}
}
