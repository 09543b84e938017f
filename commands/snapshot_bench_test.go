package commands

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// BenchmarkSnapshot1M measures, at one million drivers, how long BGSAVE
// holds every command back (the copy), how long the write and a load
// take, and the file's size.
//
//	go test -run XXX -bench Snapshot1M -benchtime 1x ./commands
func BenchmarkSnapshot1M(b *testing.B) {
	const n = 1_000_000
	dir := b.TempDir()
	s := persistSession(b, dir, "0")
	rng := rand.New(rand.NewPCG(1, 1))
	k := shard.Key{Name: "drivers"}
	for i := range n {
		score := geo.Encode(rng.Float64()*360-180, rng.Float64()*170-85)
		s.e.Router().Add(k, "driver:"+strconv.Itoa(i), score, router.AddFlags{})
	}
	path := s.e.SnapshotPath()
	for b.Loop() {
		start := time.Now()
		s.e.mu.Lock()
		v := s.e.copyView()
		s.e.mu.Unlock()
		copied := time.Since(start)
		size, err := v.write(path, 0)
		if err != nil {
			b.Fatal(err)
		}
		written := time.Since(start) - copied
		e := New(router.New(router.Config{}), s.e.config)
		start = time.Now()
		cpu := cpuTime()
		st, err := e.Load(path)
		b.ReportMetric(float64((cpuTime() - cpu).Milliseconds()), "load-cpu-ms")
		if err != nil || st.Members != n {
			b.Fatalf("load: %+v, %v", st, err)
		}
		b.ReportMetric(float64(copied.Milliseconds()), "copy-ms")
		b.ReportMetric(float64(written.Milliseconds()), "write-ms")
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "load-ms")
		b.ReportMetric(float64(size)/(1<<20), "MiB")
	}
	if fi, err := os.Stat(filepath.Join(dir, DefaultDBFilename)); err == nil {
		b.Logf("snapshot %d bytes for %d members", fi.Size(), n)
	}
}

// cpuTime is the process's user and system CPU time so far: on a shared
// machine the load's CPU says more than its wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLoadFile loads the snapshot named by $GEOSHARD_SNAPSHOT (one
// SAVEd by a real server, say after geoshard-bench's load phase), so that
// the restart's load can be profiled on real data:
//
//	GEOSHARD_SNAPSHOT=/path/dump.gsnap go test -run '^$' -bench LoadFile -benchtime 3x -cpuprofile cpu.out ./commands
func BenchmarkLoadFile(b *testing.B) {
	path := os.Getenv("GEOSHARD_SNAPSHOT")
	if path == "" {
		b.Skip("GEOSHARD_SNAPSHOT not set")
	}
	for b.Loop() {
		e := New(router.New(router.Config{}), persistSession(b, b.TempDir(), "0").e.config)
		cpu := cpuTime()
		st, err := e.Load(path)
		b.ReportMetric(float64((cpuTime() - cpu).Milliseconds()), "load-cpu-ms")
		if err != nil || st.Members == 0 {
			b.Fatalf("load: %+v, %v", st, err)
		}
	}
}
