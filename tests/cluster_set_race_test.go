package tests

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterSetRacesGeoadd: a GEOADD creating a key and a SET of the same
// name, sent at once through one node, end as Redis would leave them in
// one order or the other: a string (SET last, the members dropped) or a
// geo key (SET first; GEOADD answers WRONGTYPE), never a string on this
// node beside members another node serves. GEOADD lets the keyspace go
// before its remote calls; its key's stripe, which SET takes alone,
// keeps the two apart (commands/keylocks.go).
func TestClusterSetRacesGeoadd(t *testing.T) {
	tc := startCluster(t, 2, "--regions", clusterMap(t))
	a, b := tc.nodes["a"].c, tc.nodes["b"].c
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	const keys, workers = 1000, 8
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []string
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				key := fmt.Sprint("race:", i)
				// Spread over the map's cells, so that both nodes'
				// shards take a share.
				lon, lat := 4.75+0.15*float64(i%3), 52.28+0.07*float64(i/3%3)
				var pair sync.WaitGroup
				pair.Add(2)
				start := make(chan struct{})
				go func() {
					defer pair.Done()
					<-start
					// -TRYAGAIN (a node slow to answer, on a busy
					// machine) may come with the member stored or not;
					// either way the key must not end both.
					err := a.GeoAdd(ctx, key, &redis.GeoLocation{Name: "m", Longitude: lon, Latitude: lat}).Err()
					if err != nil && !strings.HasPrefix(err.Error(), "WRONGTYPE") && !strings.HasPrefix(err.Error(), "TRYAGAIN") {
						mu.Lock()
						failed = append(failed, fmt.Sprintf("GEOADD %s: %v", key, err))
						mu.Unlock()
					}
				}()
				go func() {
					defer pair.Done()
					<-start
					if err := a.Set(ctx, key, "v", 0).Err(); err != nil && !strings.HasPrefix(err.Error(), "TRYAGAIN") {
						mu.Lock()
						failed = append(failed, fmt.Sprintf("SET %s: %v", key, err))
						mu.Unlock()
					}
				}()
				close(start)
				pair.Wait()
			}
		}()
	}
	for i := range keys {
		work <- i
	}
	close(work)
	wg.Wait()
	for _, f := range failed {
		t.Error(f)
	}
	both := 0
	for i := range keys {
		key := fmt.Sprint("race:", i)
		// A string's type is known on its node without asking others; a
		// -TRYAGAIN (some node slow to say whether it holds a geo key of
		// the name) is no string.
		typ, err := a.Type(ctx, key).Result()
		if err != nil && !strings.HasPrefix(err.Error(), "TRYAGAIN") {
			t.Fatalf("TYPE %s through a: %v", key, err)
		}
		if typ != "string" {
			continue
		}
		if n := zcardWhenUp(t, ctx, b, key, 0); n != 0 {
			if both++; both <= 5 {
				t.Errorf("%s is a string through a and a geo key of %d members through b", key, n)
			}
		}
	}
	if both > 0 {
		t.Errorf("%d of %d keys both a string and a geo key", both, keys)
	}
}
