package shard

// scanBatch is how many refs scanRange reads from the tree before it
// hands them to its callback.
const scanBatch = 32

// scanRange calls fn, in sorted-set order, for every member with a score
// in [lo, hi), telling it inside, until fn returns false; it returns
// false if fn stopped it.
//
// A search reads each hit's item from the slab, in an order that has
// nothing to do with the slab's, so nearly every read is a cache miss.
// Handed one ref at a time, fn waits out each miss in turn. scanRange
// reads a batch of refs first and touches their items in a tight loop,
// whose independent loads the CPU overlaps; fn then finds them in cache.
func (s *set) scanRange(lo, hi float64, inside bool, fn func(r ref, inside bool) bool) bool {
	var buf [scanBatch]ref
	n := 0
	more := true
	flush := func() bool {
		touch(s.items.chunks, buf[:n])
		for _, r := range buf[:n] {
			if !fn(r, inside) {
				return false
			}
		}
		n = 0
		return true
	}
	s.byScore.Ascend(mkref(lo, probe), func(r ref) bool {
		if r.score() >= hi {
			return false
		}
		buf[n] = r
		n++
		if n == len(buf) {
			more = flush()
		}
		return more
	})
	return more && flush()
}

// touch reads the stamp of each ref's item and returns their sum, which
// no caller needs: it is not inlined so that the loads are not dropped.
//
//go:noinline
func touch(items slots, refs []ref) (sum int64) {
	for _, r := range refs {
		sum += items.at(r.at).stamp
	}
	return sum
}
