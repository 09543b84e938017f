package shard

// slab holds a set's items in chunks of slabChunk items, addressed by slot
// number. A chunk never moves once full, so growing the slab never copies
// items: a big set neither keeps up to half its slab as growth room, as a
// slice grown by append does, nor leaves the old array behind as garbage
// (pages the runtime keeps in RSS) on each growth. Only the first chunk
// grows as a slice does, up to slabChunk, so that a small set stays small.
//
// Slot i is in chunk i>>slabBits at i&slabMask: a shift and a mask, and a
// lookup in the chunk list (a few KB at a million items, always in cache).
type slab struct {
	chunks slots  // full up to the last slot's; any after it empty (reset)
	n      uint32 // slots handed out
}

// slots is a slab's chunk list; a loop over many slots copies it to a
// local first. What made a chunked slab cost a wide search CPU was not
// this lookup but the item's cache miss that follows it: see scanRange.
type slots [][]item

// at returns the item in slot i, which must be below the slab's len.
func (c slots) at(i uint32) *item { return &c[i>>slabBits][i&slabMask] }

const (
	slabBits  = 12
	slabChunk = 1 << slabBits // items per chunk: 96 KB, exactly 12 pages
	slabMask  = slabChunk - 1
	slabFirst = 8 // the first chunk's first capacity
)

// at returns the item in slot i, which must be below len.
func (b *slab) at(i uint32) *item { return b.chunks.at(i) }

// len returns how many slots were handed out.
func (b *slab) len() int { return int(b.n) }

// push stores it in a new slot and returns the slot.
func (b *slab) push(it item) uint32 {
	at := b.n
	c := int(at >> slabBits)
	if c == len(b.chunks) {
		b.chunks = append(b.chunks, nil)
	}
	ch := b.chunks[c]
	if len(ch) == cap(ch) {
		ch = b.grow(c, 0)
	}
	b.chunks[c] = append(ch, it)
	b.n++
	return at
}

// grow gives chunk c room for at least want more items (at least one):
// a chunk past the first is made whole at once, the first doubles up to
// slabChunk. It returns the chunk.
func (b *slab) grow(c, want int) []item {
	ch := b.chunks[c]
	size := slabChunk
	if c == 0 {
		size = min(max(2*cap(ch), slabFirst, len(ch)+want), slabChunk)
	}
	if size <= cap(ch) {
		return ch
	}
	grown := make([]item, len(ch), size)
	copy(grown, ch)
	b.chunks[c] = grown
	return grown
}

// reserve makes room for n more items, which a bulk load or a region
// map reload knows it will push: only the first chunk is ever copied,
// so only it is sized ahead.
func (b *slab) reserve(n int) {
	if len(b.chunks) == 0 {
		b.chunks = append(b.chunks, nil)
	}
	if ch := b.chunks[0]; len(b.chunks) == 1 && cap(ch)-len(ch) < n {
		b.grow(0, n)
	}
}

// reset empties the slab, keeping its chunks for the pushes to come.
func (b *slab) reset() {
	for c := range b.chunks {
		b.chunks[c] = b.chunks[c][:0]
	}
	b.n = 0
}
