package router

import (
	"geoshard/geo"
	"geoshard/shard"
)

// entryChunk is how many entries one block of a KeyRestore holds: the
// entries of a key streamed in are kept in fixed blocks, so that growing
// never copies the ones already made.
const entryChunk = 1 << 16

// textChunk is the size of a block of member names.
const textChunk = 1 << 20

// packedEntry is an entry whose name is a place in the key's name
// blocks: no Go pointer, so the collector, which runs often while a
// snapshot loads (the heap grows the whole time), skips the blocks.
type packedEntry struct {
	score, lon, lat float64
	stamp           int64
	text, off, n    uint32 // the name: texts[text][off:off+n]
}

// entryBlocks is a growable array of entries in fixed blocks, with
// their names copied into byte blocks that become strings in seal.
type entryBlocks struct {
	blocks [][]packedEntry
	n      int
	bytes  [][]byte // names, until seal
	texts  []string // names, after seal
}

// at returns entry i; only after seal.
func (b *entryBlocks) at(i int) shard.Entry {
	p := &b.blocks[i/entryChunk][i%entryChunk]
	return shard.Entry{Member: b.texts[p.text][p.off : p.off+p.n], Score: p.score,
		Lon: p.lon, Lat: p.lat, Stamp: p.stamp}
}

// member returns entry i's name; only after seal.
func (b *entryBlocks) member(i int) string {
	p := &b.blocks[i/entryChunk][i%entryChunk]
	return b.texts[p.text][p.off : p.off+p.n]
}

// grow makes room for n more entries and returns the index of the first.
func (b *entryBlocks) grow(n int) int {
	first := b.n
	b.n += n
	for len(b.blocks)*entryChunk < b.n {
		b.blocks = append(b.blocks, make([]packedEntry, entryChunk))
	}
	return first
}

// name copies a member's name into the name blocks and places entry i's
// name there.
func (b *entryBlocks) name(i int, member string) {
	last := len(b.bytes) - 1
	if last < 0 || len(b.bytes[last])+len(member) > cap(b.bytes[last]) {
		b.bytes = append(b.bytes, make([]byte, 0, max(textChunk, len(member))))
		last++
	}
	p := &b.blocks[i/entryChunk][i%entryChunk]
	p.text, p.off, p.n = uint32(last), uint32(len(b.bytes[last])), uint32(len(member))
	b.bytes[last] = append(b.bytes[last], member...)
}

// seal turns the name blocks into strings, one copy each.
func (b *entryBlocks) seal() {
	for _, t := range b.bytes[len(b.texts):] {
		b.texts = append(b.texts, string(t))
	}
	b.bytes = nil
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
	for j := range ms {
		kr.es.name(first+j, ms[j].Member)
	}
	kr.stripeOf = append(kr.stripeOf, make([]uint8, len(ms))...)
	kr.shardOf = append(kr.shardOf, make([]shard.ID, len(ms))...)
	r := kr.r
	parallel(len(ms), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			m, i := &ms[j], first+j
			p := &kr.es.blocks[i/entryChunk][i%entryChunk]
			p.score, p.stamp = m.Score, m.Stamp
			p.lon, p.lat = geo.Decode(m.Score)
			kr.stripeOf[i] = r.stripeOf(m.Member)
			kr.shardOf[i] = r.regions.Locate(p.lon, p.lat)
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
	kr.es.seal()
	g := r.key(kr.k, true)
	if g.entries.Load() != 0 {
		for i := range n {
			e := kr.es.at(i)
			r.Restore(kr.k, e.Member, e.Score, e.Stamp)
		}
		return
	}
	recOf, slotOf := make([]uint32, n), make([]uint32, n)
	kept := r.restoreOwners(g, &kr.es, kr.stripeOf, kr.shardOf, recOf)
	r.restoreShards(kr.k, &kr.es, kr.shardOf, kept, slotOf)
	r.narrowRestored(g, kr.stripeOf, kept, recOf, slotOf)
	forgetHolders(g) // the bulk restore did not count its members
	kr.es = entryBlocks{}
}
