package main

import (
	"math"
	"math/bits"
	"time"
)

// histSubBits sets the precision: each power of two is split into
// 2^histSubBits linear buckets, so a reported value is within 1/64 (1.6%) of
// the truth, HDR-histogram style, with a fixed footprint for any value.
const (
	histSubBits = 6
	histSub     = 1 << histSubBits
	// A uint64 needs shifts up to 64-histSubBits-1, each adding histSub
	// buckets above the 2*histSub linear ones.
	histBuckets = (64 - histSubBits + 1) * histSub
)

// histogram records latencies in nanoseconds. It is not safe for concurrent
// use: each connection keeps its own and they are merged at the end.
type histogram struct {
	counts [histBuckets]uint64
	n      uint64
	sum    float64
	min    uint64
	max    uint64
}

func newHistogram() *histogram { return &histogram{min: math.MaxUint64} }

func histIndex(v uint64) int {
	h := bits.Len64(v)
	if h <= histSubBits+1 {
		return int(v)
	}
	shift := h - histSubBits - 1
	return shift<<histSubBits + int(v>>shift)
}

// histRange is the inclusive range of values that land in bucket i.
func histRange(i int) (lo, hi uint64) {
	if i < 2*histSub {
		return uint64(i), uint64(i)
	}
	shift := i>>histSubBits - 1
	mant := uint64(i - shift<<histSubBits)
	lo = mant << shift
	return lo, lo + (1 << shift) - 1
}

func (h *histogram) record(d time.Duration) {
	v := uint64(0)
	if d > 0 {
		v = uint64(d)
	}
	h.counts[histIndex(v)]++
	h.n++
	h.sum += float64(v)
	h.min = min(h.min, v)
	h.max = max(h.max, v)
}

func (h *histogram) merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
	h.min = min(h.min, o.min)
	h.max = max(h.max, o.max)
}

func (h *histogram) count() uint64 { return h.n }

func (h *histogram) mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return time.Duration(h.sum / float64(h.n))
}

// quantile returns the value below which a share q of the records fall: the
// middle of the bucket holding the rank, clamped to the exact min and max.
func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	q = min(max(q, 0), 1)
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = max(rank, 1)
	var acc uint64
	for i, c := range h.counts {
		acc += c
		if acc >= rank {
			lo, hi := histRange(i)
			v := lo + (hi-lo)/2
			v = min(max(v, h.min), h.max)
			return time.Duration(v)
		}
	}
	return time.Duration(h.max)
}
