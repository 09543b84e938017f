package router

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// BenchmarkReloadLatency is issue 11's target 4 in process: 1M drivers,
// the region map switched between the embedded map and a two-area split
// (every member moves), with a prober doing a 1 km COUNT 10 ASC search and
// a write every millisecond from before the swap until the move ends. It
// reports the slowest search and write during the move (max-search-us,
// max-write-us), the same probes' slowest over the 2 s before the reload
// (idle-search-us, idle-write-us: what the machine's load alone costs),
// the longest the mover held a stripe (max-chunk-us), the most CPU one
// such hold used (max-chunk-cpu-us: its work, without the waits for a
// core that a loaded machine adds) and the move's time.
func BenchmarkReloadLatency(b *testing.B) {
	r, _ := metro(b, shard.DefaultMap(), 1_000_000)
	split, _ := borderMaps()
	split.Borders()
	maps := []*shard.Map{split, shard.DefaultMap()}
	var search, write, idleSearch, idleWrite, chunk, chunkCPU, move time.Duration
	for i := 0; b.Loop(); i++ {
		var cur atomic.Pointer[Router]
		cur.Store(r)
		var moving atomic.Bool
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 3))
			deadline := time.Now().Add(5 * time.Minute) // bounded whatever happens
			for time.Now().Before(deadline) {
				select {
				case <-stop:
					return
				default:
				}
				s, w := probeOnce(cur.Load(), rng)
				if moving.Load() {
					search, write = max(search, s), max(write, w)
				} else {
					idleSearch, idleWrite = max(idleSearch, s), max(idleWrite, w)
				}
				time.Sleep(time.Millisecond)
			}
		})
		time.Sleep(2 * time.Second)
		moving.Store(true)
		start := time.Now()
		nr, err := r.Reload(maps[i%2])
		if err != nil {
			b.Fatal(err)
		}
		cur.Store(nr)
		runtime.LockOSThread() // for the mover's thread CPU clock
		nr.move.cpuClock = threadCPUTime
		nr.MoveMembers()
		runtime.UnlockOSThread()
		move += time.Since(start)
		close(stop)
		wg.Wait()
		chunk, chunkCPU = max(chunk, nr.move.longest), max(chunkCPU, nr.move.longestCPU)
		r = nr
	}
	b.ReportMetric(float64(search.Microseconds()), "max-search-us")
	b.ReportMetric(float64(write.Microseconds()), "max-write-us")
	b.ReportMetric(float64(idleSearch.Microseconds()), "idle-search-us")
	b.ReportMetric(float64(idleWrite.Microseconds()), "idle-write-us")
	b.ReportMetric(float64(chunk.Microseconds()), "max-chunk-us")
	b.ReportMetric(float64(chunkCPU.Microseconds()), "max-chunk-cpu-us")
	b.ReportMetric(float64(move.Milliseconds())/float64(b.N), "move-ms")
}

// probeOnce times one COUNT 10 ASC search (the full search when the walk
// cannot prove its answer, as the server does) and one write.
func probeOnce(r *Router, rng *rand.Rand) (search, write time.Duration) {
	lon, lat := 4.90+rng.NormFloat64()*0.05, 52.37+rng.NormFloat64()*0.03
	q := geo.NewSearch(lon, lat, geo.Shape{Radius: 1, Unit: 1000})
	start := time.Now()
	if _, exact := r.Nearest(drivers, q, 10); !exact {
		r.Search(drivers, q, 0)
	}
	search = time.Since(start)
	start = time.Now()
	r.Add(drivers, fmt.Sprintf("driver:%d", rng.IntN(1_000_000)), geo.Encode(lon, lat), AddFlags{})
	return search, time.Since(start)
}
