package router

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// BenchmarkBigKeyReads runs the reads that walk a big key (ZRANGE,
// ZRANGEBYSCORE, ZREVRANGE, ZRANK, ZCOUNT, ZCARD under a position TTL,
// GEOSEARCH without COUNT, and geopos-100: 100 Score calls, which is how
// GEOPOS read many members before Router.Scores, see BenchmarkBigKeyScores)
// on one 1M metro key; cpu-ns/op is the process's CPU per read
// (getrusage), which a busy machine disturbs less than wall time. A big key's owner tables are
// narrow: scores and stamps live only in the shards.
func BenchmarkBigKeyReads(b *testing.B) {
	r, at := metro(b, shard.DefaultMap(), 1_000_000)
	all := r.Range(drivers, Bound{Score: math.Inf(-1)}, Bound{Score: math.Inf(1)}, false, 0, -1)
	if len(all) != 1_000_000 {
		b.Fatalf("ZRANGE 0 -1 gave %d members, want 1000000", len(all))
	}
	rng := rand.New(rand.NewPCG(7, 7))
	// window returns the bounds of 1,000 members in a row.
	window := func() (Bound, Bound) {
		i := rng.IntN(len(all) - 1000)
		return Bound{Score: all[i].Score}, Bound{Score: all[i+999].Score}
	}
	member := func() string { return fmt.Sprintf("driver:%d", rng.IntN(len(all))) }
	cases := []struct {
		name string
		read func(b *testing.B)
	}{
		{"zrange-all", func(b *testing.B) {
			if n := len(r.Range(drivers, Bound{Score: math.Inf(-1)}, Bound{Score: math.Inf(1)}, false, 0, -1)); n != len(all) {
				b.Fatalf("%d members", n)
			}
		}},
		{"zrange-10", func(b *testing.B) {
			if n := len(r.Range(drivers, Bound{Score: math.Inf(-1)}, Bound{Score: math.Inf(1)}, false, 0, 10)); n != 10 {
				b.Fatalf("%d members", n)
			}
		}},
		{"zrangebyscore-1k", func(b *testing.B) {
			lo, hi := window()
			if n := len(r.Range(drivers, lo, hi, false, 0, -1)); n < 1000 {
				b.Fatalf("%d members", n)
			}
		}},
		{"zrevrangebyscore-1k", func(b *testing.B) {
			lo, hi := window()
			if n := len(r.Range(drivers, lo, hi, true, 0, -1)); n < 1000 {
				b.Fatalf("%d members", n)
			}
		}},
		{"zrank", func(b *testing.B) {
			if _, ok := r.Rank(drivers, member(), false); !ok {
				b.Fatal("member missing")
			}
		}},
		{"zcard-ttl", func(b *testing.B) {
			if n := r.Card(drivers); n != len(all) {
				b.Fatalf("ZCARD %d", n)
			}
		}},
		{"geosearch-5km-all", func(b *testing.B) {
			lon, lat := at()
			r.Search(drivers, geo.NewSearch(lon, lat, geo.Shape{Radius: 5, Unit: 1000}), 0)
		}},
		{"geopos-100", func(b *testing.B) {
			for range 100 {
				if _, ok := r.Score(drivers, member()); !ok {
					b.Fatal("member missing")
				}
			}
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if c.name == "zcard-ttl" {
				// Under a position TTL ZCARD counts the live copies.
				r.SetKeyTTL(drivers, time.Hour)
				defer r.SetKeyTTL(drivers, -1)
			}
			cpu := cpuTime()
			for b.Loop() {
				c.read(b)
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
