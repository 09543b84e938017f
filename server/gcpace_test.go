package server

import "testing"

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
