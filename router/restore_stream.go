package router

import (
	"geoshard/shard"
)

// entryChunk is how many entries one block of a KeyRestore holds: the
// entries of a key streamed in are kept in fixed blocks, so that growing
// never copies the ones already made.
const entryChunk = 1 << 16

// entryBlocks is a growable array of entries in fixed blocks.
type entryBlocks struct {
	blocks [][]shard.Entry
	n      int
}

func (b *entryBlocks) at(i int) *shard.Entry {
	return &b.blocks[i/entryChunk][i%entryChunk]
}

// grow makes room for n more entries and returns the index of the first.
func (b *entryBlocks) grow(n int) int {
	first := b.n
	b.n += n
	for len(b.blocks)*entryChunk < b.n {
		b.blocks = append(b.blocks, make([]shard.Entry, entryChunk))
	}
	return first
}

// KeyRestore puts back one key read from a snapshot whose members come
// in parts, so that the caller can go on decoding while the parts it
// handed over are placed. Add and Finish must not run at once; the
// caller keeps other writers of the key out until Finish returns.
type KeyRestore struct {
	r        *Router
	k        shard.Key
	es       entryBlocks
	stripeOf []uint8
	shardOf  []shard.ID
}

// NewKeyRestore starts restoring k.
func (r *Router) NewKeyRestore(k shard.Key) *KeyRestore {
	return &KeyRestore{r: r, k: k}
}

// Add takes the next members of the key in their saved order; ms may be
// reused once Add returns (the member names are kept, not copied, until
// Finish returns).
func (kr *KeyRestore) Add(ms []Saved) {
	first := kr.es.grow(len(ms))
	kr.stripeOf = append(kr.stripeOf, make([]uint8, len(ms))...)
	kr.shardOf = append(kr.shardOf, make([]shard.ID, len(ms))...)
	r := kr.r
	parallel(len(ms), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			m, i := &ms[j], first+j
			e := kr.es.at(i)
			*e = shard.NewEntry(m.Member, m.Score, m.Stamp)
			kr.stripeOf[i] = r.stripeOf(m.Member)
			kr.shardOf[i] = r.regions.Locate(e.Lon, e.Lat)
		}
	})
}

// Finish places every member added: into an empty key in parallel, each
// shard building its index in one sorted pass; into a key that has
// members already one by one, as Restore does. A member saved twice
// keeps its last copy.
func (kr *KeyRestore) Finish() {
	n := kr.es.n
	if n == 0 {
		return
	}
	r := kr.r
	g := r.key(kr.k, true)
	if g.entries.Load() != 0 {
		for i := range n {
			e := kr.es.at(i)
			r.Restore(kr.k, e.Member, e.Score, e.Stamp)
		}
		return
	}
	kept := r.restoreOwners(g, &kr.es, kr.stripeOf, kr.shardOf)
	r.restoreShards(kr.k, &kr.es, kr.shardOf, kept)
	kr.es = entryBlocks{}
}
