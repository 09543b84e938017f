package router

import (
	"hash/maphash"

	"geoshard/shard"
)

// newestCopies keeps, of copies read from every shard of a key in a router
// without other nodes, one copy of each member: the newest (with equal
// stamps, a reload's move, either: they hold the same write). A member has
// copies in two shards only while a write or a reload moves it, its
// stripe locked; reading the shards one after the other can see both, or
// only the old one, which was the member's current copy when its shard was
// read. Deduplicating by name reads nothing but the copies, where checking
// each against its owner record costs a few cache misses a copy in a big
// key's tables (BenchmarkBigKeyReads zrange-all). It reports whether it
// dropped any copy. es is overwritten.
//
// A copy whose delete was dropped (a test hook) would outlive its member:
// callers check copies against the owner records then (currentIn).
func newestCopies(es []shard.Entry) ([]shard.Entry, bool) {
	if len(es) < 2 {
		return es, false
	}
	size := 1
	for size < 2*len(es) {
		size <<= 1
	}
	mask := uint64(size - 1)
	// A slot holds the name hash's top half and the copy's index + 1
	// (0: empty): names are compared only when those halves match.
	table := make([]uint64, size)
	seed := maphash.MakeSeed()
	var dead []bool // copies dropped, made at the first duplicate
	for i := range es {
		h := maphash.String(seed, es[i].Member)
		tag := h >> 32 << 32
		for p := h & mask; ; p = (p + 1) & mask {
			v := table[p]
			if v == 0 {
				table[p] = tag | uint64(i+1)
				break
			}
			if v&^(1<<32-1) != tag {
				continue
			}
			j := int(uint32(v)) - 1
			if es[j].Member != es[i].Member {
				continue
			}
			if dead == nil {
				dead = make([]bool, len(es))
			}
			if es[i].Stamp > es[j].Stamp {
				dead[j] = true
				table[p] = tag | uint64(i+1)
			} else {
				dead[i] = true
			}
			break
		}
	}
	if dead == nil {
		return es, false
	}
	out := es[:0]
	for i := range es {
		if !dead[i] {
			out = append(out, es[i])
		}
	}
	clear(es[len(out):]) // no names kept alive past the end
	return out, true
}

// dedupeByName reports whether a key's copies from all its shards may be
// deduplicated by name (newestCopies) rather than checked against the
// owner records: a big key (some stripe narrow) whose shards hold no copy
// a dropped delete left behind.
func (r *Router) dedupeByName(g *geoKey) bool {
	return g != nil && g.narrowed.Load() && !r.hooks.dropped.Load()
}
