package router

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// newestCopies keeps one copy per member, the newest, in input order.
func TestNewestCopies(t *testing.T) {
	e := func(m string, stamp int64) shard.Entry { return shard.Entry{Member: m, Stamp: stamp} }
	cases := []struct {
		name    string
		in      []shard.Entry
		want    []shard.Entry
		dropped bool
	}{
		{"none", nil, nil, false},
		{"one", []shard.Entry{e("a", 1)}, []shard.Entry{e("a", 1)}, false},
		{"distinct", []shard.Entry{e("a", 1), e("b", 1), e("c", 2)}, []shard.Entry{e("a", 1), e("b", 1), e("c", 2)}, false},
		{"older later", []shard.Entry{e("a", 5), e("b", 1), e("a", 3)}, []shard.Entry{e("a", 5), e("b", 1)}, true},
		{"newer later", []shard.Entry{e("a", 3), e("b", 1), e("a", 5)}, []shard.Entry{e("b", 1), e("a", 5)}, true},
		{"equal stamps", []shard.Entry{e("a", 3), e("a", 3)}, []shard.Entry{e("a", 3)}, true},
		{"three copies", []shard.Entry{e("a", 2), e("a", 9), e("a", 4), e("", 1)}, []shard.Entry{e("a", 9), e("", 1)}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, dropped := newestCopies(slices.Clone(c.in))
			if !slices.Equal(got, c.want) || dropped != c.dropped {
				t.Fatalf("got %v %v, want %v %v", got, dropped, c.want, c.dropped)
			}
		})
	}
	// Many members, each copied up to three times with random stamps,
	// against a map of the newest stamp.
	rng := rand.New(rand.NewPCG(4, 4))
	var in []shard.Entry
	newest := map[string]int64{}
	for i := range 20000 {
		m := fmt.Sprintf("m%d", i)
		for range 1 + rng.IntN(3) {
			s := rng.Int64N(1000)
			in = append(in, e(m, s))
			newest[m] = max(newest[m], s)
		}
	}
	rng.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
	got, _ := newestCopies(in)
	if len(got) != len(newest) {
		t.Fatalf("%d copies kept, want %d", len(got), len(newest))
	}
	for _, c := range got {
		if newest[c.Member] != c.Stamp {
			t.Fatalf("%s kept at stamp %d, want %d", c.Member, c.Stamp, newest[c.Member])
		}
	}
}

// While writers move members of a big key between shards, a range never
// returns a member twice.
func TestRangeDuringMoves(t *testing.T) {
	m := shard.GridMap(4.5, 52.0, 5.5, 52.5, 4, 2, 200)
	r := New(Config{Regions: m})
	r.hooks.narrowAt = 1
	const members = 2000
	for i := range members {
		r.Add(drivers, fmt.Sprintf("d%d", i), geo.Encode(4.5+float64(i%10)/10, 52.1), AddFlags{})
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("d%d", rng.IntN(members))
				r.Add(drivers, name, geo.Encode(4.5+rng.Float64(), 52.0+rng.Float64()/2), AddFlags{})
			}
		}()
	}
	t.Cleanup(func() { close(stop); wg.Wait() })
	deadline := time.Now().Add(2 * time.Second)
	for n := 0; n < 200 && time.Now().Before(deadline); n++ {
		got := r.Range(drivers, Bound{Score: math.Inf(-1)}, Bound{Score: math.Inf(1)}, n%2 == 0, 0, -1)
		seen := make(map[string]bool, len(got))
		for _, mb := range got {
			if seen[mb.Name] {
				t.Fatalf("range %d: %s twice", n, mb.Name)
			}
			seen[mb.Name] = true
		}
		// Members moving while the shards are read one after the other
		// may be missed (seen in neither), never seen twice.
		if len(got) > members {
			t.Fatalf("range %d: %d members of %d", n, len(got), members)
		}
	}
}
