package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	smokeWorkers    = 20
	smokeIterations = 150
	smokeDrivers    = 5 // members per worker, moved around again and again
)

// TestConcurrencySmoke: 20 go-redis clients move drivers around Amsterdam
// on the adversarial map (so moves cross shard borders and hand off) while
// searching; every search around a driver's last acknowledged position must
// find it exactly once, and nothing may fail.
func TestConcurrencySmoke(t *testing.T) {
	mapPath := filepath.Join(t.TempDir(), "adversarial.geojson")
	if err := writeAdversarialMap(mapPath, dataAreas); err != nil {
		t.Fatal(err)
	}
	p := startGeoshard(t, "geoshard-adversarial", "--regions", mapPath, "--fanout-timeout", "5000")
	concurrencySmoke(t, p)
}

func concurrencySmoke(t *testing.T, p *serverProc) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rdb := redis.NewClient(&redis.Options{Addr: p.addr, PoolSize: smokeWorkers,
		ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second})
	defer rdb.Close()
	if err := rdb.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	amsterdam := dataAreas[0]

	var wg sync.WaitGroup
	errs := make(chan error, smokeWorkers)
	for w := 0; w < smokeWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- smokeWorker(ctx, rdb, w, amsterdam)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n, err := rdb.ZCard(ctx, "fleet").Result(); err != nil || n != smokeWorkers*smokeDrivers {
		t.Errorf("ZCARD fleet = %d, %v; want %d", n, err, smokeWorkers*smokeDrivers)
	}
}

func smokeWorker(ctx context.Context, rdb *redis.Client, w int, a area) error {
	r := rand.New(rand.NewPCG(uint64(w), 7))
	pos := make([]redis.GeoLocation, smokeDrivers)
	for i := range pos {
		pos[i] = redis.GeoLocation{Name: fmt.Sprintf("driver:%d:%d", w, i),
			Longitude: a.lon + (2*r.Float64()-1)*a.halfLon, Latitude: a.lat + (2*r.Float64()-1)*a.halfLat}
	}
	for it := 0; it < smokeIterations; it++ {
		d := &pos[it%smokeDrivers]
		// A short hop, sometimes a long one: both cross the ~1 km shards.
		step := 0.002
		if r.IntN(5) == 0 {
			step = 0.03
		}
		d.Longitude = min(a.lon+a.halfLon, max(a.lon-a.halfLon, d.Longitude+(2*r.Float64()-1)*step))
		d.Latitude = min(a.lat+a.halfLat, max(a.lat-a.halfLat, d.Latitude+(2*r.Float64()-1)*step))
		if err := rdb.GeoAdd(ctx, "fleet", d).Err(); err != nil {
			return fmt.Errorf("worker %d iteration %d: GEOADD: %w", w, it, err)
		}
		found, err := rdb.GeoSearch(ctx, "fleet", &redis.GeoSearchQuery{
			Longitude: d.Longitude, Latitude: d.Latitude, Radius: 300, RadiusUnit: "m", Sort: "ASC"}).Result()
		if err != nil {
			return fmt.Errorf("worker %d iteration %d: GEOSEARCH: %w", w, it, err)
		}
		seen := 0
		for _, name := range found {
			if name == d.Name {
				seen++
			}
		}
		if seen != 1 {
			return fmt.Errorf("worker %d iteration %d: GEOSEARCH around %s at %.6f,%.6f found it %d times in %q",
				w, it, d.Name, d.Longitude, d.Latitude, seen, found)
		}
		if it%10 == 0 {
			ps, err := rdb.GeoPos(ctx, "fleet", d.Name).Result()
			if err != nil || len(ps) != 1 || ps[0] == nil {
				return fmt.Errorf("worker %d iteration %d: GEOPOS %s = %v, %v", w, it, d.Name, ps, err)
			}
			if dx, dy := ps[0].Longitude-d.Longitude, ps[0].Latitude-d.Latitude; dx*dx+dy*dy > 1e-10 {
				return fmt.Errorf("worker %d iteration %d: GEOPOS %s = %+v, last written %.6f,%.6f",
					w, it, d.Name, *ps[0], d.Longitude, d.Latitude)
			}
		}
	}
	return nil
}
