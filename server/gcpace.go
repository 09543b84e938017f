package server

import (
	"context"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"time"
)

// GCFloor is the least the heap may grow between collections, whatever
// gc-percent says. A low percent is what keeps a big index's RSS near its
// live size, but applied to a small heap (a few thousand drivers, a few
// MB live) it would collect after every few hundred KB of replies, and a
// mixed command stream then ran at half its rate with gc-percent 20
// against 100. The floor makes a small server collect as Go's default
// does while a million drivers still get the low percent.
const GCFloor = 32 << 20

// PaceGC sets the collector's GOGC to percent of the live heap, raised
// (up to Go's default of 100) while percent of the live heap is less
// than GCFloor, and keeps it so as the live heap changes until ctx ends.
// The live heap is read from runtime/metrics a few times a second: a
// cheap read, and GOGC only changes when the answer does.
func PaceGC(ctx context.Context, percent int) {
	sample := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	set := -1
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		rtmetrics.Read(sample)
		var live uint64
		if sample[0].Value.Kind() == rtmetrics.KindUint64 {
			live = sample[0].Value.Uint64()
		}
		if p := gcPercent(percent, live); p != set {
			debug.SetGCPercent(p)
			set = p
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// gcPercent is the GOGC that lets a heap of live bytes grow by percent,
// or by GCFloor if that is more, but never past Go's default unless
// percent itself is higher.
func gcPercent(percent int, live uint64) int {
	if percent >= 100 {
		return percent
	}
	if live == 0 {
		return 100
	}
	floor := int(min(uint64(GCFloor)*100/live, 100))
	return max(percent, floor)
}
