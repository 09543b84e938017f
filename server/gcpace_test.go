package server

import (
	"math"
	"testing"
	"time"
)

func TestGCPercent(t *testing.T) {
	for _, c := range []struct {
		percent int
		live    uint64
		want    int
	}{
		{20, 0, 100},        // nothing measured yet: Go's default
		{20, 4 << 20, 100},  // small heap: 32 MB would be 800 %, capped at Go's default
		{20, 64 << 20, 50},  // 32 MB of 64 MB
		{20, 160 << 20, 20}, // the floor is exactly the percent
		{20, 1 << 30, 20},   // a big index: the percent
		{10, 1 << 30, 10},   //
		{100, 1 << 20, 100}, // at or above Go's default the percent stands
		{300, 1 << 30, 300}, //
		{1, 32 << 30, 1},    //
		{50, 48 << 20, 66},  // 32/48
	} {
		if got := gcPercent(c.percent, c.live); got != c.want {
			t.Errorf("gcPercent(%d, %d MB) = %d, want %d", c.percent, c.live>>20, got, c.want)
		}
	}
}

func TestGCRoom(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		name            string
		percent, minPct int
		live            uint64
		rate            float64 // bytes a second
		want            int
	}{
		{"nothing measured yet", 20, 2, 0, 0, 100},
		{"idle big heap: the floor", 20, 2, 1000 * mb, 0, 2},
		{"updates: 1 MB/s at 120 MB", 20, 2, 120 * mb, 1 * mb, 2},
		{"half a second of 12 MB/s at 120 MB", 20, 2, 120 * mb, 12 * mb, 5},
		{"searches: the ceiling with its 32 MB floor", 20, 2, 120 * mb, 110 * mb, 26},
		{"wide searches at 1 GB: the ceiling", 20, 2, 1000 * mb, 1000 * mb, 20},
		{"between floor and ceiling", 20, 2, 1000 * mb, 300 * mb, 15},
		{"small idle heap: 2 MB of room", 20, 2, 8 * mb, 0, 25},
		{"small busy heap: Go's pace", 20, 2, 8 * mb, 100 * mb, 100},
		{"2 MB at 120 MB: 1.7 %", 20, 1, 120 * mb, 0, 2},
		{"min at or above the ceiling: the ceiling", 20, 30, 1000 * mb, 0, 20},
		{"ceiling above Go's default stands", 200, 2, 1000 * mb, 10000 * mb, 200},
		{"min = percent turns the pacing off", 20, 20, 1000 * mb, 0, 20},
		{"... also where the 32 MB floor lifts the ceiling", 20, 20, 64 * mb, 0, 50},
	} {
		if got := gcRoom(c.percent, c.minPct, c.live, c.rate); got != c.want {
			t.Errorf("%s: gcRoom(%d, %d, %d MB, %.0f MB/s) = %d, want %d",
				c.name, c.percent, c.minPct, c.live/mb, c.rate/mb, got, c.want)
		}
	}
}

func TestDecayRate(t *testing.T) {
	for _, c := range []struct {
		name    string
		old     float64
		bytes   uint64
		elapsed time.Duration
		want    float64
	}{
		{"a rise is taken at once", 100, 1000, time.Second, 1000},
		{"a fall halves per half-life", 1000, 0, gcRateHalfLife, 500},
		{"two half-lives", 1000, 0, 2 * gcRateHalfLife, 250},
		{"not below the new rate", 1000, uint64(900 * gcRateHalfLife.Seconds()), gcRateHalfLife, 900},
		{"no time: unchanged", 1000, 5, 0, 1000},
	} {
		if got := decayRate(c.old, c.bytes, c.elapsed); math.Abs(got-c.want) > 1e-6*c.want {
			t.Errorf("%s: decayRate(%.0f, %d, %v) = %.3f, want %.3f", c.name, c.old, c.bytes, c.elapsed, got, c.want)
		}
	}
}

func TestTrimLimit(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live, own uint64
		gogc      int
	}{
		{120 * mb, 10 * mb, 2},
		{120 * mb, 10 * mb, 27},
		{1 << 30, 40 * mb, 20},
		{4 * mb, 2 * mb, 100},
	} {
		limit := trimLimit(c.live, c.gogc, c.own)
		goal := float64(c.live) * (1 + float64(c.gogc)/100)
		// The scavenger keeps mapped memory under 95 % of the limit: that
		// must leave the whole goal and the runtime's own memory resident,
		// and not much more (the 4 MB and rounding).
		keep := 0.95 * float64(limit)
		if keep < goal+float64(c.own) || keep > goal+float64(c.own)+4*mb {
			t.Errorf("trimLimit(%d MB, %d, %d MB) = %d MB: keeps %.1f MB for a goal of %.1f MB and %d MB of the runtime's",
				c.live/mb, c.gogc, c.own/mb, limit/mb, keep/mb, goal/mb, c.own/mb)
		}
	}
}
