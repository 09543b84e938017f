package server

import (
	"math"
	"runtime"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"testing"
	"time"
)

// TestGCPacerStep runs the pacer against this process's real heap: a
// quiet 64 MB heap gets the floor's room and a trim limit, a burst of
// allocation the ceiling and no limit, and the quiet again after the
// remembered rate has decayed.
func TestGCPacerStep(t *testing.T) {
	oldGOGC := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(oldGOGC)
		debug.SetMemoryLimit(oldLimit)
	})
	keep := make([]byte, 64<<20) // pointer-free, as the index is
	for i := range keep {
		keep[i] = byte(i)
	}
	runtime.GC()

	p := newGCPacer(GCPace{Percent: 20, MinPercent: 2, TrimLimit: true})
	p.userLimit = false // whatever this test's environment says: the limit is restored
	t0 := time.Now()
	p.step(t0)
	p.step(t0.Add(time.Minute)) // a minute of next to nothing allocated
	quietGOGC, quietLimit := gcSettingsNow(t)
	if quietGOGC > 5 {
		t.Errorf("quiet 64 MB heap: GOGC %d, want the floor (2 MB of room: about 3)", quietGOGC)
	}
	if quietLimit > 100<<20 || quietLimit < 64<<20 {
		t.Errorf("quiet 64 MB heap: memory limit %d MB, want just above the heap", quietLimit>>20)
	}

	var sink [][]byte
	for range 50 {
		sink = append(sink, make([]byte, 1<<20))
	}
	runtime.KeepAlive(sink)
	sink = nil
	p.step(t0.Add(time.Minute + 100*time.Millisecond)) // 50 MB in 100 ms
	busyGOGC, busyLimit := gcSettingsNow(t)
	if want := gcPercent(20, p.value(0)); busyGOGC != want {
		t.Errorf("burst: GOGC %d, want the ceiling %d", busyGOGC, want)
	}
	if busyLimit != math.MaxInt64 {
		t.Errorf("burst: memory limit %d MB, want none", busyLimit>>20)
	}

	before := cycles()
	p.step(t0.Add(2 * time.Minute)) // the rate has decayed 2^-60
	if g, l := gcSettingsNow(t); g > 5 || l == math.MaxInt64 {
		t.Errorf("quiet again: GOGC %d and memory limit %d MB, want the floor and a limit", g, l>>20)
	}

	// Quiet and without a collection for gcIdleAfter (here since the
	// burst, a minute ago): PaceGC collects, gcIdleCollections times,
	// then leaves the idle server alone.
	for i := range 2 * gcIdleCollections {
		p.step(t0.Add(2*time.Minute + time.Duration(i+1)*gcIdleAfter))
	}
	if got := cycles() - before; got < gcIdleCollections {
		t.Errorf("%d collections in %d quiet steps gcIdleAfter apart, want %d", got, 2*gcIdleCollections+1, gcIdleCollections)
	}
	if p.idleLeft != 0 {
		t.Errorf("idle collections left: %d, want 0", p.idleLeft)
	}
	runtime.KeepAlive(keep)
}

func gcSettingsNow(t *testing.T) (gogc int, limit int64) {
	t.Helper()
	s := []rtmetrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	rtmetrics.Read(s)
	return int(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

func cycles() uint64 {
	s := []rtmetrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	rtmetrics.Read(s)
	return s[0].Value.Uint64()
}

// TestGCPacerOff: gc-min-percent at gc-percent is the collector as it was
// before the pacing: GOGC from gc-percent alone, no limit, no collections
// of its own.
func TestGCPacerOff(t *testing.T) {
	oldGOGC := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(oldGOGC)
		debug.SetMemoryLimit(oldLimit)
	})
	runtime.GC()
	p := newGCPacer(GCPace{Percent: 20, MinPercent: 20, TrimLimit: true})
	p.userLimit = false
	p.idleLeft = gcIdleCollections // as after a burst
	t0 := time.Now()
	for i := range 4 {
		p.step(t0.Add(time.Duration(i) * time.Minute))
	}
	gogc, limit := gcSettingsNow(t)
	if want := gcPercent(20, p.value(0)); gogc != want {
		t.Errorf("GOGC %d, want gc-percent's %d", gogc, want)
	}
	if limit != math.MaxInt64 {
		t.Errorf("memory limit %d MB, want none", limit>>20)
	}
	if p.idleLeft != gcIdleCollections {
		t.Errorf("%d idle collections left of %d: the pacer collected by itself", p.idleLeft, gcIdleCollections)
	}
}
