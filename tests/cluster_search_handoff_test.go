package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterSearchDuringHandoffs: 8 drivers cross the borders of a 3 x 3
// map through two nodes without pause, while searches over the whole map
// through the third, one listing every member and one the nearest 8, hold
// every driver once. A search reads each shard at its own moment; one that
// read a driver's new shard before its copy came and the old shard after
// its copy went missed it: 7-12 of 378-385 searches in two runs before
// (4 of 390 with whole-map searches alone). Now each
// shard answers with the copies it lost to handoffs since the search
// began, too (router/departures.go). ZRANGE of the whole key and GEOPOS
// of every driver read the nodes the same way: ZRANGE missed a driver in
// 0, 4 and 2 of 43-45 reads in three runs before its shards named their
// departures too, GEOPOS answered nil for one in 1-3 of 55-58 reads (of
// 8 drivers each) before a member found nowhere was looked for again.
func TestClusterSearchDuringHandoffs(t *testing.T) {
	tc := startCluster(t, 3, "--regions", clusterMap(t), "--fanout-timeout", "5000")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const drivers, steps = 8, 300
	for d := range drivers {
		if err := tc.nodes["a"].c.GeoAdd(ctx, "k", &redis.GeoLocation{Name: fmt.Sprint("d", d), Longitude: 4.9, Latitude: 52.35}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	var done atomic.Bool
	var writers sync.WaitGroup
	for d := range drivers {
		writers.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(d), 3))
			via := tc.nodes[[]string{"a", "c"}[d%2]].c
			lon, lat := 4.9, 52.35
			for range steps {
				// Steps of up to 3.4 km across areas 10 x 8 km.
				lon = min(max(lon+(rng.Float64()-0.5)*0.1, 4.72), 5.13)
				lat = min(max(lat+(rng.Float64()-0.5)*0.05, 52.26), 52.45)
				if err := via.GeoAdd(ctx, "k", &redis.GeoLocation{Name: fmt.Sprint("d", d), Longitude: lon, Latitude: lat}).Err(); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	go func() { writers.Wait(); done.Store(true) }()
	reads := [][]any{
		{"GEOSEARCH", "k", "FROMLONLAT", 4.9, 52.35, "BYBOX", 60, 60, "km"},
		{"GEOSEARCH", "k", "FROMLONLAT", 4.9, 52.35, "BYRADIUS", 40, "km", "ASC", "COUNT", drivers},
		{"ZRANGE", "k", 0, -1},
		{"GEOPOS", "k"},
	}
	for d := range drivers {
		reads[3] = append(reads[3], fmt.Sprint("d", d))
	}
	wrong, total := make([]int, len(reads)), make([]int, len(reads))
	for i := 0; !done.Load(); i++ {
		kind := i % len(reads)
		args := reads[kind]
		total[kind]++
		got, err := tc.nodes["b"].c.Do(ctx, args...).Slice()
		if err != nil {
			t.Fatal(err)
		}
		ok := len(got) == drivers
		if kind == 3 { // GEOPOS: a position per driver, nil for none
			ok = ok && !slices.Contains(got, nil)
		} else {
			seen := map[any]bool{}
			for _, m := range got {
				seen[m] = true
			}
			ok = ok && len(seen) == drivers
		}
		if !ok {
			if wrong[kind]++; wrong[kind] <= 3 {
				t.Errorf("%v through b: %v, want each of the %d drivers once", args, got, drivers)
			}
		}
	}
	for kind, args := range reads {
		t.Logf("%v through b: %d of %d wrong", args, wrong[kind], total[kind])
	}
}
