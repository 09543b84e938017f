package router

import (
	"cmp"
	"slices"

	"geoshard/shard"
)

// A table re-places every record when it grows, asking KeyHash for each.
// A narrow table's KeyHash reads the member's name in its copy's shard:
// one locked call per record, whose lock's atomic instructions also keep
// the processor from overlapping the cache misses on the items and names
// (1M one-by-one adds cost 45% more CPU that way). So before a growth,
// grow reads every record's name a shard at a time, in slot order (the
// order of the items and, mostly, of the names in memory), in chunks
// that hold a shard's read lock only briefly, and KeyHash answers from
// those hashes while the table grows (grownKeys).

// growChunk is how many names grow reads per hold of a shard's read lock.
const growChunk = 512

// grow prepares a narrow table to take n more records: if the table is
// about to grow, it hashes every record first.
func (o *owners) grow(n int) {
	if o.src == nil || !o.table.Grows(n) {
		return
	}
	o.table.Reserve(n, grownKeys{o, o.hashes()})
}

// grownKeys are a narrow table's Keys while it grows: KeyHash answers
// from the hashes grow read.
type grownKeys struct {
	o  *owners
	hs []uint64
}

func (g grownKeys) Key(at uint32) string     { return g.o.Key(at) }
func (g grownKeys) KeyHash(at uint32) uint64 { return g.hs[at] }

// hashes returns the tableHash of every record's member by record number.
func (o *owners) hashes() []uint64 {
	v := o.src.v.Load()
	hs := make([]uint64, o.limit())
	byShard := make(map[shard.ID][]uint32)
	for i := range uint32(o.limit()) {
		if r := o.rec(i); !r.name().None() {
			byShard[r.shard] = append(byShard[r.shard], i)
		}
	}
	var slots []uint32
	for id, recs := range byShard {
		slices.SortFunc(recs, func(a, b uint32) int { return cmp.Compare(o.rec(a).nameAt, o.rec(b).nameAt) })
		if v == nil || int(id) >= len(v.shards) {
			continue // a dropped key's records: left 0, never looked up again
		}
		for len(recs) > 0 {
			part := recs[:min(growChunk, len(recs))]
			recs = recs[len(part):]
			slots = slots[:0]
			for _, at := range part {
				slots = append(slots, o.rec(at).nameAt)
			}
			v.shards[id].NamesAt(v.key, slots, func(i int, m string) {
				hs[part[i]] = tableHash(shard.Hash(m))
			})
		}
	}
	return hs
}
