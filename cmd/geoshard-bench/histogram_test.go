package main

import (
	"math"
	"testing"
	"time"
)

func TestHistIndexRangeRoundTrip(t *testing.T) {
	// Every value must fall inside the range of its own bucket, and buckets
	// must be contiguous, or percentiles would jump.
	values := []uint64{0, 1, 63, 64, 127, 128, 129, 1000, 1 << 20, 123456789, 1<<40 + 12345, math.MaxUint64}
	for _, v := range values {
		i := histIndex(v)
		if i < 0 || i >= histBuckets {
			t.Fatalf("histIndex(%d) = %d, out of [0,%d)", v, i, histBuckets)
		}
		lo, hi := histRange(i)
		if v < lo || v > hi {
			t.Errorf("value %d in bucket %d with range [%d,%d]", v, i, lo, hi)
		}
	}
	for i := 1; i < histBuckets; i++ {
		_, prevHi := histRange(i - 1)
		lo, _ := histRange(i)
		if lo != prevHi+1 {
			t.Fatalf("bucket %d starts at %d, previous ends at %d", i, lo, prevHi)
		}
	}
}

func TestHistogramQuantiles(t *testing.T) {
	tests := []struct {
		name   string
		values func(record func(time.Duration))
		q      float64
		want   time.Duration
	}{
		{"uniform p50", uniform(1, 100000), 0.50, 50000},
		{"uniform p99", uniform(1, 100000), 0.99, 99000},
		{"uniform p999", uniform(1, 100000), 0.999, 99900},
		{"uniform p0 is min", uniform(1, 100000), 0, 1},
		{"uniform p100 is max", uniform(1, 100000), 1, 100000},
		{"small exact", uniform(1, 100), 0.5, 50},
		{"bimodal p50 in low mode", bimodal, 0.50, time.Millisecond},
		{"bimodal p99 in high mode", bimodal, 0.99, time.Second},
		{"single value", func(r func(time.Duration)) { r(3 * time.Millisecond) }, 0.999, 3 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHistogram()
			tc.values(h.record)
			v := h.quantile(tc.q)
			if relErr(v, tc.want) > 1.0/histSub {
				t.Errorf("quantile(%v) = %v, want %v within %.1f%%", tc.q, v, tc.want, 100.0/histSub)
			}
		})
	}
}

func TestHistogramMergeAndEmpty(t *testing.T) {
	empty := newHistogram()
	if empty.quantile(0.5) != 0 || empty.mean() != 0 || empty.count() != 0 {
		t.Fatalf("empty histogram must report zeros")
	}
	a, b, all := newHistogram(), newHistogram(), newHistogram()
	for i := 1; i <= 1000; i++ {
		d := time.Duration(i) * time.Microsecond
		all.record(d)
		if i%2 == 0 {
			a.record(d)
		} else {
			b.record(d)
		}
	}
	a.merge(b)
	a.merge(empty)
	if a.count() != all.count() || a.mean() != all.mean() {
		t.Fatalf("merged count/mean %d/%v, want %d/%v", a.count(), a.mean(), all.count(), all.mean())
	}
	for _, q := range []float64{0.5, 0.99, 0.999} {
		if a.quantile(q) != all.quantile(q) {
			t.Errorf("merged quantile(%v) = %v, want %v", q, a.quantile(q), all.quantile(q))
		}
	}
	neg := newHistogram()
	neg.record(-time.Second) // a clock step must not wrap to a huge value
	if neg.quantile(1) != 0 {
		t.Errorf("negative duration recorded as %v, want 0", neg.quantile(1))
	}
}

func uniform(lo, hi int) func(func(time.Duration)) {
	return func(record func(time.Duration)) {
		for v := lo; v <= hi; v++ {
			record(time.Duration(v))
		}
	}
}

func bimodal(record func(time.Duration)) {
	for range 980 {
		record(time.Millisecond)
	}
	for range 20 {
		record(time.Second)
	}
}

func relErr(got, want time.Duration) float64 {
	if want == 0 {
		return math.Abs(float64(got))
	}
	return math.Abs(float64(got-want)) / float64(want)
}
