package shard

import (
	"cmp"
	"slices"
	"strings"
)

// radixMin is the fewest refs worth a radix sort: below it the
// histograms cost more than comparing.
const radixMin = 1 << 10

// radixBits is the digit width: 2048 buckets keep the scatter's
// destinations few enough to stay in cache.
const radixBits = 11

// sortRefs orders refs as the B-tree does: by score, then by name. A
// comparison sort of a million refs was a third of a load's CPU; an LSD
// radix sort on the score's bits does it in a few linear passes, and
// only runs of equal scores (rare) are compared by name.
func (s *set) sortRefs(refs []ref) {
	if len(refs) < radixMin || hasNaN(refs) {
		slices.SortFunc(refs, s.compareRefs)
		return
	}
	radixSort(refs)
	for i := 0; i < len(refs); {
		j := i + 1
		for j < len(refs) && sortKey(refs[j]) == sortKey(refs[i]) {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(refs[i:j], s.compareRefs)
		}
		i = j
	}
}

func (s *set) compareRefs(a, b ref) int {
	if c := cmp.Compare(a.score(), b.score()); c != 0 {
		return c
	}
	return strings.Compare(s.name(a.at), s.name(b.at))
}

// hasNaN reports a NaN score, which cmp.Compare orders before every
// number and which has no place in the radix keys' order.
func hasNaN(refs []ref) bool {
	for _, r := range refs {
		if f := r.score(); f != f {
			return true
		}
	}
	return false
}

// sortKey maps a score to a uint64 that orders as cmp.Compare orders
// the numbers: -0 and +0 are one key, negatives below positives.
func sortKey(r ref) uint64 {
	b := uint64(r.hi)<<32 | uint64(r.lo)
	if b<<1 == 0 {
		b = 0 // -0 is +0
	}
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// radixSort sorts refs by sortKey, stably, digit by digit from the
// lowest; digits all refs share are skipped.
func radixSort(refs []ref) {
	const buckets = 1 << radixBits
	const digits = (64 + radixBits - 1) / radixBits
	var counts [digits][buckets]int
	for _, r := range refs {
		k := sortKey(r)
		for d := range digits {
			counts[d][(k>>(d*radixBits))&(buckets-1)]++
		}
	}
	src, dst := refs, make([]ref, len(refs))
	for d := range digits {
		c := &counts[d]
		if c[(sortKey(src[0])>>(d*radixBits))&(buckets-1)] == len(src) {
			continue // every ref has this digit
		}
		sum := 0
		for b := range c {
			c[b], sum = sum, sum+c[b]
		}
		for _, r := range src {
			b := (sortKey(r) >> (d * radixBits)) & (buckets - 1)
			dst[c[b]] = r
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &refs[0] {
		copy(refs, src)
	}
}
