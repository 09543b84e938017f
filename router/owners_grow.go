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
// It takes the records shard by shard with a counting sort: a map of a
// slice per shard cost a third of this function in a 1M bulk load (a map
// access and an append per record, for every record at every growth).
func (o *owners) hashes() []uint64 {
	v := o.src.v.Load()
	n := uint32(o.limit())
	hs := make([]uint64, n)
	if v == nil {
		return hs
	}
	// A dropped key's records (a shard past the key's) are left 0, never
	// looked up again.
	shards := len(v.shards)
	counted := func(r *record) bool { return !r.name().None() && int(r.shard) < shards }
	start := make([]int, shards+1) // shard id's records are recs[start[id]:start[id+1]]
	for i := range n {
		if r := o.rec(i); counted(r) {
			start[r.shard+1]++
		}
	}
	for id := range shards {
		start[id+1] += start[id]
	}
	recs := make([]uint32, start[shards])
	next := slices.Clone(start[:shards])
	for i := range n {
		if r := o.rec(i); counted(r) {
			recs[next[r.shard]] = i
			next[r.shard]++
		}
	}
	var slots []uint32
	for id := range shards {
		mine := recs[start[id]:start[id+1]]
		slices.SortFunc(mine, func(a, b uint32) int { return cmp.Compare(o.rec(a).nameAt, o.rec(b).nameAt) })
		for len(mine) > 0 {
			part := mine[:min(growChunk, len(mine))]
			mine = mine[len(part):]
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
